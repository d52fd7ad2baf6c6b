/**
 * SessionsService over a real database, without HTTP: start → answers → decision as the API answers them, the answers'
 * field errors, the moves the state refuses, concurrent decisions, and the store a session belongs to.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { SessionEventsService } from '../../src/events/session-events.service.js';
import type { SessionResponse } from '../../src/fit/dto/session.dto.js';
import { FitModule } from '../../src/fit/fit.module.js';
import { SessionsService } from '../../src/fit/sessions.service.js';
import { TIMESTAMP } from '../support/fixtures.js';
import { SHOPPER } from '../support/metrics-fixtures.js';
import { asSent, createServiceShop, problemOf, type ServiceShop } from '../support/service-fixtures.js';
import { useServiceModule } from '../support/service-module.js';
import { DEFAULT_QUESTIONS, expectWellFormed, type Recommendation, type SizeLabel, SIZES } from '../support/session-fixtures.js';

const DECISION_EVENTS = ['recommendation_accepted', 'recommendation_overridden'];

describe('SessionsService', () => {
  const m = useServiceModule([FitModule]);
  const sessions = () => m.get(SessionsService);

  /** The types of the events recorded for a session, sorted. */
  const eventTypes = async (sessionId: string): Promise<string[]> =>
    (await m.dataSource.query<{ type: string }[]>(`SELECT type FROM events WHERE session_id = $1`, [sessionId])).map((e) => e.type).sort();
  const recommendationOf = (session: SessionResponse) => asSent(session).recommendation as unknown as Recommendation;
  /** A session of the shop with its recommendation for SHOPPER. */
  const recommended = async (shop: ServiceShop): Promise<SessionResponse> => {
    const started = await sessions().start(shop.store, { product_id: shop.productId });
    return sessions().answer(shop.store, started.id, { answers: SHOPPER });
  };
  const otherSize = (size: string) => SIZES.find((label) => label !== size) as SizeLabel;

  it('starts, recommends a size whose probabilities sum to 1, stores the accepted decision, each move with its events', async () => {
    const shop = await createServiceShop(m);

    const started = await sessions().start(shop.store, { product_id: shop.productId });
    expect(asSent(started)).toEqual({
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
    expect(asSent(await sessions().get(shop.store, started.id))).toEqual(asSent(started));
    expect(await eventTypes(started.id)).toEqual(['fit_started']);

    const answered = await sessions().answer(shop.store, started.id, { answers: SHOPPER });
    expect(asSent(answered)).toMatchObject({ id: started.id, state: 'recommended', outcome: null, decision: null, answers: SHOPPER });
    const recommendation = recommendationOf(answered);
    expectWellFormed(recommendation, shop);
    // the probabilities of every size of the chart: the recommended one and its alternatives
    const sizes = [recommendation.confidence, ...recommendation.alternatives.map((a) => a.confidence)];
    expect(Math.abs(sizes.reduce((sum, p) => sum + p, 0) - 1)).toBeLessThanOrEqual(0.02);
    expect(asSent(await sessions().get(shop.store, started.id))).toEqual(asSent(answered));
    expect(await eventTypes(started.id)).toEqual(['fit_completed', 'fit_started', 'recommendation_generated']);

    const decided = await sessions().decide(shop.store, started.id, { size_label: recommendation.size_label });
    expect(asSent(decided)).toMatchObject({
      state: 'completed',
      outcome: 'accepted',
      recommendation,
      decision: {
        size_label: recommendation.size_label,
        variant_id: shop.variants[recommendation.size_label],
        outcome: 'accepted',
        decided_at: expect.stringMatching(TIMESTAMP),
      },
    });
    expect(asSent(await sessions().get(shop.store, started.id))).toEqual(asSent(decided));
    expect(await eventTypes(started.id)).toEqual(['fit_completed', 'fit_started', 'recommendation_accepted', 'recommendation_generated']);
  });

  it('stores an override, with the variant of the size chosen, by label or by variant', async () => {
    const shop = await createServiceShop(m);
    for (const choose of [(size: SizeLabel) => ({ size_label: size }), (size: SizeLabel) => ({ variant_id: shop.variants[size] })]) {
      const session = await recommended(shop);
      const other = otherSize(recommendationOf(session).size_label);
      const decided = await sessions().decide(shop.store, session.id, choose(other));
      expect(decided).toMatchObject({
        state: 'completed',
        outcome: 'overridden',
        decision: { size_label: other, variant_id: shop.variants[other], outcome: 'overridden' },
      });
      expect(await eventTypes(session.id)).toContain('recommendation_overridden');
    }
  });

  it('gives the same answers the same recommendation, and answering again replaces it', async () => {
    const shop = await createServiceShop(m);
    const [a, b] = [await recommended(shop), await recommended(shop)];
    const { id: _a, created_at: _at, ...first } = recommendationOf(a);
    const { id: _b, created_at: _bt, ...second } = recommendationOf(b);
    expect(second).toEqual(first);

    const heavier = { ...SHOPPER, weight: { value: 110, unit: 'kg' } };
    const again = await sessions().answer(shop.store, a.id, { answers: heavier });
    expect(again.answers).toEqual(heavier);
    expect(recommendationOf(again).id).not.toBe(recommendationOf(a).id);
    expect(asSent(await sessions().get(shop.store, a.id))).toEqual(asSent(again));
  });

  describe('answers', () => {
    it('are refused with every field error at once, leaving the session and its events as they were', async () => {
      const shop = await createServiceShop(m);
      const session = await sessions().start(shop.store, { product_id: shop.productId });
      const answers = {
        height: { value: 500, unit: 'cm' },
        weight: { value: 80, unit: 'stone' },
        age: 5,
        sex: 'other',
        fit_preference: 'baggy',
        chest: { value: 100, unit: 'cm' },
      };
      expect(await problemOf(sessions().answer(shop.store, session.id, { answers }))).toEqual({
        status: 400,
        code: 'validation_failed',
        errors: [
          { field: 'answers.age', code: 'out_of_range' },
          { field: 'answers.chest', code: 'not_asked' },
          { field: 'answers.fit_preference', code: 'not_allowed_value' },
          { field: 'answers.height.value', code: 'out_of_range' },
          { field: 'answers.sex', code: 'not_allowed_value' },
          { field: 'answers.weight.unit', code: 'not_allowed_value' },
        ],
      });
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
      expect(await eventTypes(session.id)).toEqual(['fit_started']);
    });

    it('name each required answer missing, and leave a recommended session with its recommendation', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const { height: _h, weight: _w, ...rest } = SHOPPER;
      expect(await problemOf(sessions().answer(shop.store, session.id, { answers: rest }))).toEqual({
        status: 400,
        code: 'validation_failed',
        errors: [
          { field: 'answers.height', code: 'required' },
          { field: 'answers.weight', code: 'required' },
        ],
      });
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
      expect(await eventTypes(session.id)).toEqual(['fit_completed', 'fit_started', 'recommendation_generated']);
    });

    it('are refused once the decision is stored (409), which stays', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const decided = await sessions().decide(shop.store, session.id, { size_label: 'S' });
      expect(await problemOf(sessions().answer(shop.store, session.id, { answers: SHOPPER }))).toEqual({
        status: 409,
        code: 'session_state_conflict',
      });
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(decided));
    });
  });

  describe('the decision', () => {
    it('is taken once: a second one, the same or another, conflicts (409) and the first stays with its one event', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const size = recommendationOf(session).size_label;
      const first = await sessions().decide(shop.store, session.id, { size_label: size });
      for (const request of [{ size_label: size }, { size_label: otherSize(size) }, { variant_id: shop.variants[size] }]) {
        expect(await problemOf(sessions().decide(shop.store, session.id, request))).toEqual({
          status: 409,
          code: 'session_state_conflict',
        });
      }
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(first));
      expect((await eventTypes(session.id)).filter((type) => DECISION_EVENTS.includes(type))).toEqual(['recommendation_accepted']);
    });

    it('goes to exactly one of ten concurrent decisions; the others conflict', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const requests = SIZES.flatMap((label) => [{ size_label: label }, { variant_id: shop.variants[label] }]).concat([
        { size_label: 'S' },
        { size_label: 'XL' },
      ]);
      const settled = await Promise.allSettled(requests.map((request) => sessions().decide(shop.store, session.id, request)));
      const won = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      expect(won).toHaveLength(1);
      for (const lost of settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))) {
        expect(await problemOf(Promise.reject(lost))).toEqual({ status: 409, code: 'session_state_conflict' });
      }
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(won[0]));
      expect((await eventTypes(session.id)).filter((type) => DECISION_EVENTS.includes(type))).toEqual([`recommendation_${won[0].outcome}`]);
    });

    it('is refused before any answers (409)', async () => {
      const shop = await createServiceShop(m);
      const session = await sessions().start(shop.store, { product_id: shop.productId });
      expect(await problemOf(sessions().decide(shop.store, session.id, { size_label: 'M' }))).toEqual({
        status: 409,
        code: 'session_state_conflict',
      });
      expect(await eventTypes(session.id)).toEqual(['fit_started']);
    });

    it('names a size or a variant, not both and not neither, whatever reached the service', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      for (const request of [{}, { size_label: 'M', variant_id: shop.variants.M }]) {
        expect(await problemOf(sessions().decide(shop.store, session.id, request))).toEqual({
          status: 400,
          code: 'validation_failed',
          errors: [
            { field: 'size_label', code: 'one_of' },
            { field: 'variant_id', code: 'one_of' },
          ],
        });
      }
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
    });

    it('refuses a size the chart does not have, and a variant of another product, even in the same store', async () => {
      const shop = await createServiceShop(m);
      const sibling = await createServiceShop(m, shop.store);
      const session = await recommended(shop);
      expect(await problemOf(sessions().decide(shop.store, session.id, { size_label: 'XXL' }))).toMatchObject({
        status: 400,
        errors: [{ field: 'size_label', code: 'unknown_size' }],
      });
      expect(await problemOf(sessions().decide(shop.store, session.id, { variant_id: sibling.variants.M }))).toMatchObject({
        status: 400,
        errors: [{ field: 'variant_id', code: 'not_found' }],
      });
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
    });
  });

  describe('a move and its events', () => {
    /** Runs `work` while the session events' next write is made, then fails, inside the move's transaction. */
    const withFailingEvents = async (work: () => Promise<unknown>): Promise<void> => {
      const sessionEvents = m.get(SessionEventsService);
      const record = sessionEvents.record.bind(sessionEvents);
      const failing = jest.spyOn(sessionEvents, 'record').mockImplementationOnce(async (...args) => {
        await record(...args);
        throw new Error('the events could not be written');
      });
      try {
        await expect(work()).rejects.toThrow('the events could not be written');
      } finally {
        failing.mockRestore();
      }
    };

    it('commit together: answers whose events fail leave the session started, without answers or events', async () => {
      const shop = await createServiceShop(m);
      const session = await sessions().start(shop.store, { product_id: shop.productId });
      await withFailingEvents(() => sessions().answer(shop.store, session.id, { answers: SHOPPER }));
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
      expect(await eventTypes(session.id)).toEqual(['fit_started']);
      // the same answers go through once the events can be written
      expect((await sessions().answer(shop.store, session.id, { answers: SHOPPER })).state).toBe('recommended');
      expect(await eventTypes(session.id)).toEqual(['fit_completed', 'fit_started', 'recommendation_generated']);
    });

    it('commit together: a decision whose event fails leaves the session recommended, to be decided again', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const size = recommendationOf(session).size_label;
      await withFailingEvents(() => sessions().decide(shop.store, session.id, { size_label: size }));
      expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
      expect((await sessions().decide(shop.store, session.id, { size_label: otherSize(size) })).outcome).toBe('overridden');
      expect((await eventTypes(session.id)).filter((type) => DECISION_EVENTS.includes(type))).toEqual(['recommendation_overridden']);
    });

    it('lets answers racing a decision land before it or be refused, never after it', async () => {
      const shop = await createServiceShop(m);
      const session = await recommended(shop);
      const [decided, ...answered] = await Promise.allSettled([
        sessions().decide(shop.store, session.id, { size_label: 'M' }),
        ...[60, 80, 100, 120].map((kg) =>
          sessions().answer(shop.store, session.id, { answers: { ...SHOPPER, weight: { value: kg, unit: 'kg' } } }),
        ),
      ]);
      expect(decided.status).toBe('fulfilled');
      for (const refused of answered.flatMap((a) => (a.status === 'rejected' ? [a.reason as unknown] : []))) {
        expect(await problemOf(Promise.reject(refused))).toEqual({ status: 409, code: 'session_state_conflict' });
      }
      const final = await sessions().get(shop.store, session.id);
      expect(final.state).toBe('completed');
      expect(final.outcome).toBe(recommendationOf(final).size_label === 'M' ? 'accepted' : 'overridden');
      const generated = await m.dataSource.query<{ occurred_at: Date }[]>(
        `SELECT occurred_at FROM events WHERE session_id = $1 AND type = 'recommendation_generated'`,
        [session.id],
      );
      expect(generated).toHaveLength(1 + answered.filter((a) => a.status === 'fulfilled').length);
      const decidedAt = new Date(final.decision?.decided_at as string).getTime();
      for (const { occurred_at } of generated) expect(new Date(occurred_at).getTime()).toBeLessThanOrEqual(decidedAt);
    });
  });

  it("keeps a session to its store: another store's reads and moves find no such session", async () => {
    const [shop, stranger] = [await createServiceShop(m), await createServiceShop(m)];
    const session = await recommended(shop);
    const notFound = { status: 404, code: 'not_found' };
    expect(await problemOf(sessions().get(stranger.store, session.id))).toEqual(notFound);
    expect(await problemOf(sessions().answer(stranger.store, session.id, { answers: SHOPPER }))).toEqual(notFound);
    expect(await problemOf(sessions().decide(stranger.store, session.id, { size_label: 'M' }))).toEqual(notFound);
    // nor can a session be started on another store's product
    expect(await problemOf(sessions().start(stranger.store, { product_id: shop.productId }))).toMatchObject({
      status: 400,
      errors: [{ field: 'product_id', code: 'not_found' }],
    });
    expect(asSent(await sessions().get(shop.store, session.id))).toEqual(asSent(session));
  });
});
