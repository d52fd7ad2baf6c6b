import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  type ConsoleClient,
  errorCode,
  expectErrorPage,
  expectPage,
  expectSeeOther,
  fieldErrors,
  find,
  findAll,
  formError,
  signUp,
} from '../../support/console-client.js';
import { experimentsApi } from '../../support/experiment-fixtures.js';
import { newMetricsShop, type MetricsShop } from '../../support/metrics-fixtures.js';
import { createShop } from '../../support/session-fixtures.js';

/**
 * The console's Experiments pages, driven like a browser (test/support/console-client.ts): a draft created through the
 * form in plain words, its plan as the API plans it, starts, stops and deletions with the API's rules and their refusals
 * said on the page, results with the API's figures, and nothing of another merchant.
 */

type Api = {
  id: string;
  state: string;
  arms: { name: string; share: number; treatment: string }[];
  control_arm: string;
  plan: { units_needed: number; arms: { arm: string; units: number }[]; daily_units: number | null; expected_days: number | null };
};
type Lift = { estimate: number; always_valid: { low: number; high: number }; fixed_horizon: { low: number; high: number } | null };
type Results = {
  units: number;
  verdict: string;
  caveats: string[];
  return_window: { open_share: number; open_lines: number };
  sample_ratio: { mismatch: boolean; units: number[] };
  arms: {
    name: string;
    units: number;
    purchasing_units: number;
    purchased_lines: number;
    metrics: { metric: string; rate: number | null }[];
  }[];
  comparisons: { arm: string; metric: string; role: string; absolute: Lift | null; adjusted_absolute: Lift | null }[];
};

/** The form as a merchant fills it in: a name, the preset split, all products, size returns watched with conversion. */
const FORM = {
  name: 'Does size help cut size returns?',
  hypothesis: 'Shoppers shown size help return fewer items for their size.',
  split: 'halves',
  products: 'all',
  primary_metric: 'size_return_rate',
  guardrails: ['conversion'],
  minimum_effect: '2',
  baseline_rate: '',
};

describe('seller console: experiments', () => {
  const t = useApp();
  auditConsoleAnswers();
  const api = experimentsApi(t);

  const page = (shop: MetricsShop, rest = '') => `/console/stores/${shop.storeId}/experiments${rest}`;

  /** Sends the create form (read first, for its form id) and returns the new experiment's id. */
  async function createThroughForm(client: ConsoleClient, shop: MetricsShop, form: Record<string, string | string[]> = FORM) {
    const list = await client.page(page(shop));
    const formId = find(list.text, 'input', { name: 'form_id' }).attrs.value;
    const response = await client.post(page(shop), { ...form, form_id: formId });
    expect({ status: response.status, fields: fieldErrors(response.text) }).toEqual({ status: 303, fields: {} });
    const id = /\/experiments\/([0-9a-f-]{36})\?created=1$/.exec(String(response.headers.location))?.[1] ?? '';
    expectSeeOther(response, page(shop, `/${id}`));
    return id;
  }

  const refusal = (html: string) => formError(html);

  it('is linked from the store, lists nothing at first, and creates a draft through the form with its plan in words', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const store = await client.page(`/console/stores/${shop.storeId}`);
    expect(findAll(store.text, 'a', { href: page(shop) })).toHaveLength(1);

    const empty = await client.get(page(shop));
    expectPage(empty, 200);
    expect(findAll(empty.text, 'p', { 'data-empty': 'experiments' })).toHaveLength(1);
    // the two splits offered first, in a merchant's words
    const splits = findAll(empty.text, 'input', { name: 'split' }).map((input) => input.attrs.value);
    expect(splits).toEqual(['halves', 'thirds', 'custom']);
    expect(find(empty.text, 'fieldset', { id: 'split' }).text).toMatch(
      /Size help against a holdout, half and half.*Size help, the chart alone and a holdout, a third each/,
    );

    const id = await createThroughForm(client, shop);
    const created = (await api.read(shop, id)) as unknown as Api & Record<string, unknown>;
    expect(created).toMatchObject({
      state: 'draft',
      name: FORM.name,
      hypothesis: FORM.hypothesis,
      arms: [
        { name: 'Size help', share: 0.5, treatment: 'size_help' },
        { name: 'No size help', share: 0.5, treatment: 'no_size_help' },
      ],
      // the holdout is what the others are compared with: each comparison says what size help changes
      control_arm: 'No size help',
      product_ids: null,
      product_type_ids: null,
      primary_metric: 'size_return_rate',
      guardrails: ['conversion'],
      minimum_effect: 0.02,
    });

    const shown = await client.get(page(shop, `/${id}?created=1`));
    expectPage(shown, 200);
    expect(find(shown.text, 'p', { 'data-status': 'created' }).text).toMatch(/draft is created/);
    expect(find(shown.text, 'span', { id: 'state' }).attrs['data-state']).toBe('draft');
    const plan = find(shown.text, 'p', { id: 'plan-text' });
    expect(Number(plan.attrs['data-units-needed'])).toBe(created.plan.units_needed);
    const n = (value: number) => new Intl.NumberFormat('en-GB').format(value);
    expect(plan.text).toContain(`about ${n(created.plan.units_needed)} shoppers`);
    for (const arm of created.plan.arms) expect(plan.text).toContain(`${n(arm.units)} in ${arm.arm}`);
    // no shopper seen lately: the page says it cannot tell how long, rather than guessing
    expect(created.plan.expected_days).toBeNull();
    expect(plan.text).toMatch(/How long that takes depends/);
    expect(find(shown.text, 'section', { id: 'setup' }).text).toMatch(/Judged by Size returns.*Also watched Conversion/);

    // listed, with its groups and the shoppers it needs
    const list = await client.get(page(shop));
    const row = find(list.text, 'tr', { 'data-experiment-id': id });
    expect(row.attrs['data-state']).toBe('draft');
    expect(find(row.inner, 'td', { class: 'groups' }).text).toBe('Size help 50 % No size help 50 %');
    expect(find(row.inner, 'td', { class: 'num units' }).text).toBe(`needs ${n(created.plan.units_needed)}`);
  });

  it('says how many days the plan takes at the store’s recent pace', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    for (let i = 0; i < 14; i++) {
      const session = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions`)
        .set(bearer(shop.secret))
        .send({ product_id: shop.productId });
      expect(session.status).toBe(201);
    }
    const id = await createThroughForm(client, shop, { ...FORM, split: 'thirds', guardrails: [] });
    const created = (await api.read(shop, id)) as unknown as Api;
    expect(created.arms.map((arm) => arm.name)).toEqual(['Size help', 'Chart alone', 'No size help']);
    expect(created.plan.expected_days).toEqual(expect.any(Number));
    const shown = await client.get(page(shop, `/${id}`));
    const days = find(shown.text, 'strong', { 'data-expected-days': String(created.plan.expected_days) });
    expect(days.text).toBe(`${new Intl.NumberFormat('en-GB').format(created.plan.expected_days as number)} days`);
    expect(find(shown.text, 'p', { id: 'plan-text' }).text).toMatch(/recent pace of 0\.5 shoppers a day/);
  });

  it('takes custom shares and chosen product types; refuses what is wrong in plain words, on the fields, creating nothing', async () => {
    const shop = await newMetricsShop(t);
    const stranger = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);

    const refused = await client.post(page(shop), {
      ...FORM,
      name: ' ',
      split: 'custom',
      share_size_help: '60',
      share_chart_only: '',
      share_no_size_help: '30',
      products: 'types',
      minimum_effect: 'two',
    });
    expectPage(refused, 422);
    const errors = fieldErrors(refused.text);
    expect(Object.keys(errors).sort()).toEqual(['minimum_effect', 'name', 'product_type_ids', 'shares']);
    expect(errors.shares).toBe('The shares must add up to 100 % (they add up to 90 %)');
    // none of the API's field names, which the form does not show
    for (const message of Object.values(errors)) expect(message).not.toMatch(/_|arms|\[/);
    expect(find(refused.text, 'title').text).toMatch(/^Error: /);
    // the form comes back as it was sent
    expect(find(refused.text, 'input', { id: 'share-size_help' }).attrs.value).toBe('60');
    expect(find(refused.text, 'input', { id: 'split-custom' }).attrs).toHaveProperty('checked');

    // a difference the expected rate cannot move by, and a product type of another store: the API's refusals, in words
    const tooBig = await client.post(page(shop), { ...FORM, baseline_rate: '50', minimum_effect: '50' });
    expectPage(tooBig, 422);
    expect(fieldErrors(tooBig.text)).toEqual({ minimum_effect: expect.stringMatching(/below 0 % or above 100 %/) });
    const foreignType = await client.post(page(shop), { ...FORM, products: 'types', product_type_ids: [stranger.productTypeId] });
    expectPage(foreignType, 422);
    expect(fieldErrors(foreignType.text)).toEqual({ product_type_ids: expect.stringMatching(/no longer in this store/) });
    expect((await t.http().get(`/v1/stores/${shop.storeId}/experiments`).set(bearer(shop.secret))).body.data).toEqual([]);

    const id = await createThroughForm(client, shop, {
      ...FORM,
      split: 'custom',
      share_size_help: '70',
      share_chart_only: '0',
      share_no_size_help: '30',
      products: 'types',
      product_type_ids: [shop.productTypeId],
      // the metric it is judged by, ticked as watched too: watched anyway, not refused
      guardrails: ['conversion', 'size_return_rate'],
      baseline_rate: '10,5',
    });
    const created = (await api.read(shop, id)) as unknown as Api & Record<string, unknown>;
    expect(created).toMatchObject({
      arms: [
        { name: 'Size help', share: 0.7, treatment: 'size_help' },
        { name: 'No size help', share: 0.3, treatment: 'no_size_help' },
      ],
      control_arm: 'No size help',
      product_type_ids: [shop.productTypeId],
      guardrails: ['conversion'],
      plan: expect.objectContaining({ baseline_rate: 0.105 }),
    });
    const shown = await client.get(page(shop, `/${id}`));
    expect(find(shown.text, 'section', { id: 'setup' }).text).toContain(`Products of the types ${'Tops'}`);
  });

  it('edits a draft through its form filled in as it is; once started, its name and hypothesis only', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const custom = { ...FORM, split: 'custom', share_size_help: '70', share_chart_only: '0', share_no_size_help: '30' };
    const id = await createThroughForm(client, shop, { ...custom, products: 'types', product_type_ids: [shop.productTypeId] });
    const shown = await client.get(page(shop, `/${id}`));
    expect(find(shown.text, 'a', { id: 'edit' }).attrs.href).toBe(page(shop, `/${id}/edit`));

    const form = await client.get(page(shop, `/${id}/edit`));
    expectPage(form, 200);
    const value = (id: string) => find(form.text, 'input', { id }).attrs;
    expect(value('experiment-name').value).toBe(FORM.name);
    expect(value('split-custom')).toHaveProperty('checked');
    expect([value('share-size_help').value, value('share-no_size_help').value]).toEqual(['70', '30']);
    expect(value('products-types')).toHaveProperty('checked');
    expect(value(`product-type-${shop.productTypeId}`)).toHaveProperty('checked');
    expect(value('minimum-effect').value).toBe('2');

    // a figure that is none: refused on its field in words, nothing changed
    const refused = await client.post(page(shop, `/${id}/edit`), { ...FORM, design: '1', minimum_effect: 'three' });
    expectPage(refused, 422);
    expect(Object.keys(fieldErrors(refused.text))).toEqual(['minimum_effect']);
    expect(await api.read(shop, id)).toMatchObject({ minimum_effect: 0.02, product_type_ids: [shop.productTypeId] });

    const saved = await client.post(page(shop, `/${id}/edit`), {
      ...FORM,
      design: '1',
      split: 'thirds',
      hypothesis: '',
      minimum_effect: '3',
    });
    expectSeeOther(saved, page(shop, `/${id}`));
    expect(saved.headers.location).toMatch(/\?edited=1$/);
    const edited = (await api.read(shop, id)) as unknown as Api & Record<string, unknown>;
    expect(edited).toMatchObject({ hypothesis: null, product_type_ids: null, minimum_effect: 0.03, control_arm: 'No size help' });
    expect(edited.arms.map((arm) => arm.treatment)).toEqual(['size_help', 'chart_only', 'no_size_help']);
    const after = await client.get(page(shop, `/${id}?edited=1`));
    expect(find(after.text, 'p', { 'data-status': 'edited' }).text).toMatch(/saved/);
    expect(Number(find(after.text, 'p', { id: 'plan-text' }).attrs['data-units-needed'])).toBe(edited.plan.units_needed);

    // the draft's form sent after it started: refused, said on its page; then renamed through the shorter form
    const stale = await client.get(page(shop, `/${id}/edit`));
    await api.start(shop, id);
    const late = await client.post(page(shop, `/${id}/edit`), { ...FORM, design: '1', minimum_effect: '5' });
    expectPage(late, 409);
    expect(refusal(late.text)).toEqual({
      code: 'experiment_state_conflict',
      text: expect.stringMatching(/started before the changes were saved/),
    });
    expect(findAll(stale.text, 'fieldset', { id: 'split' })).toHaveLength(1);
    const running = await client.get(page(shop, `/${id}/edit`));
    expect(findAll(running.text, 'fieldset', { id: 'split' })).toHaveLength(0);
    expectSeeOther(
      await client.post(page(shop, `/${id}/edit`), { name: 'Size help, three ways', hypothesis: 'fewer returns' }),
      page(shop, `/${id}`),
    );
    expect(await api.read(shop, id)).toMatchObject({ name: 'Size help, three ways', hypothesis: 'fewer returns', minimum_effect: 0.03 });
  });

  it('keeps the groups and products of a draft made through the API when its form cannot say them', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const arms = [
      { name: 'learned', share: 0.6, treatment: 'size_help' },
      { name: 'chart', share: 0.4, treatment: 'chart_only' },
    ];
    const { id } = await api.create(shop, {
      name: 'Does learning pay?',
      arms,
      product_ids: [shop.productId],
      primary_metric: 'kept_rate',
      minimum_effect: 0.05,
    });
    const form = await client.get(page(shop, `/${id}/edit`));
    expectPage(form, 200);
    expect(find(form.text, 'input', { id: 'split-current' }).attrs).toHaveProperty('checked');
    expect(find(form.text, 'fieldset', { id: 'split' }).text).toContain('learned 60 %, chart 40 %');
    expect(find(form.text, 'input', { id: 'products-listed' }).attrs).toHaveProperty('checked');
    const hidden = findAll(form.text, 'input', { name: 'product_ids' }).map((input) => input.attrs.value);
    expect(hidden).toEqual([shop.productId]);

    const sent = {
      ...FORM,
      design: '1',
      split: 'current',
      products: 'listed',
      product_ids: hidden,
      primary_metric: 'kept_rate',
      guardrails: [],
      minimum_effect: '4',
    };
    expectSeeOther(await client.post(page(shop, `/${id}/edit`), sent), page(shop, `/${id}`));
    expect(await api.read(shop, id)).toMatchObject({
      name: FORM.name,
      arms,
      control_arm: 'learned',
      product_ids: [shop.productId],
      minimum_effect: 0.04,
    });
  });

  it('creates one draft however often the same form is sent', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const list = await client.page(page(shop));
    const formId = find(list.text, 'input', { name: 'form_id' }).attrs.value;
    expect((await client.post(page(shop), { ...FORM, form_id: formId })).status).toBe(303);
    const again = await client.post(page(shop), { ...FORM, form_id: formId });
    expectPage(again, 409);
    expect(findAll(again.text, 'section', { 'data-notice': 'already-created' })).toHaveLength(1);
    expect((await t.http().get(`/v1/stores/${shop.storeId}/experiments`).set(bearer(shop.secret))).body.data).toHaveLength(1);
  });

  it('starts a draft, stops a running one and deletes only a draft, saying in words why anything else is refused', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const id = await createThroughForm(client, shop);
    const act = async (action: 'start' | 'stop' | 'delete', experiment = id) => {
      await client.page(page(shop, `/${experiment}`));
      return client.post(page(shop, `/${experiment}/${action}`));
    };
    const state = async (experiment = id) => ((await api.read(shop, experiment)) as { state: string }).state;
    const draftPage = await client.get(page(shop, `/${id}`));
    expect(findAll(draftPage.text, 'form', { action: page(shop, `/${id}/start`) })).toHaveLength(1);
    expect(find(draftPage.text, 'form', { action: page(shop, `/${id}/delete`) }).attrs['data-confirm']).toContain(FORM.name);
    expect(findAll(draftPage.text, 'form', { action: page(shop, `/${id}/stop`) })).toHaveLength(0);

    const notStarted = await act('stop');
    expectPage(notStarted, 409);
    expect(refusal(notStarted.text)).toEqual({
      code: 'experiment_state_conflict',
      text: 'It has not started, so there is nothing to stop.',
    });
    expect(await state()).toBe('draft');

    const started = await act('start');
    expectSeeOther(started, page(shop, `/${id}`));
    expect(started.headers.location).toBe(page(shop, `/${id}?started=1`));
    expect(await state()).toBe('running');
    const runningPage = await client.get(page(shop, `/${id}?started=1`));
    expect(find(runningPage.text, 'p', { 'data-status': 'started' }).text).toMatch(/running/);
    expect(findAll(runningPage.text, 'form', { action: page(shop, `/${id}/stop`) })).toHaveLength(1);
    expect(findAll(runningPage.text, 'form', { action: page(shop, `/${id}/start`) })).toHaveLength(0);

    expect(refusal((await act('start')).text)).toEqual({ code: 'experiment_state_conflict', text: 'It is running already.' });
    const deleteRunning = await act('delete');
    expectPage(deleteRunning, 409);
    expect(refusal(deleteRunning.text)?.text).toMatch(/^Only a draft can be deleted/);
    expect(await state()).toBe('running');

    // another draft on the same products cannot start while this one runs: the page names the one in the way
    const other = await createThroughForm(client, shop, { ...FORM, name: 'Chart alone or size help?' });
    const overlap = await act('start', other);
    expectPage(overlap, 409);
    expect(refusal(overlap.text)).toEqual({
      code: 'experiment_overlap',
      text: expect.stringMatching(
        /^It cannot start: a running experiment includes some of the same products.*Running now: Does size help cut size returns\? ?\.$/,
      ),
    });
    expect(
      findAll(find(overlap.text, 'p', { 'data-error-code': 'experiment_overlap' }).inner, 'a', { href: page(shop, `/${id}`) }),
    ).toHaveLength(1);
    expect(await state(other)).toBe('draft');

    const stopped = await act('stop');
    expect(stopped.headers.location).toBe(page(shop, `/${id}?stopped=1`));
    expect(await state()).toBe('stopped');
    expect(refusal((await act('stop')).text)).toEqual({ code: 'experiment_state_conflict', text: 'It is stopped already.' });
    expect(refusal((await act('start')).text)?.text).toMatch(/^A stopped experiment does not start again/);

    const deleted = await act('delete', other);
    expect(deleted.headers.location).toBe(page(shop, '?deleted=1'));
    expect((await t.http().get(`/v1/stores/${shop.storeId}/experiments/${other}`).set(bearer(shop.secret))).status).toBe(404);
    const list = await client.get(page(shop, '?deleted=1'));
    expect(findAll(list.text, 'p', { 'data-status': 'deleted' })).toHaveLength(1);
    expect(findAll(list.text, 'tr', { 'data-experiment-id': true }).map((row) => row.attrs['data-state'])).toEqual(['stopped']);
    expectErrorPage(await client.get(page(shop, `/${other}`)), 404, 'not_found');
  });

  it('shows the results with the API’s figures: verdict first, each group, each difference with its range drawn, what may still move', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const id = await createThroughForm(client, shop);
    await api.start(shop, id);
    // size help's shoppers return one line in four; the holdout's one in two
    await api.populate(shop, 80, (arm, i) => {
      const lines = i % 3;
      return { lines, returned: lines === 0 ? 0 : arm === 'No size help' ? (i % 2 === 0 ? lines : 0) : i % 4 === 0 ? 1 : 0 };
    });
    const response = await client.get(page(shop, `/${id}`));
    expectPage(response, 200);
    const results = (await api.read(shop, id, '/results')) as unknown as Results;
    const html = response.text;

    // the verdict before anything else of the results
    expect(find(html, 'p', { id: 'verdict-text' }).text).toBe(results.verdict);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="groups"'));
    expect(find(html, 'section', { id: 'verdict' }).attrs['data-mismatch']).toBe('false');
    expect(findAll(html, 'section', { id: 'sample-ratio' })).toHaveLength(0);
    expect(find(html, 'strong', { 'data-units': String(results.units) }).text).toBe(String(results.units));

    const rows = findAll(find(html, 'table', { id: 'arms' }).inner, 'tr', { 'data-arm': true });
    expect(rows.map((row) => row.attrs['data-arm'])).toEqual(results.arms.map((arm) => arm.name));
    for (const [i, arm] of results.arms.entries()) {
      expect(rows[i].attrs).toMatchObject({
        'data-units': String(arm.units),
        'data-purchasing-units': String(arm.purchasing_units),
        'data-purchased-lines': String(arm.purchased_lines),
      });
      const rates = Object.fromEntries(
        findAll(rows[i].inner, 'td', { 'data-metric': true }).map((td) => [td.attrs['data-metric'], td.attrs['data-rate']]),
      );
      expect(rates).toEqual(Object.fromEntries(arm.metrics.map((m) => [m.metric, m.rate === null ? '' : String(m.rate)])));
    }
    expect(results.arms.reduce((sum, arm) => sum + arm.purchased_lines, 0)).toBeGreaterThan(20);

    const articles = findAll(html, 'article', { class: 'comparison' });
    expect(articles.map((a) => [a.attrs['data-arm'], a.attrs['data-metric'], a.attrs['data-role']])).toEqual(
      results.comparisons.map((c) => [c.arm, c.metric, c.role]),
    );
    for (const [i, comparison] of results.comparisons.entries()) {
      const lift = comparison.absolute as Lift;
      expect(articles[i].attrs).toMatchObject({
        'data-estimate': String(lift.estimate),
        'data-low': String(lift.always_valid.low),
        'data-high': String(lift.always_valid.high),
      });
      expect(articles[i].attrs['data-adjusted']).toBe(
        comparison.adjusted_absolute ? String(comparison.adjusted_absolute.estimate) : undefined,
      );
      // the range drawn, with its text equivalent naming the same figures in points
      const svg = find(articles[i].inner, 'svg', { role: 'img' });
      const caption = find(articles[i].inner, 'figcaption', { id: svg.attrs['aria-labelledby'] });
      const points = (rate: number) => `${rate > 0 ? '+' : rate < 0 ? '−' : ''}${Math.abs(rate * 100).toFixed(1)}`;
      expect(caption.text).toBe(
        `95 % sure the difference is between ${points(lift.always_valid.low)} and ${points(lift.always_valid.high)} points; the estimate is ${points(lift.estimate)}.`,
      );
      expect(findAll(svg.inner, 'line', { class: 'zero' })).toHaveLength(1);
      expect(findAll(svg.inner, 'rect', { class: true })).toHaveLength(1);
    }
    // the size-return comparison first: Size help against the holdout
    expect(articles[0].attrs).toMatchObject({ 'data-arm': 'Size help', 'data-metric': 'size_return_rate', 'data-role': 'primary' });

    expect(find(html, 'section', { id: 'return-window' }).attrs).toMatchObject({
      'data-open-share': String(results.return_window.open_share),
      'data-open-lines': String(results.return_window.open_lines),
    });
    // the purchases were just made: every line is still open to a return
    expect(find(html, 'section', { id: 'return-window' }).text).toMatch(/may still change/);

    const caveats = findAll(find(html, 'ul', { id: 'caveats' }).inner, 'li').map((li) => li.text);
    expect(caveats).toHaveLength(results.caveats.length);
    for (const caveat of caveats) expect(caveat).not.toMatch(/_|observed_through|intention to treat/);

    // and listed with its shoppers so far
    const list = await client.get(page(shop));
    expect(find(list.text, 'tr', { 'data-experiment-id': id }).attrs['data-units']).toBe(String(results.units));
  });

  it('withholds the results, saying so first, when shoppers are not split as planned', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const id = await createThroughForm(client, shop);
    await api.start(shop, id);
    await api.skew(shop, id, { 'Size help': 5200, 'No size help': 4800 });
    const results = (await api.read(shop, id, '/results')) as unknown as Results;
    expect(results.sample_ratio.mismatch).toBe(true);

    const response = await client.get(page(shop, `/${id}`));
    expectPage(response, 200);
    expect(find(response.text, 'p', { id: 'verdict-text' }).text).toBe(results.verdict);
    expect(find(response.text, 'section', { id: 'verdict' }).attrs).toMatchObject({ 'data-mismatch': 'true', class: 'card warning' });
    const warning = find(response.text, 'section', { id: 'sample-ratio' });
    expect(warning.attrs.role).toBe('alert');
    expect(warning.text).toMatch(/^Results withheld: shoppers are not split as planned/);
    expect(findAll(warning.inner, 'tr', { 'data-arm': true }).map((row) => Number(row.attrs['data-units']))).toEqual(
      results.sample_ratio.units,
    );
    // no rate, no difference to misread
    expect(findAll(response.text, 'table', { id: 'arms' })).toHaveLength(0);
    expect(findAll(response.text, 'article', { class: 'comparison' })).toHaveLength(0);
  });

  it('shows another merchant’s experiment as not found, and changes nothing of it', async () => {
    const shop = await newMetricsShop(t);
    const stranger = await newMetricsShop(t);
    const other = await createShop(t, shop.storeId, shop.secret);
    const client = await signUp(t, shop.tenant);
    const theirs = await api.create(stranger, {
      name: 'Theirs',
      arms: [
        { name: 'a', share: 0.5, treatment: 'size_help' },
        { name: 'b', share: 0.5, treatment: 'no_size_help' },
      ],
      primary_metric: 'conversion',
      minimum_effect: 0.02,
      product_ids: [stranger.productId],
    });
    const mine = await createThroughForm(client, shop, { ...FORM, products: 'types', product_type_ids: [other.productTypeId] });
    await client.page(page(shop));
    expectErrorPage(await client.get(page(shop, `/${theirs.id}`)), 404, 'not_found');
    for (const action of ['start', 'delete']) {
      expectErrorPage(await client.post(page(shop, `/${theirs.id}/${action}`)), 404, 'not_found');
    }
    expect(((await api.read(stranger, theirs.id)) as { state: string }).state).toBe('draft');
    // their store, with my session: not found either, whichever experiment it names
    for (const id of [theirs.id, mine])
      expectErrorPage(await client.get(`/console/stores/${stranger.storeId}/experiments/${id}`), 404, 'not_found');
    expectErrorPage(await client.get(`/console/stores/${stranger.storeId}/experiments`), 404, 'not_found');
    const list = await client.get(page(shop));
    expect(list.text).not.toContain(theirs.id);
    expect(list.text).not.toContain('Theirs');
  });

  it('refuses every form of the pages without the page’s CSRF token, changing nothing', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const id = await createThroughForm(client, shop);
    await client.page(page(shop));
    expectErrorPage(await client.post(page(shop), FORM, { csrf: null }), 403, 'csrf_failed');
    expectErrorPage(await client.post(page(shop), FORM, { csrf: 'garbage' }), 403, 'csrf_failed');
    for (const action of ['start', 'stop', 'delete']) {
      const response = await client.post(page(shop, `/${id}/${action}`), {}, { csrf: null });
      expectErrorPage(response, 403, 'csrf_failed');
      expect(errorCode(response.text)).toBe('csrf_failed');
    }
    expect(((await api.read(shop, id)) as { state: string }).state).toBe('draft');
    expect((await t.http().get(`/v1/stores/${shop.storeId}/experiments`).set(bearer(shop.secret))).body.data).toHaveLength(1);
  });
});
