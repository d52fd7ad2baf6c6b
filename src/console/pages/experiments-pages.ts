import type { ProductTypeResponse } from '../../catalog/dto/product-type.dto.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import type { ExperimentResponse } from '../../experiments/dto/experiment.dto.js';
import type { ComparisonResult, ExperimentResultsResponse, LiftResponse } from '../../experiments/dto/results.dto.js';
import type { Store } from '../../stores/store.entity.js';
import {
  ARM_NAMES,
  CURRENT_SPLIT,
  type ExperimentFormValues,
  FORM_FIELDS,
  type Metric,
  METRIC_CHOICES,
  NEW_EXPERIMENT,
  SPLITS,
  type Treatment,
  TREATMENT_CHOICES,
} from '../experiments/experiment-form.js';
import { html, type Html } from '../html.js';
import { csrfField, errorSummary, fieldError, fieldHint, invalidAttributes, layout, type PageContext } from './layout.js';

/** Each result as a merchant says it: what it counts, and which way is good. */
const METRIC_WORDS: Readonly<
  Record<
    Metric,
    {
      readonly label: string;
      /** The start of a sentence saying which way it went: "size returns are" (lower). */
      readonly subject: string;
      readonly about: string;
      readonly better: 'higher' | 'lower';
      /** What there is too little of before it can be compared. */
      readonly counts: string;
    }
  >
> = {
  size_return_rate: {
    label: 'Size returns',
    subject: 'size returns are',
    about: 'items bought that are returned for their size',
    better: 'lower',
    counts: 'purchases',
  },
  conversion: {
    label: 'Conversion',
    subject: 'conversion is',
    about: 'shoppers who buy a product of the experiment',
    better: 'higher',
    counts: 'shoppers',
  },
  size_exchange_rate: {
    label: 'Size exchanges',
    subject: 'size exchanges are',
    about: 'items bought that are exchanged for another size',
    better: 'lower',
    counts: 'purchases',
  },
  kept_rate: { label: 'Kept items', subject: 'kept items are', about: 'items bought that are kept', better: 'higher', counts: 'purchases' },
};

const TREATMENT_WORDS: Readonly<Record<Treatment, string>> = {
  size_help: 'size help as usual',
  chart_only: 'the size chart’s answer alone, without what was learned',
  no_size_help: 'no size help: a holdout',
};

const STATE_WORDS: Readonly<Record<ExperimentResponse['state'], string>> = { draft: 'Draft', running: 'Running', stopped: 'Stopped' };

// ———————————————————————————————————————— figures in words ————————————————————————————————————————

const NUMBER = new Intl.NumberFormat('en-GB');
const count = (n: number) => NUMBER.format(n);
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;
const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1).replace(/\.0$/, '')} %`);
/** A rate's difference in percentage points, signed with a true minus. */
const points = (difference: number) => {
  const figure = Math.abs(difference * 100).toFixed(1);
  return figure === '0.0' ? '0.0' : `${difference > 0 ? '+' : '−'}${figure}`;
};
/** The smallest difference as typed: 2, not 2.0. */
const effectPoints = (rate: number) => Number((rate * 100).toFixed(2)).toString();
const day = (at: string | null) => (at ? at.slice(0, 10) : '');
const armShare = (arm: ExperimentResponse['arms'][number]) => `${arm.name} ${Number((arm.share * 100).toFixed(1)).toString()} %`;

/** Whether a difference is good news for the group compared: a badge's word, said only once it is real. */
function judgement(metric: Metric, lift: LiftResponse): 'better' | 'worse' | 'unsure' {
  if (!lift.significant) return 'unsure';
  const higher = lift.estimate > 0;
  return higher === (METRIC_WORDS[metric].better === 'higher') ? 'better' : 'worse';
}

// ———————————————————————————————————————— the list and the create form ————————————————————————————————————————

/** A listed experiment, with how many shoppers it has counted (null for a draft: none yet). */
export interface ListedExperiment {
  readonly experiment: ExperimentResponse;
  readonly units: number | null;
}

interface ExperimentsPage {
  readonly store: Store;
  readonly experiments: readonly ListedExperiment[];
  readonly more: string | null;
  readonly types: readonly ProductTypeResponse[];
  /** A new id for each rendering of the create form, so that sending it twice creates one draft. */
  readonly formId: string;
  readonly form?: { readonly values: ExperimentFormValues; readonly errors: readonly FieldError[] };
  /** The create form was sent again (Back, then Forward): its draft exists already. */
  readonly alreadyCreated?: boolean;
  readonly deleted?: boolean;
}

const experimentsCrumbs = (store: Store) => [
  { label: 'Stores', href: '/console' },
  { label: store.name, href: `/console/stores/${store.id}` },
];

export function experimentsPage(context: PageContext, page: ExperimentsPage): Html {
  const { store } = page;
  const base = `/console/stores/${store.id}/experiments`;
  return layout(
    context,
    {
      title: `${store.name}: experiments`,
      invalid: Boolean(page.form?.errors.length),
      breadcrumbs: [...experimentsCrumbs(store), { label: 'Experiments' }],
    },
    html`<h1>Experiments</h1>
<p class="muted">An experiment tells what size help changes. Shoppers are split at random into groups, some without
size help, and the groups’ returns and sales are compared. The metrics show what happened; only an experiment shows
what size help caused.</p>
${page.deleted ? html`<p class="notice" role="status" data-status="deleted">The draft is deleted.</p>` : ''}
${
  page.alreadyCreated
    ? html`<section class="card notice" role="status" data-notice="already-created">
  <h2>This form was sent already</h2>
  <p>Its draft was created then, and is in the list below; nothing more was created now.</p>
</section>`
    : ''
}
<section class="card" id="experiments">
  <h2>This store’s experiments</h2>
  ${
    page.experiments.length === 0
      ? html`<p class="empty" data-empty="experiments">No experiment yet. Create one below: it starts as a draft, with the
      number of shoppers it needs, and runs once you start it.</p>`
      : experimentsTable(store, page.experiments)
  }
  ${page.more ? html`<p><a href="${base}?after=${page.more}">Older experiments →</a></p>` : ''}
</section>
${createForm(context, store, page)}`,
  );
}

function experimentsTable(store: Store, listed: readonly ListedExperiment[]): Html {
  return html`<div class="table-wrap" role="region" aria-label="Experiments" tabindex="0"><table id="experiment-list">
  <thead><tr><th>Experiment</th><th>State</th><th>Groups</th><th>Dates</th><th class="num">Shoppers so far</th></tr></thead>
  <tbody>${listed.map(({ experiment, units }) => {
    const dates =
      experiment.state === 'draft'
        ? html`<span class="muted">not started</span>`
        : html`started ${day(experiment.started_at)}${experiment.stopped_at ? html`<br>stopped ${day(experiment.stopped_at)}` : ''}`;
    return html`<tr data-experiment-id="${experiment.id}" data-state="${experiment.state}" data-units="${units ?? ''}">
    <th scope="row"><a href="/console/stores/${store.id}/experiments/${experiment.id}">${experiment.name}</a></th>
    <td class="state"><span class="badge ${experiment.state}">${STATE_WORDS[experiment.state]}</span></td>
    <td class="groups">${experiment.arms.map((arm, i) => html`${i ? html`<br>` : ''}${armShare(arm)}`)}</td>
    <td class="dates">${dates}</td>
    <td class="num units">${
      units === null
        ? html`<span class="muted">needs ${count(experiment.plan.units_needed)}</span>`
        : html`${count(units)} <span class="muted">of ${count(experiment.plan.units_needed)}</span>`
    }</td>
  </tr>`;
  })}</tbody>
</table></div>`;
}

function createForm(context: PageContext, store: Store, page: ExperimentsPage): Html {
  return html`<section class="card" id="new-experiment">
  <h2>Create an experiment</h2>
  ${experimentForm(context, {
    action: `/console/stores/${store.id}/experiments`,
    formId: page.formId,
    values: page.form?.values ?? NEW_EXPERIMENT,
    errors: page.form?.errors ?? [],
    types: page.types,
    design: true,
    submit: 'Create draft',
  })}
</section>`;
}

/** The experiment form, to create a draft or edit one; an experiment that has started shows its name and hypothesis only. */
interface ExperimentForm {
  readonly action: string;
  /** To create: a new id for each rendering, so that sending it twice creates one draft. */
  readonly formId?: string;
  readonly values: ExperimentFormValues;
  readonly errors: readonly FieldError[];
  readonly types: readonly ProductTypeResponse[];
  readonly design: boolean;
  readonly submit: string;
  /** An edited draft's groups, said when the form's choices cannot make them (`current`). */
  readonly arms?: ExperimentResponse['arms'];
}

function experimentForm(context: PageContext, form: ExperimentForm): Html {
  const { values, errors } = form;
  return html`${errorSummary(errors, FORM_FIELDS)}
  <form method="post" action="${form.action}" class="stack" id="experiment-form">
    ${csrfField(context)}${form.formId ? html`<input type="hidden" name="form_id" value="${form.formId}">` : ''}
    <label for="experiment-name">Name</label>
    <input id="experiment-name" name="name" required maxlength="200" placeholder="Does size help cut size returns?" value="${values.name}"${invalidAttributes(errors, 'name')}>
    ${fieldError(errors, 'name')}
    <label for="experiment-hypothesis">What you expect <span class="muted">(optional)</span></label>
    <textarea id="experiment-hypothesis" name="hypothesis" rows="2" maxlength="2000" placeholder="Shoppers shown size help return fewer items for their size."${invalidAttributes(errors, 'hypothesis')}>${values.hypothesis}</textarea>
    ${fieldError(errors, 'hypothesis')}
    ${form.design ? designFields(form) : ''}
    <button type="submit" class="primary">${form.submit}</button>
  </form>`;
}

/** The fields of a draft's design: groups, products, metrics, the difference worth detecting. */
function designFields(form: ExperimentForm): Html {
  const { values, errors } = form;
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<input type="hidden" name="design" value="1">
    <fieldset id="split"${invalidAttributes(errors, 'split')}>
      <legend>Groups of shoppers</legend>
      ${
        values.split === CURRENT_SPLIT && form.arms
          ? html`<label class="check"><input type="radio" id="split-current" name="split" value="${CURRENT_SPLIT}" checked>
        <span>As they are <span class="muted">(${form.arms.map((arm, i) => html`${i ? ', ' : ''}${armShare(arm)}`)})</span></span></label>`
          : ''
      }
      ${SPLITS.map(
        (
          split,
        ) => html`<label class="check"><input type="radio" id="split-${split.id}" name="split" value="${split.id}"${checked(values.split === split.id)}>
        <span>${split.label} <span class="muted">(${split.hint})</span></span></label>`,
      )}
      <div class="share-fields"${invalidAttributes(errors, 'shares', { hint: true })}>${TREATMENT_CHOICES.map(
        (treatment) => html`<div><label for="share-${treatment}">${ARM_NAMES[treatment]}, %</label>
        <input id="share-${treatment}" name="share_${treatment}" inputmode="decimal" size="5" value="${values.shares[treatment]}"${invalidAttributes(errors, 'shares', { hint: true })}></div>`,
      )}</div>
      ${fieldHint('shares', 'With custom shares only: percentages adding up to 100; 0 leaves a group out.')}
      ${fieldError(errors, 'shares')}
    </fieldset>
    ${fieldError(errors, 'split')}

    <fieldset id="products"${invalidAttributes(errors, 'product_type_ids')}>
      <legend>Products taking part</legend>
      <label class="check"><input type="radio" id="products-all" name="products" value="all"${checked(values.products === 'all')}> <span>All products</span></label>
      ${
        values.products === 'listed'
          ? html`<label class="check"><input type="radio" id="products-listed" name="products" value="listed" checked> <span>The ${plural(values.product_ids.length, 'product')} chosen through the API</span></label>
      ${values.product_ids.map((id) => html`<input type="hidden" name="product_ids" value="${id}">`)}`
          : ''
      }
      <label class="check"><input type="radio" id="products-types" name="products" value="types"${checked(values.products === 'types')}> <span>Products of the types ticked below</span></label>
      ${
        form.types.length === 0
          ? html`<p class="muted small" data-empty="types">This store has no product types yet.</p>`
          : html`<div class="type-choices">${form.types.map(
              (type) =>
                html`<label class="check"><input type="checkbox" id="product-type-${type.id}" name="product_type_ids" value="${type.id}"${checked(values.product_type_ids.includes(type.id))}> <span>${type.name}</span></label>`,
            )}</div>`
      }
      <p class="hint">A product takes part in one running experiment at a time.</p>
    </fieldset>
    ${fieldError(errors, 'product_type_ids')}

    <fieldset id="primary-metric"${invalidAttributes(errors, 'primary_metric')}>
      <legend>Judge it by</legend>
      ${METRIC_CHOICES.map(
        (
          metric,
        ) => html`<label class="check"><input type="radio" id="metric-${metric}" name="primary_metric" value="${metric}"${checked(values.primary_metric === metric)}>
        <span>${METRIC_WORDS[metric].label} <span class="muted">(${METRIC_WORDS[metric].about}; ${METRIC_WORDS[metric].better} is better)</span></span></label>`,
      )}
    </fieldset>
    ${fieldError(errors, 'primary_metric')}

    <fieldset id="guardrails"${invalidAttributes(errors, 'guardrails')}>
      <legend>Also watch, to catch harm <span class="muted">(optional)</span></legend>
      ${METRIC_CHOICES.map(
        (metric) =>
          html`<label class="check"><input type="checkbox" id="guardrail-${metric}" name="guardrails" value="${metric}"${checked(values.guardrails.includes(metric))}> <span>${METRIC_WORDS[metric].label}</span></label>`,
      )}
    </fieldset>
    ${fieldError(errors, 'guardrails')}

    <label for="minimum-effect">Smallest difference worth detecting, in points</label>
    <input id="minimum-effect" name="minimum_effect" required inputmode="decimal" size="6" value="${values.minimum_effect}"${invalidAttributes(errors, 'minimum_effect', { hint: true })}>
    ${fieldHint('minimum_effect', 'In percentage points: 2 tells 12 % of items returned from 10 %. The smaller the difference, the more shoppers it needs.')}
    ${fieldError(errors, 'minimum_effect')}
    <label for="baseline-rate">The rate you expect without a difference, in % <span class="muted">(optional)</span></label>
    <input id="baseline-rate" name="baseline_rate" inputmode="decimal" size="6" value="${values.baseline_rate}"${invalidAttributes(errors, 'baseline_rate', { hint: true })}>
    ${fieldHint('baseline_rate', 'Left empty, a typical rate: 12 % of items returned for size, 5 % of shoppers buying, 4 % exchanged, 60 % kept.')}
    ${fieldError(errors, 'baseline_rate')}
`;
}

// ———————————————————————————————————————— one experiment ————————————————————————————————————————

/** What refused a start, a stop or a deletion, for the page to say why. */
export interface Refusal {
  readonly action: 'start' | 'stop' | 'delete' | 'edit';
  readonly code: 'experiment_overlap' | 'experiment_state_conflict';
  /** For an overlap: the store's running experiments, one of which holds some of the products. */
  readonly running: readonly ExperimentResponse[];
}

interface ExperimentPage {
  readonly store: Store;
  readonly experiment: ExperimentResponse;
  /** Null for a draft: nothing is counted before it starts. */
  readonly results: ExperimentResultsResponse | null;
  readonly types: readonly ProductTypeResponse[];
  readonly notice?: 'created' | 'started' | 'stopped' | 'edited';
  readonly refusal?: Refusal;
}

export function experimentPage(context: PageContext, page: ExperimentPage): Html {
  const { store, experiment, results } = page;
  const base = `/console/stores/${store.id}/experiments`;
  return layout(
    context,
    {
      title: `${experiment.name}: experiment`,
      breadcrumbs: [...experimentsCrumbs(store), { label: 'Experiments', href: base }, { label: experiment.name }],
    },
    html`<div class="heading-row">
  <h1>${experiment.name}</h1>
  <span class="badge ${experiment.state}" id="state" data-state="${experiment.state}">${STATE_WORDS[experiment.state]}</span>
</div>
${page.notice ? noticeOf(page.notice) : ''}
${page.refusal ? refusalOf(store, experiment, page.refusal) : ''}
${experiment.hypothesis ? html`<p class="hypothesis"><strong>What you expect:</strong> ${experiment.hypothesis}</p>` : ''}
${results ? resultsSections(experiment, results) : draftSection(context, store, experiment)}
${setupSection(store, experiment, page.types)}
${experiment.state === 'running' ? stopSection(context, store, experiment) : ''}`,
  );
}

interface ExperimentEditPage {
  readonly store: Store;
  readonly experiment: ExperimentResponse;
  readonly types: readonly ProductTypeResponse[];
  readonly form: { readonly values: ExperimentFormValues; readonly errors: readonly FieldError[] };
}

/** A draft's form filled in as it is; an experiment that has started, its name and hypothesis only. */
export function experimentEditPage(context: PageContext, page: ExperimentEditPage): Html {
  const { store, experiment, form } = page;
  const base = `/console/stores/${store.id}/experiments`;
  const draft = experiment.state === 'draft';
  return layout(
    context,
    {
      title: `${experiment.name}: edit`,
      invalid: form.errors.length > 0,
      breadcrumbs: [
        ...experimentsCrumbs(store),
        { label: 'Experiments', href: base },
        { label: experiment.name, href: `${base}/${experiment.id}` },
        { label: 'Edit' },
      ],
    },
    html`<h1>Edit “${experiment.name}”</h1>
<p class="muted">${
      draft
        ? 'A draft can change in every way; its plan is made again when you save. Once it starts, only its name and what you expect can.'
        : 'It has started, so its groups, products and what it is judged by stay as they are: only its name and what you expect can change.'
    }</p>
<section class="card" id="edit-experiment">
  ${experimentForm(context, {
    action: `${base}/${experiment.id}/edit`,
    values: form.values,
    errors: form.errors,
    types: page.types,
    design: draft,
    submit: draft ? 'Save the draft' : 'Save',
    arms: experiment.arms,
  })}
  <p><a href="${base}/${experiment.id}">Back to the experiment without saving</a></p>
</section>`,
  );
}

function noticeOf(notice: NonNullable<ExperimentPage['notice']>): Html {
  const words = {
    created: 'The draft is created. Check what it needs below, then start it.',
    started: 'The experiment is running: shoppers shown its products are now split between its groups.',
    stopped: 'The experiment is stopped: every shopper gets size help as usual again. Its results stay here.',
    edited: 'The changes are saved.',
  }[notice];
  return html`<p class="notice" role="status" data-status="${notice}">${words}</p>`;
}

function refusalOf(store: Store, experiment: ExperimentResponse, refusal: Refusal): Html {
  let words: Html;
  if (refusal.code === 'experiment_overlap') {
    const others = refusal.running.filter((other) => other.id !== experiment.id);
    words = html`It cannot start: a running experiment includes some of the same products, and a product takes part in one
    experiment at a time. Stop that one first, or create this one again for other product types.${
      others.length
        ? html` Running now: ${others.map(
            (other, i) => html`${i ? ', ' : ''}<a href="/console/stores/${store.id}/experiments/${other.id}">${other.name}</a>`,
          )}.`
        : ''
    }`;
  } else {
    const { state } = experiment;
    const why = {
      start: state === 'running' ? 'It is running already.' : 'A stopped experiment does not start again: create a new one instead.',
      stop: state === 'draft' ? 'It has not started, so there is nothing to stop.' : 'It is stopped already.',
      delete: 'Only a draft can be deleted: an experiment that ran keeps its results. Stop it instead if it is running.',
      edit: 'It started before the changes were saved, so its groups, products and results stay as they were: only its name and what you expect can change now.',
    }[refusal.action];
    words = html`${why}`;
  }
  return html`<p class="form-error" role="alert" data-error-code="${refusal.code}">${words}</p>`;
}

/** The plan in a sentence or three: how many shoppers, in which groups, and how long at the store's pace. */
function planWords(experiment: ExperimentResponse): Html {
  const { plan } = experiment;
  const metric = METRIC_WORDS[experiment.primary_metric];
  const perArm = plan.arms.map(
    (arm, i) => html`${i ? (i === plan.arms.length - 1 ? ' and ' : ', ') : ''}${count(arm.units)} in ${arm.arm}`,
  );
  const pace =
    plan.expected_days === null || plan.daily_units === null
      ? html`How long that takes depends on how many shoppers see its products: the store has had none in experiments or
      fit sessions lately to tell.`
      : html`At the store’s recent pace of ${plural(plan.daily_units, 'shopper')} a day, that is about
      <strong data-expected-days="${plan.expected_days}">${plural(plan.expected_days, 'day')}</strong>.`;
  return html`<p id="plan-text" data-units-needed="${plan.units_needed}">To tell a difference of ${effectPoints(experiment.minimum_effect)}
  points in ${metric.label.toLowerCase()} from none, it needs about <strong>${plural(plan.units_needed, 'shopper')}</strong>:
  ${perArm}. ${pace}</p>
  <p class="muted small">It assumes a rate of ${percent(plan.baseline_rate)} without a difference (${metric.about}), and is
  planned to find a real difference of that size 8 times in 10. The results can be read at any time: this is a guide to
  how long to run it, not a moment to stop.</p>`;
}

function draftSection(context: PageContext, store: Store, experiment: ExperimentResponse): Html {
  const base = `/console/stores/${store.id}/experiments/${experiment.id}`;
  return html`<section class="card" id="plan">
  <h2>What it needs</h2>
  ${planWords(experiment)}
</section>
<section class="card" id="before-start">
  <h2>Before you start</h2>
  <p>Once it runs, your shop asks Size-Fit which group a shopper is in when it shows her a product of the experiment,
  and names the shopper on her purchases: that is how each group’s sales and returns are counted. Its groups and
  shares never change once it starts.</p>
  <p class="muted small">For developers: <code>POST …/assignments</code> with <code>shopper_ref</code> and
  <code>product_id</code> when a product page is shown, and <code>shopper_ref</code> on each <code>purchase</code> event.</p>
  <div class="actions-row">
    <form method="post" action="${base}/start">
      ${csrfField(context)}<button type="submit" class="primary" id="start">Start the experiment</button>
    </form>
    <a class="button" id="edit" href="${base}/edit">Edit the draft</a>
    <form method="post" action="${base}/delete" data-confirm="Delete the draft “${experiment.name}”?">
      ${csrfField(context)}<button type="submit" class="danger" id="delete">Delete draft</button>
    </form>
  </div>
</section>`;
}

function stopSection(context: PageContext, store: Store, experiment: ExperimentResponse): Html {
  return html`<section class="card" id="stop-section">
  <h2>Stop it</h2>
  <p class="muted">Every shopper gets size help as usual again; its results stay. A stopped experiment does not start
  again.</p>
  <form method="post" action="/console/stores/${store.id}/experiments/${experiment.id}/stop" data-confirm="Stop “${experiment.name}”? It does not start again.">
    ${csrfField(context)}<button type="submit" class="danger" id="stop">Stop the experiment</button>
  </form>
</section>`;
}

function setupSection(store: Store, experiment: ExperimentResponse, types: readonly ProductTypeResponse[]): Html {
  const typeName = (id: string) => types.find((type) => type.id === id)?.name ?? 'a product type no longer in the store';
  const products =
    experiment.product_type_ids !== null
      ? `Products of the types ${experiment.product_type_ids.map(typeName).join(', ')}`
      : experiment.product_ids !== null
        ? plural(experiment.product_ids.length, 'chosen product')
        : 'All products';
  return html`<section class="card" id="setup">
  <h2>How it is set up</h2>
  <dl class="setup">
    <dt>Groups</dt>
    <dd><ul class="plain">${experiment.arms.map(
      (arm) =>
        html`<li data-arm="${arm.name}"><strong>${arm.name}</strong>, ${percent(arm.share)} of shoppers: ${TREATMENT_WORDS[arm.treatment]}${arm.name === experiment.control_arm ? html` <span class="muted">(the others are compared with it)</span>` : ''}</li>`,
    )}</ul></dd>
    <dt>Products</dt>
    <dd>${products}</dd>
    <dt>Judged by</dt>
    <dd>${METRIC_WORDS[experiment.primary_metric].label} <span class="muted">(${METRIC_WORDS[experiment.primary_metric].about})</span></dd>
    <dt>Also watched</dt>
    <dd>${experiment.guardrails.length ? experiment.guardrails.map((metric) => METRIC_WORDS[metric].label).join(', ') : html`<span class="muted">nothing else</span>`}</dd>
    <dt>Smallest difference worth detecting</dt>
    <dd>${effectPoints(experiment.minimum_effect)} points</dd>
    <dt>Dates</dt>
    <dd>created ${day(experiment.created_at)}${experiment.started_at ? `, started ${day(experiment.started_at)}` : ''}${experiment.stopped_at ? `, stopped ${day(experiment.stopped_at)}` : ''}</dd>
  </dl>
  ${
    experiment.state === 'draft'
      ? ''
      : html`<p><a id="rename" href="/console/stores/${store.id}/experiments/${experiment.id}/edit">Change its name or what you expect</a></p>`
  }
</section>`;
}

// ———————————————————————————————————————— results ————————————————————————————————————————

function resultsSections(experiment: ExperimentResponse, results: ExperimentResultsResponse): Html {
  const mismatch = results.sample_ratio.mismatch;
  return html`<section class="card${mismatch ? ' warning' : ''}" id="verdict" data-mismatch="${mismatch ? 'true' : 'false'}">
  <h2>${experiment.state === 'running' ? 'What it says so far' : 'What it found'}</h2>
  <p id="verdict-text">${results.verdict}</p>
  <p class="muted small">Counted up to ${results.observed_through.slice(0, 16).replace('T', ' ')} UTC.</p>
</section>
${mismatch ? sampleRatioSection(experiment, results) : ''}
${progressSection(experiment, results)}
${mismatch ? '' : html`${armsSection(experiment, results)}${comparisonsSection(experiment, results)}${returnWindowSection(results)}`}
${caveatsSection(results)}`;
}

function sampleRatioSection(experiment: ExperimentResponse, results: ExperimentResultsResponse): Html {
  const total = results.units;
  return html`<section class="card warning" id="sample-ratio" role="alert" data-p-value="${results.sample_ratio.p_value}">
  <h2>Results withheld: shoppers are not split as planned</h2>
  <p>The groups received shoppers in other proportions than their shares, by far more than chance would allow. This
  almost always means shoppers were put in groups some other way than by asking Size-Fit (your shop splitting its
  visitors itself, say), and then no comparison can be trusted. Have whoever connected your shop check that every
  shopper shown a product of the experiment gets her group from Size-Fit, and sees what that answer says.</p>
  <div class="table-wrap" role="region" aria-label="The split of shoppers" tabindex="0"><table id="split">
    <thead><tr><th>Group</th><th class="num">Planned share</th><th class="num">Shoppers</th><th class="num">Their share</th></tr></thead>
    <tbody>${experiment.arms.map(
      (arm, i) => html`<tr data-arm="${arm.name}" data-units="${results.sample_ratio.units[i]}">
      <th scope="row">${arm.name}</th>
      <td class="num">${percent(results.sample_ratio.expected_shares[i])}</td>
      <td class="num">${count(results.sample_ratio.units[i])}</td>
      <td class="num">${percent(total ? results.sample_ratio.units[i] / total : null)}</td>
    </tr>`,
    )}</tbody>
  </table></div>
</section>`;
}

function progressSection(experiment: ExperimentResponse, results: ExperimentResultsResponse): Html {
  const planned = results.planned_units;
  return html`<section class="card" id="plan">
  <h2>Shoppers so far</h2>
  <p><label for="progress"><strong data-units="${results.units}">${count(results.units)}</strong> of the
  ${count(planned)} planned</label>
  <progress id="progress" max="${planned}" value="${Math.min(results.units, planned)}">${percent(planned ? results.units / planned : null)}</progress></p>
  ${results.planned_size_reached ? html`<p>The planned number of shoppers is reached.</p>` : ''}
  <details>
    <summary>The plan</summary>
    ${planWords(experiment)}
  </details>
</section>`;
}

const RATE_COLUMNS: readonly Metric[] = ['conversion', 'size_return_rate', 'size_exchange_rate', 'kept_rate'];

function armsSection(experiment: ExperimentResponse, results: ExperimentResultsResponse): Html {
  return html`<section class="card" id="groups">
  <h2>By group</h2>
  <p class="muted small">Every shopper shown a product of the experiment counts in her group, whether she opened the size
  help or not. Buyers bought a product of the experiment afterwards; items are the lines they bought.</p>
  <div class="table-wrap" role="region" aria-label="Results by group" tabindex="0"><table id="arms">
    <thead><tr><th>Group</th><th class="num">Shoppers</th><th class="num">Buyers</th><th class="num">Items bought</th>${RATE_COLUMNS.map(
      (metric) => html`<th class="num">${METRIC_WORDS[metric].label}</th>`,
    )}</tr></thead>
    <tbody>${results.arms.map((arm) => {
      const rate = (metric: Metric) => arm.metrics.find((value) => value.metric === metric)?.rate ?? null;
      return html`<tr data-arm="${arm.name}" data-units="${arm.units}" data-purchasing-units="${arm.purchasing_units}" data-purchased-lines="${arm.purchased_lines}">
      <th scope="row">${arm.name}${arm.control ? html` <span class="muted small">(compared with)</span>` : ''}</th>
      <td class="num" data-label="Shoppers">${count(arm.units)}</td>
      <td class="num" data-label="Buyers">${count(arm.purchasing_units)}</td>
      <td class="num" data-label="Items bought">${count(arm.purchased_lines)}</td>
      ${RATE_COLUMNS.map(
        (metric) =>
          html`<td class="num" data-label="${METRIC_WORDS[metric].label}" data-metric="${metric}" data-rate="${rate(metric) ?? ''}">${percent(rate(metric))}</td>`,
      )}
    </tr>`;
    })}</tbody>
  </table></div>
</section>`;
}

function comparisonsSection(experiment: ExperimentResponse, results: ExperimentResultsResponse): Html {
  if (results.comparisons.length === 0) return html``;
  return html`<section class="card" id="comparisons">
  <h2>Each group against ${experiment.control_arm}</h2>
  <p class="muted small">Differences are in percentage points. The bar is the range the difference lies in, 95 % sure,
  and stays right however often you look; the line marks no difference. A bar clear of the line is a real difference.</p>
  ${results.comparisons.map((comparison, i) => comparisonOf(experiment, comparison, `comparison-${i}`))}
</section>`;
}

function comparisonOf(experiment: ExperimentResponse, comparison: ComparisonResult, id: string): Html {
  const words = METRIC_WORDS[comparison.metric];
  const lift = comparison.absolute;
  const role = comparison.role === 'primary' ? 'judged by' : 'watched';
  const heading = html`<h3>${words.label} <span class="muted">· ${comparison.arm} against ${experiment.control_arm} · ${role}</span></h3>`;
  const attributes = html`data-arm="${comparison.arm}" data-metric="${comparison.metric}" data-role="${comparison.role}"`;
  if (lift === null) {
    return html`<article class="comparison" id="${id}" ${attributes} data-estimate="">${heading}
  <p>Not enough ${words.counts} yet to compare.</p>
</article>`;
  }
  const verdict = judgement(comparison.metric, lift);
  const way = lift.estimate > 0 ? 'higher' : 'lower';
  const relative =
    comparison.relative && Math.abs(comparison.relative.estimate) >= 0.005
      ? html` <span class="muted">(${Math.abs(comparison.relative.estimate * 100).toFixed(0)} % ${way})</span>`
      : '';
  const adjusted = comparison.adjusted_absolute;
  return html`<article class="comparison" id="${id}" ${attributes} data-estimate="${lift.estimate}" data-low="${lift.always_valid.low}" data-high="${lift.always_valid.high}" data-significant="${lift.significant ? 'true' : 'false'}"${lift.fixed_horizon ? html` data-fixed-low="${lift.fixed_horizon.low}" data-fixed-high="${lift.fixed_horizon.high}"` : ''}${adjusted ? html` data-adjusted="${adjusted.estimate}"` : ''}>${heading}
  <p class="lift"><strong>${points(lift.estimate)} points</strong>: ${words.label.toLowerCase()} ${percent(comparison.rate)} in
  ${comparison.arm} against ${percent(comparison.control_rate)} in ${experiment.control_arm}${relative}
  <span class="badge ${verdict}">${{ better: 'better', worse: 'worse', unsure: 'not told apart yet' }[verdict]}</span></p>
  ${intervalFigure(lift, experiment.minimum_effect, id)}
  <p class="reading">${
    lift.significant
      ? `In ${comparison.arm}, ${words.subject} ${way} than in ${experiment.control_arm}: the difference is real.`
      : 'Not yet told apart from no difference: the range still includes 0. A difference may show as more shoppers are counted, or be too small to matter.'
  }</p>
  ${
    lift.fixed_horizon
      ? html`<p class="muted small fixed">Read once, now that the planned number of shoppers is reached: between
  ${points(lift.fixed_horizon.low)} and ${points(lift.fixed_horizon.high)} points (95 % sure, for this one reading).</p>`
      : ''
  }
  ${
    adjusted
      ? html`<p class="muted small adjusted">Taking into account what each shopper bought before the experiment:
  ${points(adjusted.estimate)} points, between ${points(adjusted.always_valid.low)} and ${points(adjusted.always_valid.high)}${
    comparison.variance_reduction !== null && comparison.variance_reduction > 0
      ? html`, a range narrowed by removing ${percent(comparison.variance_reduction)} of the chance variation`
      : ''
  }.</p>`
      : ''
  }
</article>`;
}

/**
 * The always-valid interval as a bar across a line at no difference, on a scale symmetric about it so that which side
 * of the line the bar lies on reads at a glance; its text equivalent is the figure's caption.
 */
function intervalFigure(lift: LiftResponse, minimumEffect: number, id: string): Html {
  const { low, high } = lift.always_valid;
  const reach = Math.max(Math.abs(low), Math.abs(high), Math.abs(lift.estimate), minimumEffect, 0.001) * 1.1;
  const WIDTH = 400;
  const LEFT = 70;
  const RIGHT = 330;
  const x = (value: number) => (LEFT + ((value + reach) / (2 * reach)) * (RIGHT - LEFT)).toFixed(1);
  const text = `95 % sure the difference is between ${points(low)} and ${points(high)} points; the estimate is ${points(lift.estimate)}.`;
  // the line's "0" above, the ends' figures below, each outward from its end: no two can overlap
  return html`<figure class="interval">
  <svg viewBox="0 0 ${WIDTH} 64" role="img" aria-labelledby="${id}-text" data-significant="${lift.significant ? 'true' : 'false'}">
    <text x="${x(0)}" y="12" text-anchor="middle">0</text>
    <line class="axis" x1="${LEFT}" y1="32" x2="${RIGHT}" y2="32"></line>
    <rect class="range${lift.significant ? ' real' : ''}" x="${x(low)}" y="24" width="${(Number(x(high)) - Number(x(low))).toFixed(1)}" height="16" rx="3"></rect>
    <line class="zero" x1="${x(0)}" y1="16" x2="${x(0)}" y2="46"></line>
    <circle class="estimate" cx="${x(lift.estimate)}" cy="32" r="4.5"></circle>
    <text x="${x(low)}" y="60" text-anchor="end">${points(low)}</text>
    <text x="${x(high)}" y="60">${points(high)}</text>
  </svg>
  <figcaption id="${id}-text">${text}</figcaption>
</figure>`;
}

function returnWindowSection(results: ExperimentResultsResponse): Html {
  const { open_lines: open, open_share: share, days } = results.return_window;
  const lines = results.arms.reduce((sum, arm) => sum + arm.purchased_lines, 0);
  return html`<section class="card" id="return-window" data-open-share="${share}" data-open-lines="${open}">
  <h2>Returns still to come</h2>
  <p>${
    lines === 0
      ? 'Nothing bought yet.'
      : open === 0
        ? `Every item bought is older than ${days} days or already has its outcome: size returns, exchanges and kept items will hardly move.`
        : html`<strong>${percent(share)}</strong> of the items bought (${count(open)} of ${count(lines)}) are less than
    ${days} days old with no return, exchange or kept item yet: size returns, exchanges and kept items may still change.`
  }</p>
</section>`;
}

/** The API's caveats in the console's words, matched by their first words; any other shown as the API says it. */
const PLAIN_CAVEATS: ReadonlyArray<readonly [string, string]> = [
  [
    'By intention to treat',
    'Every shopper shown a product of the experiment counts in her group, whether she opened the size help or not: the results tell what offering size help changes.',
  ],
  [
    'The always-valid intervals',
    'The ranges drawn stay right however often you look: read them every day if you like. The “read once” ranges, shown when the planned number of shoppers is reached, are right only for that one reading.',
  ],
  [
    'Rates per purchased line',
    'Returns, exchanges and kept items count as your shop sends them: recent purchases can still be returned, exchanged or kept.',
  ],
  [
    'Purchases count when',
    'A purchase counts when your shop sends it naming the shopper, for a product of the experiment, from the moment she was first shown one.',
  ],
];

const plainCaveat = (caveat: string): string => PLAIN_CAVEATS.find(([start]) => caveat.startsWith(start))?.[1] ?? caveat;

function caveatsSection(results: ExperimentResultsResponse): Html {
  return html`<details class="card caveats" id="caveats-card">
  <summary>How to read it</summary>
  <ul id="caveats">${results.caveats.map((caveat) => html`<li>${plainCaveat(caveat)}</li>`)}</ul>
</details>`;
}
