/**
 * Fit sessions e2e: start, answers, recommendation and decision; the events each step records in its transaction;
 * concurrent moves; the moves the state refuses; invalid decisions.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import { expectErrors, expectProblem, MISSING_ID, TIMESTAMP } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { SHOPPER } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import {
  content,
  DEFAULT_QUESTIONS,
  type EventRow,
  expectWellFormed,
  type Session,
  sessionEvents,
  type Shop,
  type SizeLabel,
  SIZES,
  types,
  withFailingEventInsert,
} from '../../support/session-fixtures.js';

const DECISION_EVENTS = ['recommendation_accepted', 'recommendation_overridden'];

describe('fit sessions', () => {
  const t = useApp();
  const { startRaw, answerRaw, decideRaw, newShop, start, answer, recommended, read } = sessionsApi(t);

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

    it('records a size of the chart that has no variant left with variant_id null', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const other = SIZES.find((label) => label !== session.recommendation?.size_label) as SizeLabel;
      const removed = await t
        .http()
        .delete(`/v1/stores/${shop.storeId}/products/${shop.productId}/variants/${shop.variants[other]}`)
        .set('Authorization', `Bearer ${shop.secret}`);
      expect(removed.status).toBeLessThan(300);

      const decided = await decideRaw(shop, session.id, { size_label: other });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ outcome: 'overridden', decision: { size_label: other, variant_id: null } });
      const events = await sessionEvents(t, session.id);
      expect(events.find((e) => e.type === 'recommendation_overridden')?.variant_id).toBeNull();
    });

    it('takes the recommended size after the chart lost it (an edit may drop a size no variant has): accepted', async () => {
      // the size these answers get, learned on a shop of the same chart
      const size = (await recommended(await newShop())).recommendation?.size_label as SizeLabel;
      const shop = await newShop();
      const path = `/v1/stores/${shop.storeId}`;
      const auth = { Authorization: `Bearer ${shop.secret}` };
      // the product has no variant of that size (deleted before any event named it), so the chart may drop it
      const removed = await t.http().delete(`${path}/products/${shop.productId}/variants/${shop.variants[size]}`).set(auth);
      expect(removed.status).toBeLessThan(300);
      const session = await recommended(shop);
      expect(session.recommendation?.size_label).toBe(size);
      const chart = await t.http().get(`${path}/size-charts/${shop.sizeChartId}`).set(auth);
      const sizes = (chart.body.sizes as { label: string }[]).filter((s) => s.label !== size);
      const edited = await t.http().patch(`${path}/size-charts/${shop.sizeChartId}`).set(auth).send({ sizes });
      expect(edited.status).toBe(200);

      const decided = await decideRaw(shop, session.id, { size_label: size });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ state: 'completed', outcome: 'accepted', decision: { size_label: size, variant_id: null } });
      // a size the chart no longer has, and that the session did not recommend, is still refused
      const other = await recommended(shop);
      expect(other.recommendation?.size_label).not.toBe(size);
      expectErrors(await decideRaw(shop, other.id, { size_label: size }), { size_label: 'unknown_size' });
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
});
