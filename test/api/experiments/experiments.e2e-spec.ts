/**
 * Experiments, e2e over HTTP: a draft planned and validated, its states (draft → running → stopped) and the rule of
 * one running experiment per product, assignments sticky and split by the shares, exposures counted once, purchases
 * attributed to the shopper's arm from her exposure on (the holdout's too, who never opens a session), results checked
 * against a computation by hand, the sample-ratio check withholding the verdict, a shopper's erasure, and isolation
 * between stores.
 */
import process from 'node:process';
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { expectErrors, expectProblem, issueKey, MISSING_ID } from '../../support/fixtures.js';
import { siblingShop } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { createShop, type Shop } from '../../support/session-fixtures.js';

type Experiment = { id: string; state: string; updated_at: string; plan: { units_needed: number; arms: { arm: string; units: number }[] } };
type Assignment = { experiment_id: string | null; arm: string | null; treatment: string };
type Lift = { estimate: number; always_valid: { low: number; high: number }; fixed_horizon: { low: number; high: number } | null };
type Results = {
  units: number;
  planned_size_reached: boolean;
  sample_ratio: { units: number[]; p_value: number; mismatch: boolean };
  arms: {
    name: string;
    units: number;
    purchasing_units: number;
    purchased_lines: number;
    metrics: { metric: string; rate: number | null }[];
  }[];
  comparisons: { arm: string; metric: string; role: string; absolute: Lift | null; direction: string; verdict: string }[];
  verdict: string;
};

const HALVES = [
  { name: 'size help', share: 0.5, treatment: 'size_help' },
  { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
];
const DRAFT = { name: 'Does size help cut size returns?', arms: HALVES, primary_metric: 'size_return_rate', minimum_effect: 0.03 };

describe('experiments', () => {
  // 10,000 assignments in a few seconds: past a key's rate limit, which is not what this file tests
  const t = useApp({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 });
  const { newShop, postRaw } = eventsApi(t);
  const db = () => t.app.get(DataSource);
  const path = (shop: Shop, rest = '') => `/v1/stores/${shop.storeId}/experiments${rest}`;

  const createRaw = (shop: Shop, body: object, secret = shop.secret) => t.http().post(path(shop)).set(bearer(secret)).send(body);
  const create = async (shop: Shop, body: object = DRAFT): Promise<Experiment> => {
    const response = await createRaw(shop, body);
    if (response.status !== 201) expect({ status: response.status, body: response.body }).toEqual({ status: 201 });
    return response.body as Experiment;
  };
  const act = (shop: Shop, id: string, action: 'start' | 'stop') =>
    t
      .http()
      .post(path(shop, `/${id}/${action}`))
      .set(bearer(shop.secret));
  const started = async (shop: Shop, body: object = DRAFT): Promise<Experiment> => {
    const experiment = await create(shop, body);
    const response = await act(shop, experiment.id, 'start');
    expect(response.status).toBe(200);
    return response.body as Experiment;
  };
  const assignRaw = (shop: Shop, shopper: string, productId = shop.productId, secret = shop.secret) =>
    t.http().post(`/v1/stores/${shop.storeId}/assignments`).set(bearer(secret)).send({ shopper_ref: shopper, product_id: productId });
  const assign = async (shop: Shop, shopper: string, productId = shop.productId): Promise<Assignment> => {
    const response = await assignRaw(shop, shopper, productId);
    expect(response.status).toBe(200);
    return response.body as Assignment;
  };
  const results = async (shop: Shop, id: string): Promise<Results> => {
    const response = await t
      .http()
      .get(path(shop, `/${id}/results`))
      .set(bearer(shop.secret));
    if (response.status !== 200) expect({ status: response.status, body: response.body }).toEqual({ status: 200 });
    return response.body as Results;
  };
  /** A purchase of one line naming the shopper, `at` (default a minute ago); returns its order and line. */
  const buy = async (shop: Shop, shopper: string | null, overrides: Record<string, unknown> = {}) => {
    const line = { order_id: uniqueId('order'), line_item_id: uniqueId('line') };
    const response = await postRaw(
      shop,
      eventBody('purchase', shop, {
        ...line,
        occurred_at: new Date().toISOString(),
        ...(shopper ? { shopper_ref: shopper } : {}),
        ...overrides,
      }),
    );
    if (response.status !== 201) expect({ status: response.status, body: response.body }).toEqual({ status: 201 });
    return line;
  };
  const returnForSize = async (shop: Shop, line: { order_id: string; line_item_id: string }) => {
    const response = await postRaw(shop, eventBody('return_requested', shop, { ...line, reason: 'size' }));
    expect(response.status).toBe(201);
  };

  describe('a draft', () => {
    it('is planned: units for 80% power at the minimum effect, per arm and in all', async () => {
      const shop = await newShop();
      const experiment = await create(shop, { ...DRAFT, primary_metric: 'conversion', baseline_rate: 0.1, minimum_effect: 0.02 });
      expect(experiment).toMatchObject({ state: 'draft', control_arm: 'size help', guardrails: [], product_ids: null });
      // (1.96 + 0.8416)² · (0.1·0.9 + 0.12·0.88) / 0.02² = 3,839 per arm for a per-unit rate
      expect(experiment.plan.arms.map((a) => a.units)).toEqual([3839, 3839]);
      expect(experiment.plan.units_needed).toBe(7678);
      const read = await t
        .http()
        .get(path(shop, `/${experiment.id}`))
        .set(bearer(shop.secret));
      expect(read.body).toEqual(experiment);
      // listed as read, the plan at the store's recent pace included (a shopper's session: 1/28 a day)
      await sessionsApi(t).start(shop);
      const again = await t
        .http()
        .get(path(shop, `/${experiment.id}`))
        .set(bearer(shop.secret));
      expect(again.body.plan).toMatchObject({ daily_units: 0, expected_days: Math.ceil(7678 * 28) });
      const list = await t.http().get(path(shop)).set(bearer(shop.secret));
      expect(list.body.data).toEqual([again.body]);
    });

    it('refuses arms whose shares do not sum to 1, an unknown control, both product lists, and products of no one', async () => {
      const shop = await newShop();
      expectErrors(await createRaw(shop, { ...DRAFT, arms: [HALVES[0], { ...HALVES[1], share: 0.4 }] }), { arms: 'shares_not_one' });
      expectErrors(await createRaw(shop, { ...DRAFT, arms: [HALVES[0], { ...HALVES[1], treatment: 'maybe' }] }), {
        'arms[1].treatment': 'not_allowed_value',
      });
      expectErrors(await createRaw(shop, { ...DRAFT, arms: [HALVES[0], { ...HALVES[1], name: 'size help' }] }), {
        'arms[1].name': 'duplicate',
      });
      expectErrors(await createRaw(shop, { ...DRAFT, control_arm: 'nobody' }), { control_arm: 'not_an_arm' });
      expectErrors(await createRaw(shop, { ...DRAFT, product_ids: [shop.productId], product_type_ids: [shop.productTypeId] }), {
        product_type_ids: 'not_with_product_ids',
      });
      expectErrors(await createRaw(shop, { ...DRAFT, product_ids: [MISSING_ID] }), { product_ids: 'not_found' });
      const other = await newShop();
      expectErrors(await createRaw(shop, { ...DRAFT, product_type_ids: [other.productTypeId] }), { product_type_ids: 'not_found' });
      expectErrors(await createRaw(shop, { ...DRAFT, guardrails: ['size_return_rate'] }), { guardrails: 'primary_metric' });
      expectErrors(await createRaw(shop, { ...DRAFT, baseline_rate: 0.5, minimum_effect: 0.5 }), { minimum_effect: 'out_of_range' });
      const list = await t.http().get(path(shop)).set(bearer(shop.secret));
      expect(list.body.data).toEqual([]);
    });
  });

  describe('a change', () => {
    const patch = (shop: Shop, id: string, body: object, secret = shop.secret) =>
      t
        .http()
        .patch(path(shop, `/${id}`))
        .set(bearer(secret))
        .send(body);

    it('changes a draft and plans it again; products are replaced whole; the control stays while it is an arm', async () => {
      const shop = await newShop();
      const draft = await create(shop, {
        ...DRAFT,
        hypothesis: 'fewer returns',
        product_ids: [shop.productId],
        guardrails: ['conversion'],
      });
      const renamed = await patch(shop, draft.id, { name: 'Size returns of tops', hypothesis: null });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        name: 'Size returns of tops',
        hypothesis: null,
        plan: draft.plan,
        product_ids: [shop.productId],
      });

      // the product list gives way to types; a bigger effect needs fewer units; conversion stops being a guardrail
      // once it is the primary metric
      const changed = await patch(shop, draft.id, {
        product_type_ids: [shop.productTypeId],
        primary_metric: 'conversion',
        baseline_rate: 0.1,
        minimum_effect: 0.02,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        product_ids: null,
        product_type_ids: [shop.productTypeId],
        guardrails: [],
        control_arm: 'size help',
      });
      expect(changed.body.plan.units_needed).toBe(7678); // as computed by hand in 'is planned'

      // new arms without the old control: the first arm controls; null products: all of them
      const arms = [
        { name: 'holdout', share: 0.25, treatment: 'no_size_help' },
        { name: 'chart', share: 0.25, treatment: 'chart_only' },
        { name: 'learned', share: 0.5, treatment: 'size_help' },
      ];
      const rearmed = await patch(shop, draft.id, { arms, product_type_ids: null, baseline_rate: null });
      expect(rearmed.status).toBe(200);
      expect(rearmed.body).toMatchObject({ arms, control_arm: 'holdout', product_ids: null, product_type_ids: null });
      expect(rearmed.body.plan.baseline_rate).toBe(0.05);
      const read = await t
        .http()
        .get(path(shop, `/${draft.id}`))
        .set(bearer(shop.secret));
      expect(read.body).toEqual(rearmed.body);
      expect(Date.parse(read.body.updated_at)).toBeGreaterThan(Date.parse(draft.updated_at));
    });

    it('refuses a design that would not be valid whole, and changes nothing then', async () => {
      const shop = await newShop();
      const draft = await create(shop, { ...DRAFT, product_ids: [shop.productId] });
      expectErrors(await patch(shop, draft.id, { product_type_ids: [shop.productTypeId], product_ids: [shop.productId] }), {
        product_type_ids: 'not_with_product_ids',
      });
      expectErrors(await patch(shop, draft.id, { product_ids: [] }), { product_ids: 'empty' });
      expectErrors(await patch(shop, draft.id, { control_arm: 'nobody' }), { control_arm: 'not_an_arm' });
      expectErrors(await patch(shop, draft.id, { guardrails: ['size_return_rate'] }), { guardrails: 'primary_metric' });
      expectErrors(await patch(shop, draft.id, { baseline_rate: 0.5, minimum_effect: 0.5 }), { minimum_effect: 'out_of_range' });
      expectErrors(await patch(shop, draft.id, { name: null, arms: [HALVES[0]] }), { name: 'must_be_string', arms: 'invalid' });
      const other = await newShop();
      expectErrors(await patch(shop, draft.id, { product_ids: [other.productId] }), { product_ids: 'not_found' });
      expectProblem(await patch(other, draft.id, { name: 'mine now' }), 404, 'not_found');
      const analytics = await issueKey(t, shop.tenant.admin.secret, { scopes: ['analytics'], store_id: shop.storeId });
      expectProblem(await patch(shop, draft.id, { name: 'no' }, analytics.secret), 403, 'insufficient_scope');
      const read = await t
        .http()
        .get(path(shop, `/${draft.id}`))
        .set(bearer(shop.secret));
      expect(read.body).toEqual(draft);
    });

    it('once started, takes a new name or hypothesis and nothing of its design, whatever came first', async () => {
      const shop = await newShop();
      const experiment = await started(shop);
      const renamed = await patch(shop, experiment.id, { name: 'Size help against none', hypothesis: 'fewer size returns' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ state: 'running', name: 'Size help against none', hypothesis: 'fewer size returns' });
      const refused = await patch(shop, experiment.id, { name: 'again', minimum_effect: 0.01 });
      expectProblem(refused, 409, 'experiment_state_conflict');
      expect(refused.body.detail).toContain('minimum_effect');
      expect((await act(shop, experiment.id, 'stop')).status).toBe(200);
      expectProblem(await patch(shop, experiment.id, { arms: HALVES }), 409, 'experiment_state_conflict');
      expect((await patch(shop, experiment.id, { hypothesis: null })).status).toBe(200);

      // a change sent while the draft starts lands before the start or not at all: never on a running experiment
      for (let i = 0; i < 3; i++) {
        const draft = await create(shop, { ...DRAFT, product_ids: [shop.productId] });
        const [change, start] = await Promise.all([patch(shop, draft.id, { minimum_effect: 0.05 }), act(shop, draft.id, 'start')]);
        expect(start.status).toBe(200);
        if (change.status === 200) {
          expect(change.body.state).toBe('draft');
          expect(start.body.minimum_effect).toBe(0.05);
        } else {
          expectProblem(change, 409, 'experiment_state_conflict');
          expect(start.body.minimum_effect).toBe(DRAFT.minimum_effect);
        }
        expect((await act(shop, draft.id, 'stop')).status).toBe(200);
      }
    });
  });

  describe('states', () => {
    it('start a draft once, stop a running one once, delete only a draft', async () => {
      const shop = await newShop();
      const experiment = await create(shop);
      expectProblem(await act(shop, experiment.id, 'stop'), 409, 'experiment_state_conflict');
      const running = await act(shop, experiment.id, 'start');
      expect(running.body).toMatchObject({ state: 'running', stopped_at: null });
      expect(running.body.started_at).toEqual(expect.any(String));
      expectProblem(await act(shop, experiment.id, 'start'), 409, 'experiment_state_conflict');
      expectProblem(
        await t
          .http()
          .delete(path(shop, `/${experiment.id}`))
          .set(bearer(shop.secret)),
        409,
        'experiment_state_conflict',
      );
      expect((await act(shop, experiment.id, 'stop')).body).toMatchObject({ state: 'stopped' });
      expectProblem(await act(shop, experiment.id, 'stop'), 409, 'experiment_state_conflict');
      // stopped: shoppers get size help as usual, outside any experiment
      expect(await assign(shop, 'after-stop')).toEqual({ experiment_id: null, arm: null, treatment: 'size_help' });

      const draft = await create(shop);
      expect(
        (
          await t
            .http()
            .delete(path(shop, `/${draft.id}`))
            .set(bearer(shop.secret))
        ).status,
      ).toBe(204);
      expect(
        (
          await t
            .http()
            .get(path(shop, `/${draft.id}`))
            .set(bearer(shop.secret))
        ).status,
      ).toBe(404);
    });

    it('runs one experiment per product at a time: all, types and lists that meet are refused; disjoint ones run side by side', async () => {
      const shop = await newShop();
      const second = await createShop(t, shop.storeId, shop.secret);
      await started(shop, { ...DRAFT, product_ids: [shop.productId] });
      const all = await create(shop);
      expectProblem(await act(shop, all.id, 'start'), 409, 'experiment_overlap');
      const sameType = await create(shop, { ...DRAFT, product_type_ids: [shop.productTypeId] });
      expectProblem(await act(shop, sameType.id, 'start'), 409, 'experiment_overlap');
      const sameProduct = await create(shop, { ...DRAFT, product_ids: [second.productId, shop.productId] });
      expectProblem(await act(shop, sameProduct.id, 'start'), 409, 'experiment_overlap');
      await started(shop, { ...DRAFT, product_type_ids: [second.productTypeId] });
      expect((await assign(shop, 'two', second.productId)).experiment_id).not.toBeNull();
    });

    it('lets one of two overlapping drafts started at once run', async () => {
      const shop = await newShop();
      const [a, b] = [await create(shop), await create(shop)];
      const answers = await Promise.all([act(shop, a.id, 'start'), act(shop, b.id, 'start')]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    });
  });

  describe('assignments', () => {
    it('outside any experiment, size help as usual; for a product of no one, 400', async () => {
      const shop = await newShop();
      expect(await assign(shop, 'anyone')).toEqual({ experiment_id: null, arm: null, treatment: 'size_help' });
      expectErrors(await assignRaw(shop, 'anyone', MISSING_ID), { product_id: 'not_found' });
      expectErrors(
        await t.http().post(`/v1/stores/${shop.storeId}/assignments`).set(bearer(shop.secret)).send({ product_id: shop.productId }),
        {
          shopper_ref: undefined,
        },
      );
    });

    it('are sticky, split by the shares within tolerance (10,000 shoppers on PostgreSQL), and expose each once, concurrent calls included', async () => {
      const shop = await newShop();
      const experiment = await started(shop, {
        ...DRAFT,
        arms: [
          { name: 'size help', share: 0.6, treatment: 'size_help' },
          { name: 'chart', share: 0.2, treatment: 'chart_only' },
          { name: 'holdout', share: 0.2, treatment: 'no_size_help' },
        ],
      });
      // the split is the hash's, whatever the database: the PostgreSQL pass checks it at 10,000 shoppers, the embedded
      // one (the same statements, one at a time) at 1,500
      const units = process.env.DATABASE_URL ? 10_000 : 1500;
      const first = new Map<string, Assignment>();
      for (let start = 0; start < units; start += 50) {
        const batch = Array.from({ length: 50 }, (_, i) => `shopper-${start + i}`);
        const answers = await Promise.all(batch.map((ref) => assign(shop, ref)));
        batch.forEach((ref, i) => first.set(ref, answers[i]));
      }
      const treatments: Record<string, string> = { 'size help': 'size_help', chart: 'chart_only', holdout: 'no_size_help' };
      for (const answer of first.values()) {
        expect(answer.experiment_id).toBe(experiment.id);
        expect(answer.treatment).toBe(treatments[answer.arm as string]);
      }
      // the same shopper, again and concurrently: the same arm, one exposure
      const again = await Promise.all(Array.from({ length: 20 }, () => assign(shop, 'shopper-7')));
      for (const answer of again) expect(answer).toEqual(first.get('shopper-7'));
      const read = await results(shop, experiment.id);
      expect(read.units).toBe(units);
      const counts = Object.fromEntries(read.arms.map((arm) => [arm.name, arm.units]));
      const byAnswer = (name: string) => [...first.values()].filter((a) => a.arm === name).length;
      expect(counts).toEqual({ 'size help': byAnswer('size help'), chart: byAnswer('chart'), holdout: byAnswer('holdout') });
      // within 4.5 standard deviations of the shares (binomial), and no sample-ratio alarm
      for (const [name, share] of [
        ['size help', 0.6],
        ['chart', 0.2],
        ['holdout', 0.2],
      ] as const) {
        expect(Math.abs(counts[name] - units * share)).toBeLessThan(4.5 * Math.sqrt(units * share * (1 - share)));
      }
      expect(read.sample_ratio.mismatch).toBe(false);
    }, 90_000);
  });

  describe('results', () => {
    it('attribute purchases to the shopper’s arm from her exposure on, holdout included, and match a computation by hand', async () => {
      const shop = await newShop();
      const outside = await createShop(t, shop.storeId, shop.secret);
      const experiment = await started(shop, { ...DRAFT, product_ids: [shop.productId], guardrails: ['conversion'] });
      const arms = new Map<string, string>();
      for (let i = 0; i < 40; i++) arms.set(`unit-${i}`, (await assign(shop, `unit-${i}`)).arm as string);
      // what happened, per shopper: lines bought after exposure, and which came back for size
      const expected = {
        'size help': { units: 0, buyers: 0, lines: 0, returned: 0 },
        holdout: { units: 0, buyers: 0, lines: 0, returned: 0 },
      };
      let i = 0;
      for (const [ref, arm] of arms) {
        const tally = expected[arm as keyof typeof expected];
        tally.units++;
        const lines = i % 3; // 0, 1 or 2 lines
        if (lines) tally.buyers++;
        for (let l = 0; l < lines; l++) {
          const line = await buy(shop, ref);
          tally.lines++;
          if ((i + l) % (arm === 'holdout' ? 2 : 4) === 0) {
            await returnForSize(shop, line);
            tally.returned++;
          }
        }
        i++;
      }
      // not counted: a purchase before exposure, one of a product outside the experiment, one naming no shopper
      await buy(shop, 'unit-1', { occurred_at: new Date(Date.now() - 3_600_000).toISOString() });
      await buy(outside, 'unit-2', { product_id: outside.productId, variant_id: outside.variants.M });
      await buy(shop, null);

      const read = await results(shop, experiment.id);
      for (const arm of read.arms) {
        const tally = expected[arm.name as keyof typeof expected];
        expect({ units: arm.units, buyers: arm.purchasing_units, lines: arm.purchased_lines }).toEqual({
          units: tally.units,
          buyers: tally.buyers,
          lines: tally.lines,
        });
        const rate = (metric: string) => arm.metrics.find((m) => m.metric === metric)?.rate;
        expect(rate('conversion')).toBeCloseTo(tally.buyers / tally.units, 4);
        expect(rate('size_return_rate')).toBeCloseTo(tally.returned / tally.lines, 4);
      }
      const primary = read.comparisons.find((c) => c.role === 'primary');
      const { 'size help': control, holdout } = expected;
      expect(primary?.arm).toBe('holdout');
      expect(primary?.absolute?.estimate).toBeCloseTo(holdout.returned / holdout.lines - control.returned / control.lines, 4);
      expect(primary?.absolute?.always_valid.low).toBeLessThanOrEqual(primary?.absolute?.estimate as number);
      expect(primary?.absolute?.always_valid.high).toBeGreaterThanOrEqual(primary?.absolute?.estimate as number);
      expect(read.comparisons.map((c) => [c.metric, c.role])).toEqual([
        ['size_return_rate', 'primary'],
        ['conversion', 'guardrail'],
      ]);
      expect(read.verdict).toMatch(/^holdout: size returns \d+\.\d points (higher|lower) than size help \[/);
    });

    it('withhold the verdict when the split is not the planned one (52/48 of 10,000 on a 50/50 plan)', async () => {
      const shop = await newShop();
      const experiment = await started(shop);
      await db().query(
        `INSERT INTO experiment_exposures (experiment_id, store_id, unit_digest, arm, exposed_at)
         SELECT $1::uuid, $2::uuid, sha256(convert_to($1::text || n::text, 'UTF8')), CASE WHEN n <= 5200 THEN 'size help' ELSE 'holdout' END, now()
           FROM generate_series(1, 10000) AS n`,
        [experiment.id, shop.storeId],
      );
      const read = await results(shop, experiment.id);
      expect(read.sample_ratio).toMatchObject({ units: [5200, 4800], mismatch: true });
      expect(read.sample_ratio.p_value).toBeLessThan(0.001);
      expect(read.verdict).toMatch(/not split between the arms as planned/);
    });

    it('keep counting an erased shopper, under a digest her id no longer leads to', async () => {
      const shop = await newShop();
      const experiment = await started(shop);
      const arm = (await assign(shop, 'erase-me')).arm;
      await buy(shop, 'erase-me');
      const before = await results(shop, experiment.id);
      expect((await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/erase-me`).set(bearer(shop.secret))).status).toBe(204);
      const after = await results(shop, experiment.id);
      expect(after.arms).toEqual(before.arms);
      expect(after.arms.find((a) => a.name === arm)?.purchasing_units).toBe(1);
      // her next visit is a new unit: nothing links it to the erased one
      await assign(shop, 'erase-me');
      expect((await results(shop, experiment.id)).units).toBe(2);
    });
  });

  describe('sessions of shoppers in an experiment', () => {
    const SHOPPER = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };
    const THIRDS = [
      { name: 'size help', share: 0.34, treatment: 'size_help' },
      { name: 'chart', share: 0.33, treatment: 'chart_only' },
      { name: 'holdout', share: 0.33, treatment: 'no_size_help' },
    ];
    const sessions = sessionsApi(t);
    const startSession = (shop: Shop, ref?: string) =>
      sessions.startRaw(shop, { product_id: shop.productId, ...(ref ? { shopper_ref: ref } : {}) });
    type Answered = { id: string; recommendation: { size_label: string; adjustment: { source: string; chart_size_label: string } } };
    const answered = async (shop: Shop, ref?: string) =>
      (await sessions.recommended(shop, SHOPPER, ref ? { shopper_ref: ref } : {})) as unknown as Answered;
    /** The first shopper refs that land in each arm, by their assignments. */
    const refsByArm = async (shop: Shop) => {
      const found: Record<string, string> = {};
      for (let i = 0; Object.keys(found).length < 3 && i < 200; i++) {
        const ref = `arm-probe-${i}`;
        const { arm } = await assign(shop, ref);
        found[arm as string] ??= ref;
      }
      return found;
    };

    it('refuse the holdout a session, answer chart_only from the stated chart alone, and size_help with what was learned', async () => {
      const shop = await newShop();
      // the store learns that the product runs a size large: shoppers keep the size below the chart's answer
      const events = [];
      for (let i = 0; i < 12; i++) {
        const session = await answered(shop);
        const sizes = Object.keys(shop.variants);
        const below = sizes[sizes.indexOf(session.recommendation.adjustment.chart_size_label) - 1];
        const line = {
          order_id: uniqueId('o'),
          line_item_id: uniqueId('l'),
          variant_id: shop.variants[below as keyof typeof shop.variants],
        };
        const at = { occurred_at: new Date().toISOString() };
        events.push(
          eventBody('purchase', shop, { ...line, ...at, session_id: session.id }),
          eventBody('item_kept', shop, { ...line, ...at }),
        );
      }
      expect((await t.http().post(`/v1/stores/${shop.storeId}/events/batch`).set(bearer(shop.secret)).send({ events })).status).toBe(200);
      expect((await answered(shop)).recommendation.adjustment.source).toBe('learned');

      await started(shop, { ...DRAFT, arms: THIRDS });
      const refs = await refsByArm(shop);
      expectProblem(await startSession(shop, refs.holdout), 409, 'experiment_holdout');
      expect((await answered(shop, refs.chart)).recommendation.adjustment.source).not.toBe('learned');
      expect((await answered(shop, refs['size help'])).recommendation.adjustment.source).toBe('learned');
      // a session without a shopper is in no experiment: size help as usual
      expect((await answered(shop)).recommendation.adjustment.source).toBe('learned');
    });

    it('assign and expose a shopper whose page view the integration did not report, in the session’s transaction', async () => {
      const shop = await newShop();
      const experiment = await started(shop, { ...DRAFT, arms: THIRDS });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => startSession(shop, `unreported-${i}`)));
      expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
      const read = await results(shop, experiment.id);
      expect(read.units).toBe(30);
      // the holdout's sessions were refused, the others started: one per exposed unit of the other arms
      const holdout = read.arms.find((a) => a.name === 'holdout')?.units;
      expect(answers.filter((r) => r.status === 409)).toHaveLength(holdout as number);
      // and her arm later is the one her session gave her
      for (let i = 0; i < 30; i++) {
        const { arm } = await assign(shop, `unreported-${i}`);
        expect(arm === 'holdout').toBe(answers[i].status === 409);
      }
    });
  });

  describe('purchases naming their shopper', () => {
    it('take shopper_ref on purchases only, and compare it on redelivery', async () => {
      const shop = await newShop();
      expectErrors(await postRaw(shop, eventBody('return_requested', shop, { shopper_ref: 'x' })), { shopper_ref: 'not_allowed_for_type' });
      const body = eventBody('purchase', shop, { shopper_ref: 'cust-1' });
      const first = await postRaw(shop, body);
      expect(first.status).toBe(201);
      expect(first.body).not.toHaveProperty('shopper_ref');
      expect((await postRaw(shop, body)).status).toBe(200);
      expectProblem(await postRaw(shop, { ...body, shopper_ref: 'cust-2' }), 409, 'event_conflict');
      const [row] = await db().query('SELECT shopper_digest FROM events WHERE store_id = $1', [shop.storeId]);
      expect(row.shopper_digest).toBeInstanceOf(Buffer);
      expect(row.shopper_digest.toString()).not.toContain('cust-1');
    });
  });

  describe('isolation', () => {
    it('another store’s experiment is not found, and its shoppers are its own', async () => {
      const shop = await newShop();
      const sibling = await siblingShop(t, shop);
      const experiment = await started(shop);
      expect((await t.http().get(`/v1/stores/${sibling.storeId}/experiments/${experiment.id}`).set(bearer(shop.secret))).status).toBe(404);
      expect((await t.http().post(`/v1/stores/${sibling.storeId}/experiments/${experiment.id}/stop`).set(bearer(shop.secret))).status).toBe(
        404,
      );
      // the sibling store's product runs in no experiment: the shop's experiment does not reach it
      expect(await assign(sibling, 'same-ref')).toEqual({ experiment_id: null, arm: null, treatment: 'size_help' });
      expectErrors(await assignRaw(sibling, 'same-ref', shop.productId), { product_id: 'not_found' });
      const analytics = await issueKey(t, shop.tenant.admin.secret, { scopes: ['analytics'], store_id: shop.storeId });
      expect(
        (
          await t
            .http()
            .get(path(shop, `/${experiment.id}/results`))
            .set(bearer(analytics.secret))
        ).status,
      ).toBe(200);
      expectProblem(await act({ ...shop, secret: analytics.secret }, experiment.id, 'stop'), 403, 'insufficient_scope');
      expectProblem(await assignRaw(shop, 'x', shop.productId, analytics.secret), 403, 'insufficient_scope');
    });
  });
});
