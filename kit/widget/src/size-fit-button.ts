/**
 * `<size-fit-button product="<platform product id>" endpoint="/fit">`: a "Find my size" button that opens a dialog
 * with the store's questions for the product, shows the size it suggests and why, and hands the size chosen to the
 * page as a `size-fit-select` event (`detail`: product, size_label, variant_id, cart_property). It talks to the
 * integrator's backend at `endpoint` only, never to Size-Fit itself.
 *
 * It shows itself once the backend, asked about the page view, says to: a shopper in an experiment's holdout gets
 * nothing at all (no button, no dialog, nothing for a screen reader), the page's own size picker being hers.
 */
import {
  type Answer,
  Backend,
  BackendError,
  type FieldError,
  isNoSizeHelp,
  type Question,
  type Recommendation,
  type Started,
} from './api.js';
import { format, type Locale, localeOf, type Units } from './i18n.js';
import { recall, remember } from './memory.js';
import type { Messages } from './messages/en.js';
import { CSS } from './styles.js';

const ZONES = ['chest', 'waist', 'hip', 'inseam', 'neck', 'sleeve', 'foot_length', 'head', 'thigh'];
const CM_PER_INCH = 2.54;
const KG_PER_POUND = 0.45359237;
const SEXES = ['female', 'male'];
const FIT_PREFERENCES = ['tighter', 'regular', 'looser'];
const VERDICTS = ['too_small', 'snug', 'regular', 'loose', 'too_large'];
/**
 * Bra sizes, read as the bust they mean: EU bands are the underbust in centimetres and each cup 2 cm more from AA's
 * 10–12 cm; US bands are inches and each cup one inch more (band plus cup, as the service's evaluation reads them).
 */
const BRA = {
  metric: {
    bands: [60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110],
    cups: ['AA', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'],
    bust: (band: number, cup: number) => band + 11 + 2 * cup,
  },
  imperial: {
    bands: [28, 30, 32, 34, 36, 38, 40, 42, 44, 46],
    cups: ['AA', 'A', 'B', 'C', 'D', 'DD', 'DDD', 'G', 'H'],
    bust: (band: number, cup: number) => band + cup,
  },
};

/** Per product, the backend's answer to this page view: one question per page, whatever the number of widgets. */
const views = new Map<string, Promise<boolean>>();

/**
 * Until the backend answers, and for good when it says no size help: `display: none` takes the element and its live
 * regions out of the page and its accessibility tree; `!important` in the shadow tree outranks the page's own rules.
 */
const HIDDEN = ':host { display: none !important; }';

type Child = Node | string | null | undefined | false;

function h(tag: string, attributes: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

const idOf = (key: string) => `q-${key.replace(/[^a-z0-9_]/g, '-')}`;
const isMeasure = (key: string) => key === 'height' || key === 'weight' || ZONES.includes(key);
const unitOf = (key: string, units: Units) => (key === 'weight' ? (units === 'metric' ? 'kg' : 'lb') : units === 'metric' ? 'cm' : 'in');
const round1 = (value: number) => Math.round(value * 10) / 10;

function converted(value: number, key: string, to: Units): number {
  const factor = key === 'weight' ? 1 / KG_PER_POUND : 1 / CM_PER_INCH;
  return round1(to === 'imperial' ? value * factor : value / factor);
}

export class SizeFitButton extends HTMLElement {
  private readonly root: ShadowRoot;
  private locale: Locale = { lang: 'en', tag: 'en', messages: {} as Messages, units: 'metric' };
  private units: Units = 'metric';
  private opener: HTMLButtonElement | null = null;
  private dialog: HTMLDialogElement | null = null;
  private body: HTMLElement | null = null;
  private live: HTMLElement | null = null;
  private outsideLive: HTMLElement | null = null;
  private started: Started | null = null;
  private decided = false;
  private recommendation: Recommendation | null = null;
  private values: Record<string, Answer> = {};
  private readonly hiding = new CSSStyleSheet();
  private withdrawn = false;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
  }

  private get product(): string {
    return this.getAttribute('product') ?? '';
  }

  private get backend(): Backend {
    return new Backend(this.getAttribute('endpoint') ?? '/fit');
  }

  private get t(): Messages {
    return this.locale.messages;
  }

  connectedCallback(): void {
    if (this.opener) return;
    this.locale = localeOf(this);
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    this.hiding.replaceSync(HIDDEN);
    this.root.adoptedStyleSheets = [sheet, this.hiding];

    this.opener = h(
      'button',
      { type: 'button', class: 'open', part: 'button', 'aria-haspopup': 'dialog' },
      this.t.open,
    ) as HTMLButtonElement;
    this.opener.addEventListener('click', () => this.open());
    this.live = h('div', { role: 'status', class: 'sr-only' });
    this.body = h('div', { class: 'body' });
    const title = h('h2', { id: 'title', part: 'title', tabindex: '-1' }, this.t.title);
    const close = h('button', { type: 'button', class: 'close', part: 'close', 'aria-label': this.t.close }, '×');
    close.addEventListener('click', () => this.close());
    this.dialog = h(
      'dialog',
      { part: 'dialog', 'aria-labelledby': 'title' },
      h('div', { class: 'head' }, title, close),
      this.body,
      this.live,
    ) as HTMLDialogElement;
    this.dialog.addEventListener('close', () => this.opener?.focus());
    this.dialog.addEventListener('keydown', (event) => this.trapFocus(event));
    this.outsideLive = h('div', { role: 'status', class: 'sr-only' });
    this.root.append(this.opener, this.dialog, this.outsideLive);

    const product = this.product;
    let shown = views.get(product);
    if (shown === undefined) {
      shown = product ? this.backend.view(product) : Promise.resolve(true);
      views.set(product, shown);
    }
    void shown.then((yes) => (yes ? this.reveal() : this.withdraw()));
  }

  private reveal(): void {
    if (this.withdrawn) return;
    this.root.adoptedStyleSheets = this.root.adoptedStyleSheets.filter((sheet) => sheet !== this.hiding);
  }

  /** No size help for this shopper: hidden for good, and nothing left inside to be read or focused. */
  private withdraw(): void {
    this.withdrawn = true;
    if (!this.root.adoptedStyleSheets.includes(this.hiding)) this.root.adoptedStyleSheets = [...this.root.adoptedStyleSheets, this.hiding];
    this.dialog?.close();
    this.root.replaceChildren();
  }

  /** Opens the dialog; a decided session is done, so the next opening starts a new one. */
  open(): void {
    if (!this.dialog || this.dialog.open || this.withdrawn) return;
    this.dialog.showModal();
    if (this.decided) {
      this.started = null;
      this.recommendation = null;
      this.decided = false;
    }
    (this.root.getElementById('title') as HTMLElement).focus();
    if (this.started && this.recommendation) this.showResult(this.recommendation);
    else if (this.started) this.showForm();
    else {
      // what she answered last time, on this product or another, from her own browser
      const remembered = recall();
      this.units = remembered?.units ?? this.locale.units;
      this.values = { ...(remembered?.answers ?? {}) };
      void this.load();
    }
  }

  close(): void {
    this.dialog?.close();
  }

  private trapFocus(event: KeyboardEvent): void {
    if (event.key !== 'Tab' || !this.dialog) return;
    const focusable = [...this.dialog.querySelectorAll<HTMLElement>('button, input, select, [href]')].filter(
      (element) => !element.hasAttribute('disabled') && element.getClientRects().length > 0,
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = this.root.activeElement;
    if (!first || !last) return;
    if (event.shiftKey && (active === first || active === this.root.getElementById('title'))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  }

  private show(...children: Child[]): void {
    this.body?.replaceChildren(...children.filter((child): child is Node | string => Boolean(child)));
  }

  private announce(text: string, outside = false): void {
    const region = outside ? this.outsideLive : this.live;
    if (!region) return;
    region.textContent = '';
    // a fresh text node after a beat, so that the same message twice is read twice
    setTimeout(() => (region.textContent = text), 50);
  }

  private async load(): Promise<void> {
    this.show(h('p', {}, this.t.loading));
    this.announce(this.t.loading);
    try {
      const started = await this.backend.start(this.product);
      if (isNoSizeHelp(started)) return this.withdraw();
      this.started = started;
      this.showForm();
    } catch (error) {
      this.showUnavailable(error instanceof BackendError && error.status === 404 ? this.t.no_help : this.t.unavailable);
    }
  }

  private showUnavailable(text: string): void {
    const retry = h('button', { type: 'button', class: 'secondary', part: 'secondary' }, this.t.retry);
    retry.addEventListener('click', () => void this.load());
    const close = h('button', { type: 'button', class: 'primary', part: 'choose' }, this.t.close);
    close.addEventListener('click', () => this.close());
    this.show(h('p', { role: 'alert', class: 'notice', part: 'message' }, text), h('div', { class: 'actions' }, retry, close));
  }

  // ---- the questions ----------------------------------------------------------------------------------------

  private showForm(): void {
    const started = this.started;
    if (!started) return;
    const t = this.t;
    const form = h('form', { part: 'form', novalidate: true }) as HTMLFormElement;
    const hadAnswers = started.questions.some((q) => Object.hasOwn(this.values, q.key));
    form.append(h('p', {}, t.intro));
    if (hadAnswers) form.append(h('p', { class: 'notice', part: 'message' }, t.remembered));
    if (started.questions.some((q) => isMeasure(q.key))) form.append(this.unitsField(form));
    for (const question of started.questions) form.append(this.field(question));
    form.append(h('p', { class: 'error', id: 'form-error', role: 'alert' }));
    const submit = h('button', { type: 'submit', class: 'primary', part: 'submit' }, t.submit);
    form.append(h('div', { class: 'actions' }, submit));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit(form, submit as HTMLButtonElement);
    });
    this.show(form);
  }

  private unitsField(form: HTMLFormElement): HTMLElement {
    const fieldset = h('fieldset', { class: 'field', part: 'field' }, h('legend', { part: 'label' }, this.t.units));
    for (const units of ['metric', 'imperial'] as const) {
      const input = h('input', {
        type: 'radio',
        name: 'units',
        value: units,
        id: `units-${units}`,
        checked: this.units === units,
      }) as HTMLInputElement;
      input.addEventListener('change', () => this.switchUnits(form, units));
      fieldset.append(h('label', { class: 'option', for: `units-${units}` }, input, this.t[units]));
    }
    return fieldset;
  }

  /** Converts what is typed to the other units, and relabels the fields. */
  private switchUnits(form: HTMLFormElement, to: Units): void {
    if (to === this.units) return;
    for (const input of form.querySelectorAll<HTMLInputElement>('input[data-measure]')) {
      const key = input.dataset.measure ?? '';
      const value = Number(input.value.replace(',', '.'));
      if (input.value.trim() !== '' && Number.isFinite(value)) input.value = String(converted(value, key, to));
      const unit = form.querySelector(`#${input.id}-unit`);
      if (unit) unit.textContent = unitOf(key, to);
    }
    this.units = to;
    const band = form.querySelector<HTMLSelectElement>(`#${idOf('chest')}-band`);
    const cup = form.querySelector<HTMLSelectElement>(`#${idOf('chest')}-cup`);
    if (band && cup) this.fillBra(band, cup);
  }

  private label(question: Question, text: string, forId?: string): HTMLElement {
    return h(
      forId ? 'label' : 'legend',
      { for: forId, part: 'label' },
      text,
      !question.required && h('span', { class: 'optional' }, ` (${this.t.optional})`),
    );
  }

  private field(question: Question): HTMLElement {
    const t = this.t;
    const key = question.key;
    const id = idOf(key);
    const error = h('p', { class: 'error', id: `${id}-error`, part: 'error' });
    const previous = this.values[key];

    if (key === 'sex' || key === 'fit_preference') {
      const options = key === 'sex' ? SEXES : FIT_PREFERENCES;
      const fieldset = h('fieldset', { class: 'field', part: 'field', id, 'aria-describedby': `${id}-error` });
      fieldset.append(this.label(question, key === 'sex' ? t.q_sex : t.q_fit_preference));
      for (const option of options) {
        const text = key === 'sex' ? t[`sex_${option}` as keyof Messages] : t[`fit_${option}` as keyof Messages];
        const input = h('input', { type: 'radio', name: key, value: option, id: `${id}-${option}`, checked: previous === option });
        fieldset.append(h('label', { class: 'option', for: `${id}-${option}` }, input, text));
      }
      fieldset.append(error);
      return fieldset;
    }

    const wrapper = h('div', { class: 'field', part: 'field' });
    if (key === 'usual_size') {
      const select = h('select', { id, name: key, 'aria-describedby': `${id}-error`, part: 'input' });
      select.append(h('option', { value: '' }, t.usual_unknown));
      for (const size of this.started?.sizes ?? [])
        select.append(h('option', { value: size.label, selected: previous === size.label }, size.label));
      wrapper.append(this.label(question, t.q_usual_size, id), select, error);
      return wrapper;
    }

    const zone = ZONES.includes(key);
    const text =
      key === 'height'
        ? t.q_height
        : key === 'weight'
          ? t.q_weight
          : key === 'age'
            ? t.q_age
            : zone
              ? t[`zone_${key}` as keyof Messages]
              : key.replace(/^custom:/, '').replace(/_/g, ' ');
    const hint = zone ? h('p', { class: 'hint', id: `${id}-hint`, part: 'hint' }, t[`how_${key}` as keyof Messages]) : null;
    const unit = isMeasure(key) ? unitOf(key, this.units) : key === 'age' ? t.years : null;
    const describedBy = [hint ? `${id}-hint` : '', unit ? `${id}-unit` : '', `${id}-error`].filter(Boolean).join(' ');
    let value = '';
    if (isMeasure(key) && typeof previous === 'object' && previous !== null && previous.method !== 'bra_size') {
      const sameUnits = unitOf(key, this.units) === previous.unit;
      value = String(sameUnits ? previous.value : converted(previous.value, key, this.units));
    } else if (previous !== undefined && typeof previous !== 'object') value = String(previous);
    const numeric = isMeasure(key) || key === 'age';
    const input = h('input', {
      type: 'text',
      id,
      name: key,
      value,
      class: numeric ? 'number' : undefined,
      inputmode: numeric ? 'decimal' : undefined,
      autocomplete: 'off',
      'aria-describedby': describedBy,
      'data-measure': isMeasure(key) ? key : undefined,
      part: 'input',
    });
    wrapper.append(
      this.label(question, text, id),
      h('div', { class: 'row' }, input, unit && h('span', { class: 'unit', id: `${id}-unit` }, unit)),
      hint ?? '',
      key === 'chest' ? this.braPart(input as HTMLInputElement, id) : '',
      error,
    );
    return wrapper;
  }

  /** The chest from a bra size instead of a tape: band and cup, read as the bust they mean. */
  private braPart(tape: HTMLInputElement, id: string): HTMLElement {
    const t = this.t;
    const toggle = h('input', { type: 'checkbox', id: `${id}-bra` }) as HTMLInputElement;
    const band = h('select', { id: `${id}-band`, part: 'input' }) as HTMLSelectElement;
    const cup = h('select', { id: `${id}-cup`, part: 'input' }) as HTMLSelectElement;
    this.fillBra(band, cup);
    const choices = h(
      'div',
      { hidden: true },
      h('div', { class: 'row' }, h('label', { for: band.id }, t.bra_band), band, h('label', { for: cup.id }, t.bra_cup), cup),
      h('p', { class: 'hint', part: 'hint' }, t.bra_hint),
    );
    toggle.addEventListener('change', () => {
      choices.hidden = !toggle.checked;
      tape.disabled = toggle.checked;
    });
    return h('div', {}, h('label', { class: 'option', for: toggle.id }, toggle, t.bra_toggle), choices);
  }

  private fillBra(band: HTMLSelectElement, cup: HTMLSelectElement): void {
    const sizes = BRA[this.units];
    band.replaceChildren(
      h('option', { value: '' }, this.t.bra_choose),
      ...sizes.bands.map((b) => h('option', { value: String(b) }, String(b))),
    );
    cup.replaceChildren(h('option', { value: '' }, this.t.bra_choose), ...sizes.cups.map((c, i) => h('option', { value: String(i) }, c)));
  }

  /** The answers as the service takes them; a number that does not read as one is refused here, beside its field. */
  private read(form: HTMLFormElement): { answers: Record<string, Answer>; errors: FieldError[] } {
    const answers: Record<string, Answer> = {};
    const errors: FieldError[] = [];
    for (const question of this.started?.questions ?? []) {
      const key = question.key;
      if (key === 'sex' || key === 'fit_preference') {
        const checked = form.querySelector<HTMLInputElement>(`input[name="${key}"]:checked`);
        if (checked) answers[key] = checked.value;
        continue;
      }
      if (key === 'chest' && form.querySelector<HTMLInputElement>(`#${idOf(key)}-bra`)?.checked) {
        const band = Number(form.querySelector<HTMLSelectElement>(`#${idOf(key)}-band`)?.value || NaN);
        const cup = Number(form.querySelector<HTMLSelectElement>(`#${idOf(key)}-cup`)?.value || NaN);
        if (Number.isFinite(band) && Number.isFinite(cup)) {
          answers[key] = { value: BRA[this.units].bust(band, cup), unit: unitOf(key, this.units), method: 'bra_size' };
        } else errors.push({ field: `answers.${key}`, code: 'required', message: '' });
        continue;
      }
      const control = form.querySelector<HTMLInputElement | HTMLSelectElement>(`#${idOf(key)}`);
      const raw = control?.value.trim() ?? '';
      if (raw === '') continue;
      if (isMeasure(key) || key === 'age') {
        const number = Number(raw.replace(',', '.'));
        if (!Number.isFinite(number)) {
          errors.push({ field: `answers.${key}`, code: 'must_be_number', message: '' });
          continue;
        }
        answers[key] = isMeasure(key) ? { value: number, unit: unitOf(key, this.units) } : number;
      } else answers[key] = raw;
    }
    return { answers, errors };
  }

  private async submit(form: HTMLFormElement, submit: HTMLButtonElement): Promise<void> {
    const started = this.started;
    if (!started) return;
    this.clearErrors(form);
    const { answers, errors } = this.read(form);
    if (errors.length) return this.showErrors(form, errors);
    submit.disabled = true;
    submit.textContent = this.t.working;
    this.announce(this.t.working);
    try {
      const { recommendation } = await this.backend.answer(started.session_id, answers);
      this.values = { ...this.values, ...answers };
      remember({ units: this.units, answers: this.values });
      this.recommendation = recommendation;
      this.showResult(recommendation);
    } catch (error) {
      submit.disabled = false;
      submit.textContent = this.t.submit;
      if (error instanceof BackendError && error.status === 400 && error.errors.length) this.showErrors(form, error.errors);
      else this.showUnavailable(this.t.unavailable);
    }
  }

  private clearErrors(form: HTMLFormElement): void {
    for (const error of form.querySelectorAll('.error')) error.textContent = '';
    for (const invalid of form.querySelectorAll('[aria-invalid]')) invalid.removeAttribute('aria-invalid');
  }

  private showErrors(form: HTMLFormElement, errors: readonly FieldError[]): void {
    const t = this.t;
    const invalid: HTMLElement[] = [];
    for (const error of errors) {
      const key = error.field.replace(/^answers\./, '').split('.')[0] ?? '';
      const id = idOf(key);
      const holder = form.querySelector(`#${id}-error`);
      const text =
        error.code === 'required'
          ? t.error_required
          : error.code === 'must_be_number' || error.code === 'must_be_measure'
            ? t.error_number
            : error.code === 'out_of_range'
              ? t.error_out_of_range
              : this.locale.lang === 'en' && error.message
                ? error.message
                : t.error_other;
      if (holder) holder.textContent = holder.textContent ? `${holder.textContent} ${text}` : text;
      const control = form.querySelector<HTMLElement>(`#${id}`);
      const focusable =
        control?.tagName === 'FIELDSET'
          ? control.querySelector<HTMLElement>('input')
          : control?.hasAttribute('disabled')
            ? form.querySelector<HTMLElement>(`#${id}-band`)
            : control;
      control?.setAttribute('aria-invalid', 'true');
      if (focusable) invalid.push(focusable);
    }
    // the first field in the form's order, whatever order the errors came in
    const first = invalid.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
    const summary = form.querySelector('#form-error');
    if (summary) summary.textContent = t.errors_some;
    first?.focus();
  }

  // ---- the answer ---------------------------------------------------------------------------------------------

  private zonesText(fit: Readonly<Record<string, string>>): string {
    const t = this.t;
    const list = new Intl.ListFormat(this.locale.tag, { type: 'conjunction' });
    const parts: string[] = [];
    for (const verdict of VERDICTS) {
      const zones = Object.keys(fit).filter((zone) => fit[zone] === verdict && ZONES.includes(zone));
      if (!zones.length) continue;
      const names = zones.map((zone) => {
        const name = t[`zone_${zone}` as keyof Messages];
        return this.locale.lang === 'de' ? name : name.toLocaleLowerCase(this.locale.tag);
      });
      const template = verdict === 'regular' ? t.fit_regular_at : t[`fit_${verdict}` as keyof Messages];
      parts.push(format(template, { zones: list.format(names) }));
    }
    return parts.join(', ');
  }

  private showResult(recommendation: Recommendation): void {
    const t = this.t;
    const size = recommendation.size_label;
    const sizes = this.started?.sizes.map((s) => s.label) ?? [];
    const c = recommendation.confidence;
    const sure = c >= 0.75 ? t.sure_high : c >= 0.5 ? t.sure_good : c >= 0.3 ? t.sure_fair : t.sure_low;
    const runner = recommendation.alternatives[0];
    const reasons = h('ul', {});
    const ownFit = this.zonesText(recommendation.fit);
    if (ownFit) reasons.append(h('li', {}, format(t.runner_up_why, { size, why: ownFit })));
    if (runner?.fit && Object.keys(runner.fit).length) {
      reasons.append(h('li', {}, format(t.runner_up_why, { size: runner.size_label, why: this.zonesText(runner.fit) })));
    }
    let between: string | null = null;
    if (runner && runner.confidence >= 0.25 && c - runner.confidence <= 0.2) {
      const [small, large] = sizes.indexOf(runner.size_label) < sizes.indexOf(size) ? [runner.size_label, size] : [size, runner.size_label];
      between = format(t.between, { small, large });
    }
    let adjusted: string | null = null;
    const adjustment = recommendation.adjustment;
    if (adjustment && adjustment.source !== 'none' && Math.abs(adjustment.size_steps) >= 0.2) {
      const steps = Math.abs(adjustment.size_steps);
      const amount =
        steps < 0.4
          ? t.amount_little
          : steps < 0.75
            ? t.amount_half
            : steps < 1.5
              ? t.amount_one
              : format(t.amount_many, { count: Math.round(steps) });
      adjusted = format(adjustment.size_steps > 0 ? t.runs_small : t.runs_large, { amount });
    }
    const odds = [size, runner?.size_label].flatMap((label) => {
      const o = label === undefined ? undefined : recommendation.outcomes?.find((x) => x.size_label === label);
      if (!o) return [];
      const tenths = (p: number) => String(Math.round(p * 10));
      const parts = [format(t.odds_fit, { size: o.size_label, count: tenths(o.fit) })];
      if (o.too_small >= 0.15) parts.push(format(t.odds_small, { count: tenths(o.too_small) }));
      if (o.too_large >= 0.15) parts.push(format(t.odds_large, { count: tenths(o.too_large) }));
      return [h('p', { part: 'odds' }, parts.join(' '))];
    });
    const choose = (label: string, primary: boolean) => {
      const button = h(
        'button',
        { type: 'button', class: primary ? 'primary' : 'secondary', part: primary ? 'choose' : 'secondary' },
        format(t.choose, { size: label }),
      );
      button.addEventListener('click', () => void this.choose(label, button as HTMLButtonElement));
      return button;
    };
    const change = h('button', { type: 'button', class: 'secondary', part: 'secondary' }, t.change);
    change.addEventListener('click', () => {
      this.recommendation = null;
      this.showForm();
      this.root.querySelector<HTMLElement>('form input, form select')?.focus();
    });
    const heading = h('h3', { id: 'result-title', tabindex: '-1' }, t.result_title);
    this.show(
      h(
        'section',
        { part: 'result', 'aria-labelledby': 'result-title' },
        heading,
        h('p', { class: 'size', part: 'size' }, size),
        h('p', {}, format(t.result_size, { size }), ' ', sure),
        runner && h('p', {}, format(t.runner_up, { size: runner.size_label })),
        reasons.childElementCount > 0 && reasons,
        between && h('p', { class: 'notice', part: 'message' }, between),
        adjusted && h('p', {}, adjusted),
        ...odds,
        h('p', { class: 'error', id: 'choose-error', role: 'alert' }),
        h('div', { class: 'actions' }, choose(size, true), runner && choose(runner.size_label, false), change),
      ),
    );
    heading.focus();
    this.announce(`${format(t.result_size, { size })} ${sure}`);
  }

  private async choose(label: string, button: HTMLButtonElement): Promise<void> {
    const started = this.started;
    if (!started) return;
    button.disabled = true;
    try {
      const decided = await this.backend.decide(started.session_id, label);
      this.decided = true;
      const variant = decided.variant_id ?? started.sizes.find((s) => s.label === label)?.variant_id ?? null;
      this.dispatchEvent(
        new CustomEvent('size-fit-select', {
          bubbles: true,
          composed: true,
          detail: { product: this.product, size_label: label, variant_id: variant, cart_property: decided.cart_property },
        }),
      );
      this.close();
      this.announce(format(this.t.chosen, { size: label }), true);
    } catch {
      button.disabled = false;
      const error = this.root.getElementById('choose-error');
      if (error) error.textContent = this.t.choose_failed;
    }
  }
}
