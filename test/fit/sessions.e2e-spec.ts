import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../support/app.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Tenant } from '../support/fixtures.js';
import {
  createQuestionnaire,
  createShop,
  type EventRow,
  sessionEvents,
  type Shop,
  SIZES,
  type SizeLabel,
  withFailingEventInsert,
} from '../support/session-fixtures.js';
import { createProduct, createVariant } from '../support/catalog-fixtures.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VERDICTS = ['too_small', 'snug', 'regular', 'loose', 'too_large'];
const DEFAULT_QUESTIONS = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'age', required: false },
  { key: 'sex', required: false },
  { key: 'fit_preference', required: false },
];
/** The default questions plus the two zones the shop's chart measures, both optional. */
const MEASURED_QUESTIONS = [...DEFAULT_QUESTIONS, { key: 'chest', required: false }, { key: 'waist', required: false }];
const MISSING_ID = '01936f6e-0000-7000-8000-000000000000';
const DECISION_EVENTS = ['recommendation_accepted', 'recommendation_overridden'];

const SHOPPER = {
  height: { value: 178, unit: 'cm' },
  weight: { value: 76, unit: 'kg' },
  age: 34,
  sex: 'male',
  fit_preference: 'regular',
};

interface Recommendation {
  id: string;
  size_label: SizeLabel;
  variant_id: string | null;
  confidence: number;
  fit: Record<string, string>;
  alternatives: { size_label: SizeLabel; variant_id: string | null; confidence: number }[];
  measurements: Record<string, { value_cm: number; source: 'answered' | 'estimated'; sd_cm: number }>;
  model_version: string;
  created_at: string;
}

interface Session {
  id: string;
  store_id: string;
  product_id: string;
  questionnaire_id: string | null;
  questionnaire_version: number | null;
  questions: { key: string; required: boolean }[];
  state: 'started' | 'recommended' | 'completed';
  outcome: 'accepted' | 'overridden' | null;
  answers: Record<string, unknown> | null;
  recommendation: Recommendation | null;
  decision: { size_label: string; variant_id: string | null; outcome: string; decided_at: string } | null;
  created_at: string;
  updated_at: string;
}

describe('fit sessions', () => {
  const t = useApp();

  // ——— helpers ———

  const sessionsPath = (storeId: string) => `/v1/stores/${storeId}/sessions`;
  const startRaw = (shop: Shop, body: object, secret = shop.secret) =>
    t.http().post(sessionsPath(shop.storeId)).set(bearer(secret)).send(body);
  const answerRaw = (shop: Shop, id: string, answers: unknown, secret = shop.secret) =>
    t
      .http()
      .post(`${sessionsPath(shop.storeId)}/${id}/answers`)
      .set(bearer(secret))
      .send({ answers });
  const decideRaw = (shop: Shop, id: string, body: object, secret = shop.secret) =>
    t
      .http()
      .post(`${sessionsPath(shop.storeId)}/${id}/decision`)
      .set(bearer(secret))
      .send(body);
  const getRaw = (shop: Shop, id: string, secret = shop.secret) =>
    t
      .http()
      .get(`${sessionsPath(shop.storeId)}/${id}`)
      .set(bearer(secret));
  const listRaw = (shop: Shop, query = '', secret = shop.secret) =>
    t
      .http()
      .get(`${sessionsPath(shop.storeId)}${query}`)
      .set(bearer(secret));

  /** A fresh merchant and store with the shop's catalog; calls use the admin key. */
  async function newShop(): Promise<Shop & { tenant: Tenant }> {
    const tenant = await createTenant(t);
    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    return { ...shop, tenant };
  }

  async function start(shop: Shop, body: object = {}): Promise<Session> {
    const response = await startRaw(shop, { product_id: shop.productId, ...body });
    expect(response.status).toBe(201);
    return response.body as Session;
  }

  async function answer(shop: Shop, id: string, answers: Record<string, unknown> = SHOPPER): Promise<Session> {
    const response = await answerRaw(shop, id, answers);
    // on failure, show the problem the service answered rather than a bare status
    if (response.status !== 200) expect(response.body).toEqual({ status: 200 });
    expect(response.status).toBe(200);
    return response.body as Session;
  }

  async function recommended(shop: Shop, answers: Record<string, unknown> = SHOPPER, body: object = {}): Promise<Session> {
    const session = await start(shop, body);
    return answer(shop, session.id, answers);
  }

  async function read(shop: Shop, id: string): Promise<Session> {
    const response = await getRaw(shop, id);
    expect(response.status).toBe(200);
    return response.body as Session;
  }

  /** Everything a recommendation must be, whatever the answers. */
  function expectWellFormed(recommendation: Recommendation | null, shop: Shop): asserts recommendation is Recommendation {
    expect(recommendation).not.toBeNull();
    const r = recommendation as Recommendation;
    expect(Object.keys(r).sort()).toEqual(
      ['alternatives', 'confidence', 'created_at', 'fit', 'id', 'measurements', 'model_version', 'size_label', 'variant_id'].sort(),
    );
    expect(typeof r.id).toBe('string');
    expect(SIZES).toContain(r.size_label);
    expect(r.variant_id).toBe(shop.variants[r.size_label]);
    expect(r.confidence).toBeGreaterThan(0);
    expect(r.confidence).toBeLessThanOrEqual(1);
    expect(r.created_at).toMatch(TIMESTAMP);
    expect(typeof r.model_version).toBe('string');
    expect(r.model_version.length).toBeGreaterThan(0);

    // how the recommended size fits, zone by zone: the chart measures chest and waist
    expect(Object.keys(r.fit).sort()).toEqual(['chest', 'waist']);
    for (const verdict of Object.values(r.fit)) expect(VERDICTS).toContain(verdict);

    // the alternatives: other sizes of the chart, each with its variant, most likely first
    const labels = r.alternatives.map((a) => a.size_label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).not.toContain(r.size_label);
    for (const alternative of r.alternatives) {
      expect(Object.keys(alternative).sort()).toEqual(['confidence', 'size_label', 'variant_id']);
      expect(SIZES).toContain(alternative.size_label);
      expect(alternative.variant_id).toBe(shop.variants[alternative.size_label]);
      expect(alternative.confidence).toBeGreaterThan(0);
      expect(alternative.confidence).toBeLessThanOrEqual(1);
    }
    const confidences = r.alternatives.map((a) => a.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    const total = r.confidence + confidences.reduce((sum, c) => sum + c, 0);
    expect(Math.abs(total - 1)).toBeLessThanOrEqual(0.02);

    // the body measurements used: the chart's zones, each with a positive spread
    expect(Object.keys(r.measurements).sort()).toEqual(['chest', 'waist']);
    for (const m of Object.values(r.measurements)) {
      expect(Object.keys(m).sort()).toEqual(['sd_cm', 'source', 'value_cm']);
      expect(['answered', 'estimated']).toContain(m.source);
      expect(Number.isFinite(m.value_cm)).toBe(true);
      expect(m.value_cm).toBeGreaterThan(0);
      expect(m.sd_cm).toBeGreaterThan(0);
    }
  }

  /** The recommendation without what differs from one answer to the next (its id and time). */
  const content = (r: Recommendation | null) => {
    const { id: _id, created_at: _at, ...rest } = r as Recommendation;
    return rest;
  };
  const rank = (label: string) => SIZES.indexOf(label as SizeLabel);
  const types = (events: EventRow[]) => events.map((e) => e.type).sort();

  // ——— the flow ———

  describe('the full flow', () => {
    it('starts, recommends a size of the chart, records the accepted decision, and records exactly its events', async () => {
      const shop = await newShop();

      const started = await startRaw(shop, { product_id: shop.productId });
      expect(started.status).toBe(201);
      expect(started.headers['content-type']).toMatch(/^application\/json/);
      expect(started.body).toEqual({
        id: expect.any(String),
        store_id: shop.storeId,
        product_id: shop.productId,
        questionnaire_id: null,
        questionnaire_version: null,
        questions: DEFAULT_QUESTIONS,
        state: 'started',
        outcome: null,
        answers: null,
        recommendation: null,
        decision: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const id = started.body.id as string;
      await expect(read(shop, id)).resolves.toEqual(started.body);
      expect(types(await sessionEvents(t, id))).toEqual(['fit_started']);

      const answered = await answerRaw(shop, id, SHOPPER);
      expect(answered.status).toBe(200);
      const session = answered.body as Session;
      expect(session).toMatchObject({ id, state: 'recommended', outcome: null, decision: null, answers: SHOPPER });
      const recommendation = session.recommendation;
      expectWellFormed(recommendation, shop);
      for (const zone of ['chest', 'waist']) expect(recommendation.measurements[zone].source).toBe('estimated');
      await expect(read(shop, id)).resolves.toEqual(session);
      expect(session.created_at).toBe(started.body.created_at);
      expect(session.updated_at >= started.body.updated_at).toBe(true);

      const decided = await decideRaw(shop, id, { size_label: recommendation.size_label });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({
        id,
        state: 'completed',
        outcome: 'accepted',
        answers: SHOPPER,
        recommendation,
        decision: {
          size_label: recommendation.size_label,
          variant_id: shop.variants[recommendation.size_label],
          outcome: 'accepted',
          decided_at: expect.stringMatching(TIMESTAMP),
        },
      });
      expect(Object.keys(decided.body.decision).sort()).toEqual(['decided_at', 'outcome', 'size_label', 'variant_id']);
      await expect(read(shop, id)).resolves.toEqual(decided.body);
      expect(decided.body.updated_at >= session.updated_at).toBe(true);

      const events = await sessionEvents(t, id);
      expect(types(events)).toEqual(['fit_completed', 'fit_started', 'recommendation_accepted', 'recommendation_generated']);
      for (const event of events) {
        expect(event).toMatchObject({
          merchant_id: shop.tenant.merchantId,
          store_id: shop.storeId,
          source: 'size-fit',
          product_id: shop.productId,
          session_id: id,
        });
      }
      expect(new Set(events.map((e) => e.external_id)).size).toBe(events.length);
      const byType = Object.fromEntries(events.map((e) => [e.type, e]));
      expect(byType.fit_started.variant_id).toBeNull();
      expect(byType.recommendation_generated.variant_id).toBe(recommendation.variant_id);
      expect(byType.recommendation_accepted.variant_id).toBe(shop.variants[recommendation.size_label]);
      expect(new Date(byType.fit_started.occurred_at).toISOString()).toBe(started.body.created_at);
      expect(new Date(byType.recommendation_generated.occurred_at).toISOString()).toBe(recommendation.created_at);
      expect(new Date(byType.fit_completed.occurred_at).toISOString()).toBe(recommendation.created_at);
      expect(new Date(byType.recommendation_accepted.occurred_at).toISOString()).toBe(decided.body.decision.decided_at);
    });

    it('records an override, with its variant, when the shopper picks another size by label', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const other = SIZES.find((label) => label !== session.recommendation?.size_label) as SizeLabel;

      const decided = await decideRaw(shop, session.id, { size_label: other });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({
        state: 'completed',
        outcome: 'overridden',
        recommendation: session.recommendation,
        decision: { size_label: other, variant_id: shop.variants[other], outcome: 'overridden' },
      });
      const events = await sessionEvents(t, session.id);
      expect(types(events)).toEqual(['fit_completed', 'fit_started', 'recommendation_generated', 'recommendation_overridden']);
      expect(events.find((e) => e.type === 'recommendation_overridden')?.variant_id).toBe(shop.variants[other]);
    });

    it('takes a decision by variant: accepted for the recommended size, overridden for another', async () => {
      const shop = await newShop();
      const first = await recommended(shop);
      const size = first.recommendation?.size_label as SizeLabel;
      const accepted = await decideRaw(shop, first.id, { variant_id: shop.variants[size] });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({
        outcome: 'accepted',
        decision: { size_label: size, variant_id: shop.variants[size], outcome: 'accepted' },
      });

      const second = await recommended(shop);
      const other = SIZES.find((label) => label !== second.recommendation?.size_label) as SizeLabel;
      const overridden = await decideRaw(shop, second.id, { variant_id: shop.variants[other] });
      expect(overridden.status).toBe(200);
      expect(overridden.body).toMatchObject({
        outcome: 'overridden',
        decision: { size_label: other, variant_id: shop.variants[other], outcome: 'overridden' },
      });
    });

    it('replaces the recommendation, with a new id, when the shopper answers again before deciding', async () => {
      const shop = await newShop();
      const first = await recommended(shop);
      const again = await answer(shop, first.id, { ...SHOPPER, weight: { value: 110, unit: 'kg' } });

      expect(again.state).toBe('recommended');
      expect(again.answers).toEqual({ ...SHOPPER, weight: { value: 110, unit: 'kg' } });
      expectWellFormed(again.recommendation, shop);
      expect(again.recommendation.id).not.toBe(first.recommendation?.id);
      await expect(read(shop, first.id)).resolves.toEqual(again);

      const events = await sessionEvents(t, first.id);
      expect(types(events)).toEqual([
        'fit_completed',
        'fit_completed',
        'fit_started',
        'recommendation_generated',
        'recommendation_generated',
      ]);

      // the decision is judged against the current recommendation
      const decided = await decideRaw(shop, first.id, { size_label: again.recommendation.size_label });
      expect(decided.body).toMatchObject({ state: 'completed', outcome: 'accepted' });
    });

    it('reads back answers exactly as sent, units included', async () => {
      const shop = await newShop();
      const answers = { height: { value: 70, unit: 'in' }, weight: { value: 170, unit: 'lb' }, sex: 'female' };
      const session = await recommended(shop, answers);
      expect(session.answers).toEqual(answers);
      expect((await read(shop, session.id)).answers).toEqual(answers);
    });
  });

  // ——— measured answers ———

  describe('measured answers', () => {
    it('recommends M for a chest and waist measured inside M, and says they were answered', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 98, unit: 'cm' }, waist: { value: 83, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      const r = session.recommendation;
      expectWellFormed(r, shop);
      expect(r.size_label).toBe('M');
      expect(r.variant_id).toBe(shop.variants.M);
      expect(r.measurements.chest).toMatchObject({ value_cm: 98, source: 'answered' });
      expect(r.measurements.waist).toMatchObject({ value_cm: 83, source: 'answered' });
      // right in the middle of M in both zones, a tape measure away from S and L
      expect(r.fit).toEqual({ chest: 'regular', waist: 'regular' });
      expect(r.confidence).toBeGreaterThan(0.9);
    });

    it('gives the same size for the same measurements in inches', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const inCm = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 97.79, unit: 'cm' }, waist: { value: 82.55, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      const inInches = await recommended(
        shop,
        { ...SHOPPER, height: { value: 70.08, unit: 'in' }, chest: { value: 38.5, unit: 'in' }, waist: { value: 32.5, unit: 'in' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(inInches.recommendation, shop);
      expect(inInches.recommendation.size_label).toBe('M');
      expect(inInches.recommendation.size_label).toBe(inCm.recommendation?.size_label);
      expect(inInches.recommendation.measurements.chest.source).toBe('answered');
      // reported to a tenth of a centimetre
      expect(inInches.recommendation.measurements.chest.value_cm).toBeCloseTo(97.79, 1);
      expect(inInches.recommendation.measurements.waist.value_cm).toBeCloseTo(82.55, 1);
      expect(inInches.recommendation.measurements).toEqual(inCm.recommendation?.measurements);
      expect(inInches.recommendation.confidence).toBeCloseTo(inCm.recommendation?.confidence as number, 3);
      expect(inInches.answers).toMatchObject({ chest: { value: 38.5, unit: 'in' } });
    });

    it('answers the same recommendation to the same answers, on one session or another', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const answers = { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 80, unit: 'cm' } };
      const first = await recommended(shop, answers, { questionnaire_id: quiz.id });
      const again = await answer(shop, first.id, answers);
      const elsewhere = await recommended(shop, answers, { questionnaire_id: quiz.id });

      expect(again.recommendation?.id).not.toBe(first.recommendation?.id);
      expect(content(again.recommendation)).toEqual(content(first.recommendation));
      expect(content(elsewhere.recommendation)).toEqual(content(first.recommendation));

      const estimated = await recommended(shop);
      const estimatedAgain = await recommended(shop);
      expect(content(estimatedAgain.recommendation)).toEqual(content(estimated.recommendation));
    });

    it('recommends from measured chest and waist alone, without height or weight', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: false },
        { key: 'weight', required: false },
        { key: 'chest', required: true },
        { key: 'waist', required: true },
      ]);
      const session = await recommended(
        shop,
        { chest: { value: 106, unit: 'cm' }, waist: { value: 91, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe('L');
      expect(session.recommendation.measurements.chest).toMatchObject({ value_cm: 106, source: 'answered' });
      expect(session.recommendation.measurements.waist).toMatchObject({ value_cm: 91, source: 'answered' });
    });

    it('estimates the zones left unanswered from the ones answered', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(shop, { ...SHOPPER, chest: { value: 99, unit: 'cm' } }, { questionnaire_id: quiz.id });
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.measurements.chest).toMatchObject({ value_cm: 99, source: 'answered' });
      expect(session.recommendation.measurements.waist.source).toBe('estimated');
    });

    it('prefers the smallest size that contains every weighted zone when the zones disagree', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      // chest in the middle of S, waist in the middle of L: S and M would be too small at the waist
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 90, unit: 'cm' }, waist: { value: 91, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe('L');
      expect(session.recommendation.fit.waist).toBe('regular');
      expect(['loose', 'too_large']).toContain(session.recommendation.fit.chest);
    });
  });

  describe('what the product and its chart change', () => {
    it('reads a size chart written in inches in centimetres', async () => {
      const shop = await newShop();
      const inches = (lo: number, hi: number) => ({ min: lo, max: hi });
      const chart = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/size-charts`)
        .set(bearer(shop.secret))
        .send({
          name: 'Inch chart',
          unit: 'in',
          measurement_type: 'body',
          sizes: [
            { label: 'S', measurements: { chest: inches(34, 37), waist: inches(28, 31) } },
            { label: 'M', measurements: { chest: inches(37, 40), waist: inches(31, 34) } },
            { label: 'L', measurements: { chest: inches(40, 43), waist: inches(34, 37) } },
          ],
        });
      expect(chart.status).toBe(201);
      const product = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: chart.body.id })
      ).id;
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const sizeFor = async (chest: number, waist: number) => {
        const session = await recommended(
          shop,
          { ...SHOPPER, chest: { value: chest, unit: 'cm' }, waist: { value: waist, unit: 'cm' } },
          { product_id: product, questionnaire_id: quiz.id },
        );
        return session.recommendation;
      };
      // M is 93.98–101.6 cm at the chest and 78.74–86.36 cm at the waist
      await expect(sizeFor(97.8, 82.5)).resolves.toMatchObject({ size_label: 'M', variant_id: null });
      await expect(sizeFor(91, 76)).resolves.toMatchObject({ size_label: 'S' });
      await expect(sizeFor(102.5, 82.5)).resolves.toMatchObject({ size_label: 'L' });
      await expect(sizeFor(97.8, 87)).resolves.toMatchObject({ size_label: 'L' });
    });

    it('recommends a bigger size when the product runs small', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const answers = { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 86, unit: 'cm' } };
      const sizeWhen = async (fitAdjustment: string) => {
        const patched = await t
          .http()
          .patch(`/v1/stores/${shop.storeId}/products/${shop.productId}`)
          .set(bearer(shop.secret))
          .send({ fit_adjustment: fitAdjustment });
        expect(patched.status).toBe(200);
        return (await recommended(shop, answers, { questionnaire_id: quiz.id })).recommendation?.size_label;
      };
      await expect(sizeWhen('true_to_size')).resolves.toBe('M');
      await expect(sizeWhen('runs_small')).resolves.toBe('L');
      await expect(sizeWhen('runs_large')).resolves.toBe('M');
    });

    it('recommends a size the product has no variant of with variant_id null, and records a decision on it', async () => {
      const shop = await newShop();
      const bare = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      const onlyS = (await createVariant(t, shop.secret, shop.storeId, bare, { size_label: 'S' })).id;
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 86, unit: 'cm' } },
        { product_id: bare, questionnaire_id: quiz.id },
      );
      expect(session.recommendation).toMatchObject({ size_label: 'M', variant_id: null });
      for (const alternative of session.recommendation?.alternatives ?? []) {
        expect(alternative.variant_id).toBe(alternative.size_label === 'S' ? onlyS : null);
      }

      const decided = await decideRaw(shop, session.id, { size_label: 'M' });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ outcome: 'accepted', decision: { size_label: 'M', variant_id: null, outcome: 'accepted' } });
      const events = await sessionEvents(t, session.id);
      expect(events.find((e) => e.type === 'recommendation_generated')?.variant_id).toBeNull();
      expect(events.find((e) => e.type === 'recommendation_accepted')?.variant_id).toBeNull();
    });

    it('refuses to start a session on an archived product or questionnaire, and keeps the sessions already started', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, DEFAULT_QUESTIONS);
      const session = await recommended(shop, SHOPPER, { questionnaire_id: quiz.id });

      const quizGone = await t.http().delete(`/v1/stores/${shop.storeId}/questionnaires/${quiz.id}`).set(bearer(shop.secret));
      expect(quizGone.status).toBe(200);
      expectErrors(await startRaw(shop, { product_id: shop.productId, questionnaire_id: quiz.id }), [
        { field: 'questionnaire_id', code: 'archived' },
      ]);

      const productGone = await t.http().delete(`/v1/stores/${shop.storeId}/products/${shop.productId}`).set(bearer(shop.secret));
      expect(productGone.status).toBe(200);
      expect(productGone.body.archived_at).toMatch(TIMESTAMP);
      expectErrors(await startRaw(shop, { product_id: shop.productId }), [{ field: 'product_id', code: 'archived' }]);

      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect((await listRaw(shop)).body.data.map((s: Session) => s.id)).toEqual([session.id]);
    });
  });

  // ——— transactions ———

  describe('events recorded in the same transaction as the change', () => {
    it('leaves the session started, without answers or events, when the recommendation event cannot be written', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const eventsBefore = await sessionEvents(t, session.id);

      await withFailingEventInsert(t, session.id, ['recommendation_generated'], async () => {
        const failed = await answerRaw(shop, session.id, SHOPPER);
        expect(failed.status).toBeGreaterThanOrEqual(500);
        expect(failed.status).toBeLessThan(600);
        expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(JSON.stringify(failed.body)).not.toMatch(/injected|trigger|events|insert/i);

        await expect(read(shop, session.id)).resolves.toEqual(session);
        const events = await sessionEvents(t, session.id);
        expect(events).toEqual(eventsBefore);
        expect(events.filter((e) => e.type === 'fit_completed')).toHaveLength(0);
      });

      // with the database healthy again the same answers go through
      const answered = await answer(shop, session.id);
      expect(answered.state).toBe('recommended');
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_completed', 'fit_started', 'recommendation_generated']);
    });

    it('leaves the session recommended, without a decision, when the decision event cannot be written', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const eventsBefore = await sessionEvents(t, session.id);
      const size = session.recommendation?.size_label as SizeLabel;
      const other = SIZES.find((label) => label !== size) as SizeLabel;

      await withFailingEventInsert(t, session.id, DECISION_EVENTS, async () => {
        for (const body of [{ size_label: size }, { size_label: other }, { variant_id: shop.variants[other] }]) {
          const failed = await decideRaw(shop, session.id, body);
          expect(failed.status).toBeGreaterThanOrEqual(500);
          expect(failed.status).toBeLessThan(600);
          expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
          await expect(read(shop, session.id)).resolves.toEqual(session);
          await expect(sessionEvents(t, session.id)).resolves.toEqual(eventsBefore);
        }
      });

      const decided = await decideRaw(shop, session.id, { size_label: size });
      expect(decided.status).toBe(200);
      expect(decided.body.outcome).toBe('accepted');
    });
  });

  // ——— concurrency ———

  describe('concurrency', () => {
    it('lets exactly one of ten concurrent decisions through and refuses the others with 409', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const bodies = SIZES.flatMap((label) => [{ size_label: label }, { variant_id: shop.variants[label] }]).concat([
        { size_label: 'S' },
        { size_label: 'XL' },
      ]);
      expect(bodies).toHaveLength(10);

      const responses = await Promise.all(bodies.map((body) => decideRaw(shop, session.id, body)));

      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(409)]);
      for (const refused of responses.filter((r) => r.status !== 200)) expectProblem(refused, 409, 'session_state_conflict');
      const winner = responses.find((r) => r.status === 200) as Response;
      const final = await read(shop, session.id);
      expect(final).toEqual(winner.body);
      expect(final.state).toBe('completed');

      const decisions = (await sessionEvents(t, session.id)).filter((e) => DECISION_EVENTS.includes(e.type));
      expect(decisions).toHaveLength(1);
      expect(decisions[0].type).toBe(`recommendation_${final.outcome}`);
      expect(decisions[0].variant_id).toBe(final.decision?.variant_id);
    });

    it('serialises concurrent answers: none fails, and the session keeps exactly one current recommendation', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const weights = [55, 62, 70, 78, 86, 94, 102, 110];

      const responses = await Promise.all(
        weights.map((kg) => answerRaw(shop, session.id, { ...SHOPPER, weight: { value: kg, unit: 'kg' } })),
      );

      for (const response of responses) {
        expect([200, 409]).toContain(response.status);
        if (response.status === 409) expectProblem(response, 409, 'session_state_conflict');
      }
      const succeeded = responses.filter((r) => r.status === 200).length;
      expect(succeeded).toBeGreaterThanOrEqual(1);

      const final = await read(shop, session.id);
      expect(final.state).toBe('recommended');
      expectWellFormed(final.recommendation, shop);

      const events = await sessionEvents(t, session.id);
      const generated = events.filter((e) => e.type === 'recommendation_generated');
      expect(generated).toHaveLength(succeeded);
      expect(events.filter((e) => e.type === 'fit_completed')).toHaveLength(succeeded);
      // the stored recommendation is the one the last committed answer made, and its answers are that answer's
      const current = generated.find((e) => e.external_id.includes(final.recommendation?.id as string));
      expect(current).toBeDefined();
      const latest = Math.max(...generated.map((e) => new Date(e.occurred_at).getTime()));
      expect(new Date((current as EventRow).occurred_at).getTime()).toBe(latest);
      expect(weights).toContain((final.answers?.weight as { value: number }).value);
      const sameAnswers = await recommended(shop, final.answers as Record<string, unknown>);
      expect(content(sameAnswers.recommendation)).toEqual(content(final.recommendation));
    });

    it('lets answers racing a decision land before it or be refused, never after it', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const answers = [60, 80, 100, 120].map((kg) => answerRaw(shop, session.id, { ...SHOPPER, weight: { value: kg, unit: 'kg' } }));
      const decision = decideRaw(shop, session.id, { size_label: 'M' });
      const [decided, ...answered] = await Promise.all([decision, ...answers]);

      expect(decided.status).toBe(200);
      for (const response of answered) {
        expect([200, 409]).toContain(response.status);
        if (response.status === 409) expectProblem(response, 409, 'session_state_conflict');
      }
      const final = await read(shop, session.id);
      expect(final.state).toBe('completed');
      expect(final.outcome).toBe(final.recommendation?.size_label === 'M' ? 'accepted' : 'overridden');

      const events = await sessionEvents(t, session.id);
      const decidedAt = new Date(final.decision?.decided_at as string).getTime();
      for (const event of events.filter((e) => e.type === 'recommendation_generated')) {
        expect(new Date(event.occurred_at).getTime()).toBeLessThanOrEqual(decidedAt);
      }
      expect(events.filter((e) => e.type === 'recommendation_generated')).toHaveLength(1 + answered.filter((r) => r.status === 200).length);
    });
  });

  // ——— wrong states ———

  describe('moves the state does not allow', () => {
    it('refuses a decision before any answers with 409 and changes nothing', async () => {
      const shop = await newShop();
      const session = await start(shop);
      for (const body of [{ size_label: 'M' }, { variant_id: shop.variants.M }]) {
        expectProblem(await decideRaw(shop, session.id, body), 409, 'session_state_conflict');
      }
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });

    it('refuses a second decision with 409, the same size or another, and keeps the first', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const size = session.recommendation?.size_label as SizeLabel;
      const first = await decideRaw(shop, session.id, { size_label: size });
      expect(first.status).toBe(200);

      const other = SIZES.find((label) => label !== size) as SizeLabel;
      for (const body of [{ size_label: size }, { size_label: other }, { variant_id: shop.variants[other] }]) {
        expectProblem(await decideRaw(shop, session.id, body), 409, 'session_state_conflict');
      }
      await expect(read(shop, session.id)).resolves.toEqual(first.body);
      const events = await sessionEvents(t, session.id);
      expect(events.filter((e) => DECISION_EVENTS.includes(e.type))).toHaveLength(1);
    });

    it('refuses answers after the decision with 409 and keeps the recommendation', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const other = SIZES.find((label) => label !== session.recommendation?.size_label) as SizeLabel;
      const decided = await decideRaw(shop, session.id, { size_label: other });
      expect(decided.status).toBe(200);

      expectProblem(await answerRaw(shop, session.id, SHOPPER), 409, 'session_state_conflict');
      expectProblem(await answerRaw(shop, session.id, { ...SHOPPER, weight: { value: 120, unit: 'kg' } }), 409, 'session_state_conflict');
      await expect(read(shop, session.id)).resolves.toEqual(decided.body);
      expect(types(await sessionEvents(t, session.id))).toEqual([
        'fit_completed',
        'fit_started',
        'recommendation_generated',
        'recommendation_overridden',
      ]);
    });
  });

  // ——— validation ———

  describe('invalid answers', () => {
    it('lists every bad answer at once and leaves a started session as it was', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await answerRaw(shop, session.id, {
        height: { value: 500, unit: 'cm' },
        weight: { value: 80, unit: 'stone' },
        age: 5,
        sex: 'other',
        fit_preference: 'baggy',
        chest: { value: 100, unit: 'cm' },
      });
      expectErrors(response, [
        { field: 'answers.height.value', code: 'out_of_range' },
        { field: 'answers.weight.unit', code: 'not_allowed_value' },
        { field: 'answers.age', code: 'out_of_range' },
        { field: 'answers.sex', code: 'not_allowed_value' },
        { field: 'answers.fit_preference', code: 'not_allowed_value' },
        { field: 'answers.chest', code: 'not_asked' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });

    it('leaves a recommended session, its answers and its recommendation as they were', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const eventsBefore = await sessionEvents(t, session.id);
      const response = await answerRaw(shop, session.id, { height: 180, weight: { value: 10, unit: 'kg' }, age: 'old' });
      expectErrors(response, [
        { field: 'answers.height', code: 'must_be_measure' },
        { field: 'answers.weight.value', code: 'out_of_range' },
        { field: 'answers.age', code: 'must_be_number' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      await expect(sessionEvents(t, session.id)).resolves.toEqual(eventsBefore);
    });

    it.each([
      ['a height below 100 cm', { height: { value: 99, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height above 230 cm', { height: { value: 231, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height of 91 in (231.1 cm)', { height: { value: 91, unit: 'in' } }, 'answers.height.value', 'out_of_range'],
      ['a height in metres', { height: { value: 1.8, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height in feet', { height: { value: 6, unit: 'ft' } }, 'answers.height.unit', 'not_allowed_value'],
      ['a height without a unit', { height: { value: 180 } }, 'answers.height.unit', 'not_allowed_value'],
      ['a height as a string', { height: { value: '180', unit: 'cm' } }, 'answers.height.value', 'must_be_number'],
      ['a bare number for height', { height: 180 }, 'answers.height', 'must_be_measure'],
      ['a height with an extra field', { height: { value: 180, unit: 'cm', note: 'x' } }, 'answers.height', 'must_be_measure'],
      ['a weight below 30 kg', { weight: { value: 29, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight above 250 kg', { weight: { value: 251, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight of 552 lb (250.4 kg)', { weight: { value: 552, unit: 'lb' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight of 60 lb (27.2 kg)', { weight: { value: 60, unit: 'lb' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight in centimetres', { weight: { value: 80, unit: 'cm' } }, 'answers.weight.unit', 'not_allowed_value'],
      ['a negative weight', { weight: { value: -80, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['an age of 12', { age: 12 }, 'answers.age', 'out_of_range'],
      ['an age of 101', { age: 101 }, 'answers.age', 'out_of_range'],
      ['an age as a string', { age: '30' }, 'answers.age', 'must_be_number'],
      ['a sex in capitals', { sex: 'Female' }, 'answers.sex', 'not_allowed_value'],
      ['an unknown fit preference', { fit_preference: 'loose' }, 'answers.fit_preference', 'not_allowed_value'],
      ['a zone the questions do not ask', { hip: { value: 100, unit: 'cm' } }, 'answers.hip', 'not_asked'],
      ['an unknown key', { shoe_size: 42 }, 'answers.shoe_size', 'not_asked'],
      ['a custom key not asked', { 'custom:foo': 'bar' }, 'answers.custom:foo', 'not_asked'],
    ])('refuses %s with 400 naming it', async (_, bad, field, code) => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await answerRaw(shop, session.id, { ...SHOPPER, ...bad });
      expectErrors(response, [{ field, code }]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('refuses a missing required answer with 400 required', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const { height: _h, weight: _w, ...rest } = SHOPPER;
      expectErrors(await answerRaw(shop, session.id, rest), [
        { field: 'answers.height', code: 'required' },
        { field: 'answers.weight', code: 'required' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it.each([
      ['answers that are not an object', { answers: [1, 2] }],
      ['answers that are a string', { answers: 'tall' }],
      ['no answers', {}],
      ['an unknown field beside the answers', { answers: SHOPPER, shopper: 'x' }],
    ])('refuses %s with 400', async (_, body) => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await t
        .http()
        .post(`${sessionsPath(shop.storeId)}/${session.id}/answers`)
        .set(bearer(shop.secret))
        .send(body);
      expectProblem(response, 400, 'validation_failed');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it.each([
      ['a height of 90 in (228.6 cm)', { height: { value: 90, unit: 'in' } }],
      ['a height of exactly 100 cm', { height: { value: 100, unit: 'cm' } }],
      ['a height of exactly 230 cm', { height: { value: 230, unit: 'cm' } }],
      ['a weight of exactly 30 kg', { weight: { value: 30, unit: 'kg' } }],
      ['a weight of exactly 250 kg', { weight: { value: 250, unit: 'kg' } }],
      ['a weight of 550 lb (249.5 kg)', { weight: { value: 550, unit: 'lb' } }],
      ['an age of 13', { age: 13 }],
      ['an age of 100', { age: 100 }],
      ['a fractional age', { age: 40.5 }],
    ])('accepts %s and recommends', async (_, answers) => {
      const shop = await newShop();
      const session = await recommended(shop, { ...SHOPPER, ...answers });
      expectWellFormed(session.recommendation, shop);
    });

    it.each([
      ['the shortest and heaviest body', { height: { value: 100, unit: 'cm' }, weight: { value: 250, unit: 'kg' } }],
      ['the tallest and lightest body', { height: { value: 230, unit: 'cm' }, weight: { value: 30, unit: 'kg' } }],
      ['the shortest and lightest body', { height: { value: 100, unit: 'cm' }, weight: { value: 30, unit: 'kg' }, age: 13 }],
      ['the tallest and heaviest body', { height: { value: 230, unit: 'cm' }, weight: { value: 250, unit: 'kg' }, age: 100 }],
      ['a very heavy woman', { height: { value: 150, unit: 'cm' }, weight: { value: 200, unit: 'kg' }, sex: 'female' }],
      ['a very light man', { height: { value: 200, unit: 'cm' }, weight: { value: 45, unit: 'kg' }, sex: 'male' }],
    ])('gives a well-formed recommendation to %s', async (_, answers) => {
      const shop = await newShop();
      const session = await recommended(shop, answers);
      expectWellFormed(session.recommendation, shop);
    });

    it.each([
      ['the smallest chest and the largest waist', { chest: { value: 50, unit: 'cm' }, waist: { value: 200, unit: 'cm' } }, 'XL'],
      ['the largest girths', { chest: { value: 200, unit: 'cm' }, waist: { value: 200, unit: 'cm' } }, 'XL'],
      ['the smallest girths', { chest: { value: 50, unit: 'cm' }, waist: { value: 40, unit: 'cm' } }, 'S'],
    ])('gives a well-formed recommendation to %s', async (_, zones, size) => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(shop, { ...SHOPPER, ...zones }, { questionnaire_id: quiz.id });
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe(size);
    });

    it('refuses a girth no human has, in either unit', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await start(shop, { questionnaire_id: quiz.id });
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 500, unit: 'cm' } }), [
        { field: 'answers.chest.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, waist: { value: 100, unit: 'in' } }), [
        { field: 'answers.waist.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 10, unit: 'cm' } }), [
        { field: 'answers.chest.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 100, unit: 'kg' } }), [
        { field: 'answers.chest.unit', code: 'not_allowed_value' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('refuses height and weight left out when nothing else measures the body, naming both', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: false },
        { key: 'weight', required: false },
        { key: 'age', required: false },
        { key: 'sex', required: false },
        { key: 'chest', required: false },
        { key: 'waist', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      expectErrors(await answerRaw(shop, session.id, { sex: 'female', age: 30 }), [
        { field: 'answers.height', code: 'needed_for_recommendation' },
        { field: 'answers.weight', code: 'needed_for_recommendation' },
      ]);
      expectErrors(await answerRaw(shop, session.id, {}), [
        { field: 'answers.height', code: 'needed_for_recommendation' },
        { field: 'answers.weight', code: 'needed_for_recommendation' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { weight: { value: 70, unit: 'kg' }, chest: { value: 98, unit: 'cm' } }), [
        { field: 'answers.height', code: 'needed_for_recommendation' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { height: { value: 170, unit: 'cm' }, waist: { value: 80, unit: 'cm' } }), [
        { field: 'answers.weight', code: 'needed_for_recommendation' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });
  });

  describe('invalid decisions', () => {
    it.each([
      ['both a size and a variant', (shop: Shop) => ({ size_label: 'M', variant_id: shop.variants.M }), ['size_label', 'variant_id']],
      ['neither a size nor a variant', () => ({}), ['size_label', 'variant_id']],
      ['an unknown size label', () => ({ size_label: 'XXL' }), ['size_label']],
      ['a size label of another case', () => ({ size_label: 'm' }), ['size_label']],
      ['an unknown variant', () => ({ variant_id: MISSING_ID }), ['variant_id']],
      ['a variant id that is not an id', () => ({ variant_id: 'M' }), ['variant_id']],
      ['an unknown field', () => ({ size_label: 'M', size: 'M' }), ['size']],
    ])('refuses %s with 400 and keeps the session recommended', async (_, body, fields) => {
      const shop = await newShop();
      const session = await recommended(shop);
      const response = await decideRaw(shop, session.id, body(shop));
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(fields);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_completed', 'fit_started', 'recommendation_generated']);
    });

    it('refuses a variant of another product, even of the same size, with 400', async () => {
      const shop = await newShop();
      const otherProduct = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      const otherVariant = (await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: 'M' })).id;
      const session = await recommended(shop);

      const response = await decideRaw(shop, session.id, { variant_id: otherVariant });
      expectErrors(response, [{ field: 'variant_id', code: 'not_found' }]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it("refuses a variant of another merchant's product with 400", async () => {
      const shop = await newShop();
      const stranger = await newShop();
      const session = await recommended(shop);
      const response = await decideRaw(shop, session.id, { variant_id: stranger.variants.M });
      expectErrors(response, [{ field: 'variant_id', code: 'not_found' }]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });
  });

  describe('starting a session', () => {
    it.each([
      ['no product', () => ({}), 'product_id'],
      ['a product id that is not an id', () => ({ product_id: 'tee' }), 'product_id'],
      ['an unknown product', () => ({ product_id: MISSING_ID }), 'product_id'],
      ['an unknown questionnaire', (shop: Shop) => ({ product_id: shop.productId, questionnaire_id: MISSING_ID }), 'questionnaire_id'],
      ['an unknown field', (shop: Shop) => ({ product_id: shop.productId, state: 'completed' }), 'state'],
    ])('refuses %s with 400 and starts nothing', async (_, body, field) => {
      const shop = await newShop();
      const response = await startRaw(shop, body(shop));
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
      expect((await listRaw(shop)).body.data).toEqual([]);
    });

    it("refuses another merchant's product and another merchant's questionnaire with 400", async () => {
      const shop = await newShop();
      const stranger = await newShop();
      const strangersQuiz = await createQuestionnaire(t, stranger.storeId, stranger.secret, DEFAULT_QUESTIONS);
      expectErrors(await startRaw(shop, { product_id: stranger.productId }), [{ field: 'product_id', code: 'not_found' }]);
      expectErrors(await startRaw(shop, { product_id: shop.productId, questionnaire_id: strangersQuiz.id }), [
        { field: 'questionnaire_id', code: 'not_found' },
      ]);
      expect((await listRaw(shop)).body.data).toEqual([]);
    });
  });

  // ——— tenancy and access ———

  describe('who may see and move a session', () => {
    it('answers 404 for a session that does not exist', async () => {
      const shop = await newShop();
      for (const id of [MISSING_ID, 'not-an-id']) {
        expectProblem(await getRaw(shop, id), 404, 'not_found');
        expectProblem(await answerRaw(shop, id, SHOPPER), 404, 'not_found');
        expectProblem(await decideRaw(shop, id, { size_label: 'M' }), 404, 'not_found');
      }
    });

    it("answers 404 for another merchant's session and leaves it alone", async () => {
      const owner = await newShop();
      const stranger = await newShop();
      const session = await recommended(owner);
      const eventsBefore = await sessionEvents(t, session.id);

      // the stranger's key on its own store, naming the owner's session
      const asStranger = { ...owner, storeId: stranger.storeId, secret: stranger.secret };
      expectProblem(await getRaw(asStranger, session.id), 404, 'not_found');
      expectProblem(await answerRaw(asStranger, session.id, SHOPPER), 404, 'not_found');
      expectProblem(await decideRaw(asStranger, session.id, { size_label: 'M' }), 404, 'not_found');
      expect((await listRaw(asStranger)).body.data).toEqual([]);
      // the stranger's key on the owner's store
      expectProblem(await getRaw({ ...owner, secret: stranger.secret }, session.id), 404, 'not_found');
      expectProblem(await decideRaw({ ...owner, secret: stranger.secret }, session.id, { size_label: 'M' }), 404, 'not_found');

      await expect(read(owner, session.id)).resolves.toEqual(session);
      await expect(sessionEvents(t, session.id)).resolves.toEqual(eventsBefore);
    });

    it("answers 404 for a session of the merchant's other store", async () => {
      const shop = await newShop();
      const otherStore = await createStore(t, shop.secret);
      const session = await recommended(shop);
      const elsewhere = { ...shop, storeId: otherStore };
      expectProblem(await getRaw(elsewhere, session.id), 404, 'not_found');
      expectProblem(await decideRaw(elsewhere, session.id, { size_label: 'M' }), 404, 'not_found');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('lets a fit key bound to the store run the whole flow', async () => {
      const shop = await newShop();
      const fit = await issueKey(t, shop.secret, { scopes: ['fit'], store_id: shop.storeId });
      const asFit = { ...shop, secret: fit.secret };
      const started = await startRaw(asFit, { product_id: shop.productId });
      expect(started.status).toBe(201);
      expect((await answerRaw(asFit, started.body.id, SHOPPER)).status).toBe(200);
      expect((await decideRaw(asFit, started.body.id, { size_label: 'S' })).status).toBe(200);
      expect((await getRaw(asFit, started.body.id)).body.state).toBe('completed');
      expect((await listRaw(asFit)).body.data.map((s: Session) => s.id)).toEqual([started.body.id]);
    });

    it('refuses a fit key bound to another store with 403 store_forbidden', async () => {
      const shop = await newShop();
      const otherStore = await createStore(t, shop.secret);
      const foreign = await issueKey(t, shop.secret, { scopes: ['fit'], store_id: otherStore });
      const session = await recommended(shop);

      expectProblem(await startRaw(shop, { product_id: shop.productId }, foreign.secret), 403, 'store_forbidden');
      expectProblem(await getRaw(shop, session.id, foreign.secret), 403, 'store_forbidden');
      expectProblem(await listRaw(shop, '', foreign.secret), 403, 'store_forbidden');
      expectProblem(await answerRaw(shop, session.id, SHOPPER, foreign.secret), 403, 'store_forbidden');
      expectProblem(await decideRaw(shop, session.id, { size_label: 'M' }, foreign.secret), 403, 'store_forbidden');
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect((await listRaw(shop)).body.data).toHaveLength(1);
    });

    it.each([['catalog'], ['events'], ['analytics']])('refuses a %s-only key with 403 insufficient_scope', async (scope) => {
      const shop = await newShop();
      const key = await issueKey(t, shop.secret, { scopes: [scope], store_id: shop.storeId });
      const session = await recommended(shop);

      expectProblem(await startRaw(shop, { product_id: shop.productId }, key.secret), 403, 'insufficient_scope');
      expectProblem(await getRaw(shop, session.id, key.secret), 403, 'insufficient_scope');
      expectProblem(await listRaw(shop, '', key.secret), 403, 'insufficient_scope');
      expectProblem(await answerRaw(shop, session.id, SHOPPER, key.secret), 403, 'insufficient_scope');
      expectProblem(await decideRaw(shop, session.id, { size_label: 'M' }, key.secret), 403, 'insufficient_scope');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('refuses a call without a key with 401', async () => {
      const shop = await newShop();
      const response = await t.http().post(sessionsPath(shop.storeId)).send({ product_id: shop.productId });
      expectProblem(response, 401, 'unauthenticated');
    });
  });

  // ——— questionnaires ———

  describe('questionnaires', () => {
    it('asks the questions of the questionnaire named, at its version', async () => {
      const shop = await newShop();
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
      ];
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, questions);
      const session = await start(shop, { questionnaire_id: quiz.id });
      expect(session).toMatchObject({ questionnaire_id: quiz.id, questionnaire_version: quiz.version, questions, state: 'started' });
    });

    it('refuses answers without a required chest, and answers the questionnaire does not ask', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const body = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' } };

      expectErrors(await answerRaw(shop, session.id, body), [{ field: 'answers.chest', code: 'required' }]);
      expectErrors(
        await answerRaw(shop, session.id, { ...body, chest: { value: 98, unit: 'cm' }, sex: 'male', waist: { value: 80, unit: 'cm' } }),
        [
          { field: 'answers.sex', code: 'not_asked' },
          { field: 'answers.waist', code: 'not_asked' },
        ],
      );
      expectErrors(await answerRaw(shop, session.id, { ...body, age: 30 }), [
        { field: 'answers.chest', code: 'required' },
        { field: 'answers.age', code: 'not_asked' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });

    it('stores custom answers and returns them, without letting them change the recommendation', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
        { key: 'custom:likes_oversized', required: false },
      ]);
      const base = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, chest: { value: 98, unit: 'cm' } };
      const answers = { ...base, 'custom:foo': 'bar', 'custom:likes_oversized': true };
      const withCustom = await recommended(shop, answers, { questionnaire_id: quiz.id });
      expect(withCustom.answers).toEqual(answers);
      expect((await read(shop, withCustom.id)).answers).toEqual(answers);
      expectWellFormed(withCustom.recommendation, shop);
      expect(withCustom.recommendation.measurements.chest.source).toBe('answered');

      const without = await recommended(shop, base, { questionnaire_id: quiz.id });
      expect(content(without.recommendation)).toEqual(content(withCustom.recommendation));
    });

    it('refuses a custom answer that is not a number, a boolean or a short string', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'custom:foo', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const base = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' } };
      for (const bad of [{ nested: true }, ['a'], 'x'.repeat(501), null]) {
        expectErrors(await answerRaw(shop, session.id, { ...base, 'custom:foo': bad }), [
          { field: 'answers.custom:foo', code: 'invalid_custom_answer' },
        ]);
      }
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it("uses the store's default questionnaire when the session names none", async () => {
      const shop = await newShop();
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'waist', required: true },
      ];
      const created = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/questionnaires`)
        .set(bearer(shop.secret))
        .send({ name: 'Default quiz', questions, default: true });
      expect(created.status).toBe(201);
      const session = await start(shop);
      expect(session).toMatchObject({ questionnaire_id: created.body.id, questionnaire_version: 1, questions });
      expectErrors(await answerRaw(shop, session.id, SHOPPER), [
        { field: 'answers.waist', code: 'required' },
        { field: 'answers.age', code: 'not_asked' },
        { field: 'answers.sex', code: 'not_asked' },
        { field: 'answers.fit_preference', code: 'not_asked' },
      ]);
    });

    it('keeps the questions a session started with when the questionnaire is edited later', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, DEFAULT_QUESTIONS);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const edited = await t
        .http()
        .patch(`/v1/stores/${shop.storeId}/questionnaires/${quiz.id}`)
        .set(bearer(shop.secret))
        .send({ questions: [...DEFAULT_QUESTIONS, { key: 'chest', required: true }] });
      expect(edited.status).toBe(200);
      expect(edited.body.version).toBe(quiz.version + 1);

      const answered = await answer(shop, session.id, SHOPPER);
      expect(answered).toMatchObject({ questionnaire_version: quiz.version, questions: DEFAULT_QUESTIONS, state: 'recommended' });
      const later = await start(shop, { questionnaire_id: quiz.id });
      expect(later.questionnaire_version).toBe(quiz.version + 1);
      expectErrors(await answerRaw(shop, later.id, SHOPPER), [{ field: 'answers.chest', code: 'required' }]);
    });
  });

  // ——— incomplete profiles ———

  describe('what the engine makes of a partial profile', () => {
    it('recommends without sex and age, estimating every zone', async () => {
      const shop = await newShop();
      const session = await recommended(shop, { height: { value: 170, unit: 'cm' }, weight: { value: 68, unit: 'kg' } });
      expectWellFormed(session.recommendation, shop);
      for (const zone of ['chest', 'waist']) expect(session.recommendation.measurements[zone].source).toBe('estimated');
    });

    it('gives a valid recommendation for an unknown sex, a woman and a man of the same height and weight', async () => {
      const shop = await newShop();
      const base = { height: { value: 170, unit: 'cm' }, weight: { value: 70, unit: 'kg' }, age: 40 };
      const results: Record<string, Recommendation> = {};
      for (const sex of ['unknown', 'female', 'male']) {
        const session = await recommended(shop, sex === 'unknown' ? base : { ...base, sex });
        expectWellFormed(session.recommendation, shop);
        results[sex] = session.recommendation;
      }
      // the unknown sex is a mixture of the two, so its estimate lies between theirs
      for (const zone of ['chest', 'waist']) {
        const [f, m, u] = [results.female, results.male, results.unknown].map((r) => r.measurements[zone].value_cm);
        expect(u).toBeGreaterThanOrEqual(Math.min(f, m) - 0.5);
        expect(u).toBeLessThanOrEqual(Math.max(f, m) + 0.5);
      }
    });

    it('recommends for every preference and the tighter preference never gets a bigger size than looser', async () => {
      const shop = await newShop();
      const sizes: Record<string, string> = {};
      for (const preference of ['tighter', 'regular', 'looser']) {
        const session = await recommended(shop, { ...SHOPPER, fit_preference: preference });
        expectWellFormed(session.recommendation, shop);
        sizes[preference] = session.recommendation.size_label;
      }
      expect(rank(sizes.tighter)).toBeLessThanOrEqual(rank(sizes.regular));
      expect(rank(sizes.regular)).toBeLessThanOrEqual(rank(sizes.looser));
    });
  });

  describe('a bigger body', () => {
    it.each([
      ['an unknown sex', {}],
      ['a woman', { sex: 'female' }],
      ['a man', { sex: 'male' }],
    ])('never gets a smaller size as the weight grows from 60 to 120 kg, for %s', async (_, extra) => {
      const shop = await newShop();
      const session = await start(shop);
      for (const cm of [160, 175, 190]) {
        const sizes: { kg: number; size: string }[] = [];
        for (let kg = 60; kg <= 120; kg += 5) {
          const answered = await answer(shop, session.id, {
            height: { value: cm, unit: 'cm' },
            weight: { value: kg, unit: 'kg' },
            ...extra,
          });
          expectWellFormed(answered.recommendation, shop);
          sizes.push({ kg, size: answered.recommendation.size_label });
        }
        const shrinks = sizes.filter((s, i) => i > 0 && rank(s.size) < rank(sizes[i - 1].size));
        expect({ height: cm, shrinks }).toEqual({ height: cm, shrinks: [] });
        expect(rank(sizes[sizes.length - 1].size)).toBeGreaterThan(rank(sizes[0].size));
      }
    });
  });

  // ——— listing ———

  describe('listing', () => {
    it('lists the store’s sessions newest first, filtered by state and product, in pages', async () => {
      const shop = await newShop();
      const otherProduct = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      for (const label of SIZES) await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: label });

      const started = await start(shop);
      const answered = await recommended(shop);
      const completed = await recommended(shop);
      expect((await decideRaw(shop, completed.id, { size_label: 'M' })).status).toBe(200);
      const onOther = await start(shop, { product_id: otherProduct });

      const ids = async (query: string) => {
        const response = await listRaw(shop, query);
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
        return (response.body.data as Session[]).map((s) => s.id);
      };
      await expect(ids('')).resolves.toEqual([onOther.id, completed.id, answered.id, started.id]);
      await expect(ids('?state=started')).resolves.toEqual([onOther.id, started.id]);
      await expect(ids('?state=recommended')).resolves.toEqual([answered.id]);
      await expect(ids('?state=completed')).resolves.toEqual([completed.id]);
      await expect(ids(`?product_id=${shop.productId}`)).resolves.toEqual([completed.id, answered.id, started.id]);
      await expect(ids(`?product_id=${otherProduct}&state=started`)).resolves.toEqual([onOther.id]);
      await expect(ids(`?product_id=${otherProduct}&state=completed`)).resolves.toEqual([]);

      const firstPage = await listRaw(shop, '?limit=3');
      expect(firstPage.body.data.map((s: Session) => s.id)).toEqual([onOther.id, completed.id, answered.id]);
      expect(firstPage.body).toMatchObject({ has_more: true, next_cursor: answered.id });
      const secondPage = await listRaw(shop, `?limit=3&starting_after=${firstPage.body.next_cursor}`);
      expect(secondPage.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(secondPage.body.data.map((s: Session) => s.id)).toEqual([started.id]);

      const listed = (await listRaw(shop, '?state=completed')).body.data[0];
      await expect(read(shop, completed.id)).resolves.toEqual(listed);
    });

    it.each([
      ['an unknown state', '?state=abandoned', 'state'],
      ['a product id that is not an id', '?product_id=tee', 'product_id'],
    ])('refuses %s with 400', async (_, query, field) => {
      const shop = await newShop();
      const response = await listRaw(shop, query);
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    });
  });
});
