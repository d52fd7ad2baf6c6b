import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../support/app.js';
import { expectProblem, issueKey } from '../support/fixtures.js';
import {
  counts,
  type DailyBody,
  DAY,
  type DayBody,
  type EventInput,
  expectRates,
  getDaily,
  getMetrics,
  HOUR,
  iso,
  kept,
  metricsRaw,
  type MetricsBody,
  type MetricsShop,
  MINUTE,
  newMetricsShop,
  nextExternalId,
  outcome,
  placeSession,
  purchase,
  sendEvent,
  sendEvents,
  SHOPPER,
  siblingShop,
  sizeExchange,
  sizeReturn,
  utcDay,
} from '../support/metrics-fixtures.js';
import { COUNT_KEYS, type Counts, RATE_KEYS, type Rates, ratesOf } from '../support/metrics-reference.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BODY_KEYS = ['caveats', 'counts', 'from', 'observed_through', 'rates', 'store_id', 'to'];
const DAILY_KEYS = ['caveats', 'days', 'from', 'observed_through', 'store_id', 'to'];
const DAY_KEYS = ['counts', 'date', 'from', 'rates', 'to'];
const NULL_RATES = Object.fromEntries(RATE_KEYS.map((k) => [k, null])) as Rates;

/** Midnight UTC 20 days ago: far enough back that ranges, sessions and outcomes all lie in the past. */
const anchor = () => utcDay(Date.now()) - 20 * DAY;

describe('cohort metrics', () => {
  const t = useApp();

  /** The figures of the body equal `expected` (rates derived from them by the definitions). */
  function expectFigures(body: { counts: Counts; rates: Rates }, expected: Counts): void {
    expect(body.counts).toEqual(expected);
    expectRates(body.rates, ratesOf(expected));
  }

  /** Asserts a 400 validation_failed whose errors name exactly these fields (with these codes when given). */
  function expectFieldErrors(response: Response, expected: { field: string; code?: string }[]): void {
    expectProblem(response, 400, 'validation_failed');
    const errors = response.body.errors as { field: string; code: string; message: string }[];
    expect(Array.isArray(errors)).toBe(true);
    for (const error of errors) expect(typeof error.message).toBe('string');
    expect(errors.map((e) => e.field).sort()).toEqual(expected.map((e) => e.field).sort());
    for (const { field, code } of expected) {
      if (code) expect(errors.find((e) => e.field === field)?.code).toBe(code);
    }
  }

  /** GET …/metrics, asserting observed_through lies within the request and echoes the range. */
  async function metricsAt(shop: MetricsShop, from: number, to: number): Promise<MetricsBody> {
    const before = Date.now();
    const body = await getMetrics(t, shop, { from, to });
    const after = Date.now();
    expect({ from: body.from, to: body.to, store_id: body.store_id }).toEqual({ from: iso(from), to: iso(to), store_id: shop.storeId });
    expect(body.observed_through).toMatch(TIMESTAMP);
    const observed = Date.parse(body.observed_through);
    expect(observed).toBeGreaterThanOrEqual(before - 1);
    expect(observed).toBeLessThanOrEqual(after + 1);
    return body;
  }

  // ——— shape ———

  describe('the answer', () => {
    it('answers a store without sessions with zero counts, null rates, the echoed range and caveats', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const to = from + 3 * DAY;
      const before = Date.now();
      const response = await metricsRaw(t, shop.storeId, shop.secret, { from, to });
      const after = Date.now();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const body = response.body as MetricsBody;
      expect(Object.keys(body).sort()).toEqual(BODY_KEYS);
      expect(body).toEqual({
        store_id: shop.storeId,
        from: iso(from),
        to: iso(to),
        observed_through: expect.stringMatching(TIMESTAMP),
        counts: counts(),
        rates: NULL_RATES,
        caveats: expect.any(Array),
      });
      expect(Object.keys(body.counts)).toEqual([...COUNT_KEYS]);
      expect(Object.keys(body.rates)).toEqual([...RATE_KEYS]);
      expect(Date.parse(body.observed_through)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(body.observed_through)).toBeLessThanOrEqual(after + 1);
      expect(body.caveats.length).toBeGreaterThan(0);
      for (const caveat of body.caveats) expect(typeof caveat).toBe('string');
    });

    it.each([['metrics'], ['metrics/daily']])(
      'GET …/%s states the caveats: descriptive, randomized experiment, immature windows, missing events',
      async (path) => {
        const shop = await newMetricsShop(t);
        const response = await metricsRaw(t, shop.storeId, shop.secret, {}, path === 'metrics/daily');
        expect(response.status).toBe(200);
        const text = (response.body.caveats as string[]).join('\n');
        expect(text).toMatch(/descriptive/i);
        expect(text).toMatch(/randomi[sz]ed experiment/i);
        expect(text).toMatch(/immature/i);
        expect(text).toMatch(/missing[^.]*events?|events?[^.]*missing/i);
      },
    );

    it('also states the interface caveat that several outcomes can apply to one line', async () => {
      const shop = await newMetricsShop(t);
      const body = await getMetrics(t, shop);
      expect(body.caveats.join('\n')).toMatch(/(several|multiple|more than one)[^.]*outcomes?/i);
    });
  });

  // ——— the cohort ———

  describe('the cohort', () => {
    it('selects sessions created in [from, to) to the millisecond', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor() + 9 * HOUR + 123;
      const to = from + 2 * DAY;
      const at = [from - 1, from, to - 1, to];
      const sessions = [];
      for (const instant of at) sessions.push(await placeSession(t, shop, instant, 'accepted'));
      // each session buys its own line, so every figure follows the cohort
      await sendEvents(
        t,
        shop,
        sessions.map((s, k) => purchase(shop, { order: `B-${k}`, line: '1', session: s.id, at: s.createdAt + HOUR })),
      );
      const inside = counts({
        started_sessions: 2,
        recommended_sessions: 2,
        accepted_sessions: 2,
        converted_sessions: 2,
        purchased_lines: 2,
      });
      expectFigures(await metricsAt(shop, from, to), inside);
      const one = counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1, converted_sessions: 1, purchased_lines: 1 });
      expectFigures(await metricsAt(shop, from - 1, from), one);
      expectFigures(await metricsAt(shop, to - 1, to), one);
      expectFigures(await metricsAt(shop, to, to + 1), one);
      expectFigures(await metricsAt(shop, from + 1, to - 1), counts());
      expectFigures(await metricsAt(shop, from - 1, to + 1), scale(one, 4));
    });

    it('counts sessions by how far they got: started, recommended, accepted, overridden', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const stages = ['started', 'started', 'recommended', 'accepted', 'accepted', 'accepted', 'overridden'] as const;
      for (const [k, stage] of stages.entries()) await placeSession(t, shop, from + k * HOUR, stage);
      const expected = counts({ started_sessions: 7, recommended_sessions: 5, accepted_sessions: 3, overridden_sessions: 1 });
      const body = await metricsAt(shop, from, from + DAY);
      expectFigures(body, expected);
      expect(body.rates).toEqual({
        quiz_completion: expect.any(Number),
        recommendation_acceptance: 3 / 5,
        recommendation_override: 1 / 5,
        fit_assisted_conversion: 0,
        size_related_return: null,
        kept_after_recommendation: null,
        exchange_for_size: null,
      });
      expect(body.rates.quiz_completion).toBeCloseTo(5 / 7, 12);
    });

    it('gives null rates for zero denominators: sessions that never got a recommendation', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'started');
      // a purchase naming it does not make a purchased line
      await sendEvents(t, shop, [purchase(shop, { order: 'Z-1', line: '1', session: s.id, at: from + 2 * HOUR })]);
      const body = await metricsAt(shop, from, from + DAY);
      expect(body.counts).toEqual(counts({ started_sessions: 1 }));
      expect(body.rates).toEqual({ ...NULL_RATES, quiz_completion: 0 });
    });
  });

  // ——— purchases ———

  describe('purchases and lines', () => {
    it('counts lines, not units or deliveries: quantity 3 once, a repeated delivery of the line once, two lines of one order twice', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const a = await placeSession(t, shop, from + HOUR, 'accepted');
      const b = await placeSession(t, shop, from + 2 * HOUR, 'recommended');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'Q-1', line: 'L1', session: a.id, at: from + 3 * HOUR, quantity: 3 }),
        purchase(shop, { order: 'Q-1', line: 'L1', session: a.id, at: from + 4 * HOUR, quantity: 3 }),
        purchase(shop, { order: 'Q-2', line: 'L1', session: b.id, at: from + 3 * HOUR }),
        purchase(shop, { order: 'Q-2', line: 'L2', session: b.id, at: from + 3 * HOUR, variant: shop.variants.L }),
      ]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({ started_sessions: 2, recommended_sessions: 2, accepted_sessions: 1, converted_sessions: 2, purchased_lines: 3 }),
      );
    });

    it('does not count an unassisted purchase (no session_id), nor its outcomes', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      await placeSession(t, shop, from + HOUR, 'accepted');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'U-1', line: '1', at: from + 2 * HOUR }),
        sizeReturn(shop, { order: 'U-1', line: '1', at: from + 3 * DAY }),
        kept(shop, { order: 'U-1', line: '1', at: from + 3 * DAY }),
      ]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1 }),
      );
    });

    it('does not count a purchase linked to a cohort session that never got a recommendation', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const started = await placeSession(t, shop, from + HOUR, 'started');
      const rec = await placeSession(t, shop, from + 2 * HOUR, 'recommended');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'N-1', line: '1', session: started.id, at: from + 3 * HOUR }),
        sizeReturn(shop, { order: 'N-1', line: '1', at: from + 2 * DAY }),
      ]);
      expectFigures(await metricsAt(shop, from, from + DAY), counts({ started_sessions: 2, recommended_sessions: 1 }));
      // the recommended session buying the same line makes it a purchased line, its return included
      await sendEvents(t, shop, [purchase(shop, { order: 'N-1', line: '1', session: rec.id, at: from + 3 * HOUR })]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({ started_sessions: 2, recommended_sessions: 1, converted_sessions: 1, purchased_lines: 1, size_returned_lines: 1 }),
      );
    });

    it('counts a line bought with two cohort sessions once, and both sessions as converted', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const a = await placeSession(t, shop, from + HOUR, 'accepted');
      const b = await placeSession(t, shop, from + 2 * HOUR, 'overridden');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'T-1', line: '1', session: a.id, at: from + 3 * HOUR }),
        purchase(shop, { order: 'T-1', line: '1', session: b.id, at: from + 3 * HOUR }),
        sizeExchange(shop, { order: 'T-1', line: '1', at: from + 2 * DAY }),
      ]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({
          started_sessions: 2,
          recommended_sessions: 2,
          accepted_sessions: 1,
          overridden_sessions: 1,
          converted_sessions: 2,
          purchased_lines: 1,
          size_exchanged_lines: 1,
        }),
      );
    });

    it('follows the session, not the purchase time: a purchase after `to` counts, one by a session before `from` does not', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor() + DAY;
      const to = from + DAY;
      const early = await placeSession(t, shop, from - HOUR, 'accepted');
      const inside = await placeSession(t, shop, from + HOUR, 'accepted');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'P-1', line: '1', session: early.id, at: from + 2 * HOUR }),
        purchase(shop, { order: 'P-2', line: '1', session: inside.id, at: to + 3 * DAY }),
      ]);
      expectFigures(
        await metricsAt(shop, from, to),
        counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1, converted_sessions: 1, purchased_lines: 1 }),
      );
    });
  });

  // ——— outcomes ———

  describe('outcomes of purchased lines', () => {
    it('joins returns, exchanges and kept signals by (order_id, line_item_id), with or without session_id', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'accepted');
      const lines = ['1', '2', '3', '4', '5', '6'];
      await sendEvents(t, shop, [
        ...lines.map((line) => purchase(shop, { order: 'J-1', line, session: s.id, at: from + 2 * HOUR })),
        sizeReturn(shop, { order: 'J-1', line: '1', at: from + 3 * DAY }), // no session_id
        sizeReturn(shop, { order: 'J-1', line: '2', session: s.id, at: from + 3 * DAY }),
        sizeReturn(shop, { order: 'J-1', line: '2', at: from + 4 * DAY }), // a second size return of line 2
        sizeExchange(shop, { order: 'J-1', line: '3', at: from + 3 * DAY }),
        sizeExchange(shop, { order: 'J-1', line: '4', session: s.id, at: from + 3 * DAY }),
        kept(shop, { order: 'J-1', line: '5', at: from + 3 * DAY }),
        // outcomes of lines nobody bought with a session: another line of the order, another order with the same line id
        sizeReturn(shop, { order: 'J-1', line: '7', at: from + 3 * DAY }),
        kept(shop, { order: 'J-2', line: '1', at: from + 3 * DAY }),
        sizeExchange(shop, { order: 'J-2', line: '6', at: from + 3 * DAY }),
      ]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 6,
          size_returned_lines: 2,
          size_exchanged_lines: 2,
          kept_lines: 1,
        }),
      );
    });

    it('counts only reason size: a return or exchange for reason other is no size return or exchange', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'accepted');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'R-1', line: '1', session: s.id, at: from + 2 * HOUR }),
        purchase(shop, { order: 'R-1', line: '2', session: s.id, at: from + 2 * HOUR }),
        outcome(shop, 'return_requested', { order: 'R-1', line: '1', reason: 'other', at: from + 2 * DAY }),
        outcome(shop, 'size_exchange', { order: 'R-1', line: '1', reason: 'other', session: s.id, at: from + 2 * DAY }),
        outcome(shop, 'return_requested', { order: 'R-1', line: '2', reason: 'other', at: from + 2 * DAY }),
        outcome(shop, 'size_exchange', { order: 'R-1', line: '2', reason: 'size', at: from + 2 * DAY }),
      ]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 2,
          size_exchanged_lines: 1,
        }),
      );
    });

    it('lets one line count in several outcomes: a kept signal, a size return and a size exchange', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'overridden');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'K-1', line: '1', session: s.id, at: from + 2 * HOUR }),
        sizeReturn(shop, { order: 'K-1', line: '1', at: from + 2 * DAY }),
        sizeExchange(shop, { order: 'K-1', line: '1', at: from + 3 * DAY }),
        kept(shop, { order: 'K-1', line: '1', session: s.id, at: from + 4 * DAY }),
      ]);
      const body = await metricsAt(shop, from, from + DAY);
      expectFigures(
        body,
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          overridden_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 1,
          size_returned_lines: 1,
          size_exchanged_lines: 1,
          kept_lines: 1,
        }),
      );
      expect(body.rates).toEqual({
        quiz_completion: 1,
        recommendation_acceptance: 0,
        recommendation_override: 1,
        fit_assisted_conversion: 1,
        size_related_return: 1,
        kept_after_recommendation: 1,
        exchange_for_size: 1,
      });
    });

    it('counts an outcome that happened after `to` but before now', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const to = from + DAY;
      const s = await placeSession(t, shop, to - MINUTE, 'accepted');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'A-1', line: '1', session: s.id, at: to - 1 }),
        sizeReturn(shop, { order: 'A-1', line: '1', at: to + HOUR }),
        kept(shop, { order: 'A-1', line: '1', at: Date.now() - 2 * MINUTE }),
      ]);
      // the same purchase after `to`, on another line
      await sendEvent(t, shop, purchase(shop, { order: 'A-1', line: '2', session: s.id, at: to + 5 * DAY }));
      expectFigures(
        await metricsAt(shop, from, to),
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 2,
          size_returned_lines: 1,
          kept_lines: 1,
        }),
      );
    });

    it('does not count outcomes dated after observed_through (a few minutes ahead), and counts them once their time has come', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const bought = await placeSession(t, shop, from + HOUR, 'accepted');
      const later = await placeSession(t, shop, from + 2 * HOUR, 'accepted');
      const ahead = Date.now() + 3 * MINUTE; // stays ahead for the whole test
      const soon = Date.now() + 4_000; // ahead now, past in a few seconds
      await sendEvents(t, shop, [
        purchase(shop, { order: 'F-1', line: '1', session: bought.id, at: from + 3 * HOUR }),
        purchase(shop, { order: 'F-3', line: '1', session: bought.id, at: from + 3 * HOUR }),
        sizeReturn(shop, { order: 'F-1', line: '1', at: ahead }),
        kept(shop, { order: 'F-1', line: '1', session: bought.id, at: ahead }),
        sizeExchange(shop, { order: 'F-1', line: '1', at: ahead }),
        purchase(shop, { order: 'F-4', line: '1', session: later.id, at: ahead }),
        sizeReturn(shop, { order: 'F-3', line: '1', at: soon }),
        purchase(shop, { order: 'F-2', line: '1', session: later.id, at: soon }),
      ]);

      const body = await metricsAt(shop, from, from + DAY);
      // the test's own premise: the request ran before `soon`
      expect(Date.parse(body.observed_through)).toBeLessThan(soon);
      const sessions = { started_sessions: 2, recommended_sessions: 2, accepted_sessions: 2 };
      expectFigures(body, counts({ ...sessions, converted_sessions: 1, purchased_lines: 2 }));

      // once `soon` has passed, its purchase and return count; what is still ahead does not
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon - Date.now() + 50)));
      const after = await metricsAt(shop, from, from + DAY);
      expect(Date.parse(after.observed_through)).toBeGreaterThanOrEqual(soon);
      expect(Date.parse(after.observed_through)).toBeLessThan(ahead);
      expectFigures(after, counts({ ...sessions, converted_sessions: 2, purchased_lines: 3, size_returned_lines: 1 }));
    });
  });

  describe('what was stored, and when', () => {
    it('counts only stored events: a conflicting redelivery (409) and refused events (400) change nothing', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'accepted');
      const other = outcome(shop, 'return_requested', { order: 'C-1', line: '1', reason: 'other', at: from + 2 * DAY });
      await sendEvents(t, shop, [purchase(shop, { order: 'C-1', line: '1', session: s.id, at: from + 2 * HOUR }), other]);
      const base = `/v1/stores/${shop.storeId}/events`;
      const conflict = await t
        .http()
        .post(base)
        .set(bearer(shop.secret))
        .send({ ...other, reason: 'size' });
      expectProblem(conflict, 409, 'event_conflict');
      const batch = await t
        .http()
        .post(`${base}/batch`)
        .set(bearer(shop.secret))
        .send({
          events: [
            { ...other, type: 'size_exchange', reason: 'size' }, // the same key, another payload: 409
            { ...kept(shop, { order: 'C-1', line: '1', at: from + 2 * DAY }), reason: 'size' }, // reason refused on item_kept: 400
            sizeExchange(shop, { order: 'C-1', line: '1', at: Date.now() + 10 * MINUTE }), // too far ahead: 400
            purchase(shop, { order: 'C-1', line: '2', session: s.id, at: from - DAY }), // before its session: 400
            purchase(shop, { order: 'C-1', line: '3', session: s.id, at: from + 2 * HOUR }), // stored: 201
          ],
        });
      expect(batch.status).toBe(200);
      expect((batch.body.results as { status: number }[]).map((r) => r.status)).toEqual([409, 400, 400, 400, 201]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1, converted_sessions: 1, purchased_lines: 2 }),
      );
    });

    it('counts a purchase sent before its session got a recommendation, once it has one, and outcomes sent before the purchase', async () => {
      const shop = await newMetricsShop(t);
      const from = anchor();
      const s = await placeSession(t, shop, from + HOUR, 'started');
      // the outcomes arrive first, then the purchase naming a session that has no recommendation yet
      await sendEvents(t, shop, [
        sizeReturn(shop, { order: 'E-1', line: '1', at: from + 3 * DAY }),
        kept(shop, { order: 'E-1', line: '1', at: from + 4 * DAY }),
      ]);
      await sendEvents(t, shop, [purchase(shop, { order: 'E-1', line: '1', session: s.id, at: from + 2 * HOUR })]);
      expectFigures(await metricsAt(shop, from, from + DAY), counts({ started_sessions: 1 }));
      const answered = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions/${s.id}/answers`)
        .set(bearer(shop.secret))
        .send({ answers: SHOPPER });
      expect(answered.status).toBe(200);
      await sendEvents(t, shop, [sizeExchange(shop, { order: 'E-1', line: '1', at: from + 5 * DAY })]);
      expectFigures(
        await metricsAt(shop, from, from + DAY),
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 1,
          size_returned_lines: 1,
          kept_lines: 1,
          size_exchanged_lines: 1,
        }),
      );
    });
  });

  // ——— everything at once ———

  describe('a hand-built history', () => {
    it('gives every count and rate its known value, and other stores never count', async () => {
      const a = await newMetricsShop(t);
      const b = await siblingShop(t, a); // another store of the same merchant
      const c = await newMetricsShop(t); // another merchant
      const F = anchor() + 6 * HOUR;
      const T = F + 2 * DAY;

      const a1 = await placeSession(t, a, F, 'accepted');
      const a2 = await placeSession(t, a, F + HOUR, 'overridden');
      const a3 = await placeSession(t, a, F + 2 * HOUR, 'recommended');
      const a4 = await placeSession(t, a, F + 3 * HOUR, 'started');
      const a5 = await placeSession(t, a, F + 4 * HOUR, 'accepted');
      await placeSession(t, a, T - 1, 'overridden');
      const a0 = await placeSession(t, a, F - DAY, 'accepted'); // before the range
      const b1 = await placeSession(t, b, F + HOUR, 'accepted');
      await placeSession(t, b, F + 2 * HOUR, 'started');
      const c1 = await placeSession(t, c, F, 'accepted');

      await sendEvents(t, a, [
        purchase(a, { order: 'O1', line: 'L1', session: a1.id, at: F + HOUR, quantity: 3 }),
        purchase(a, { order: 'O1', line: 'L1', session: a1.id, at: F + HOUR }),
        sizeReturn(a, { order: 'O1', line: 'L1', at: F + 5 * DAY }),
        sizeReturn(a, { order: 'O1', line: 'L1', at: F + 6 * DAY }),
        kept(a, { order: 'O1', line: 'L1', session: a1.id, at: F + 7 * DAY }),
        purchase(a, { order: 'O2', line: 'L1', session: a2.id, at: F + 2 * HOUR }),
        purchase(a, { order: 'O2', line: 'L2', session: a2.id, at: F + 2 * HOUR }),
        outcome(a, 'return_requested', { order: 'O2', line: 'L1', reason: 'other', session: a2.id, at: F + 3 * DAY }),
        sizeExchange(a, { order: 'O2', line: 'L2', at: T + HOUR }),
        outcome(a, 'size_exchange', { order: 'O2', line: 'L1', reason: 'other', at: F + 3 * DAY }),
        sizeReturn(a, { order: 'O2', line: 'L3', at: F + DAY }), // never purchased
        purchase(a, { order: 'O3', line: 'L1', session: a3.id, at: F + 3 * HOUR }),
        purchase(a, { order: 'O3', line: 'L1', session: a1.id, at: F + 3 * HOUR }),
        kept(a, { order: 'O3', line: 'L1', at: F + 4 * DAY }),
        purchase(a, { order: 'O4', line: 'L1', session: a4.id, at: F + 4 * HOUR }), // never recommended
        sizeReturn(a, { order: 'O4', line: 'L1', at: F + 4 * DAY }),
        purchase(a, { order: 'O5', line: 'L1', at: F + 4 * HOUR }), // unassisted
        sizeReturn(a, { order: 'O5', line: 'L1', at: F + 4 * DAY }),
        purchase(a, { order: 'O6', line: 'L1', session: a5.id, at: F + 5 * HOUR }),
        sizeReturn(a, { order: 'O6', line: 'L1', session: a5.id, at: Date.now() + 3 * MINUTE }), // not yet
        purchase(a, { order: 'O7', line: 'L1', session: a0.id, at: F + HOUR }), // a session before the range
        sizeReturn(a, { order: 'O7', line: 'L1', at: F + DAY }),
        {
          source: 'storefront',
          external_id: nextExternalId(),
          type: 'fit_viewed',
          product_id: a.productId,
          session_id: a3.id,
          occurred_at: iso(F + 2 * HOUR),
        },
        {
          source: 'storefront',
          external_id: nextExternalId(),
          type: 'add_to_cart',
          product_id: a.productId,
          variant_id: a.variants.S,
          session_id: a4.id,
          occurred_at: iso(F + 3 * HOUR),
        },
      ] satisfies EventInput[]);
      await sendEvents(t, b, [
        purchase(b, { order: 'O6', line: 'L2', session: b1.id, at: F + 2 * HOUR }),
        purchase(b, { order: 'O2', line: 'L1', session: b1.id, at: F + 2 * HOUR }),
        sizeReturn(b, { order: 'O6', line: 'L1', at: F + DAY }), // A's line ids, in B
        kept(b, { order: 'O2', line: 'L1', at: F + DAY }),
        sizeExchange(b, { order: 'O1', line: 'L1', at: F + DAY }),
      ]);
      await sendEvents(t, c, [
        purchase(c, { order: 'O3', line: 'L1', session: c1.id, at: F + HOUR }),
        sizeExchange(c, { order: 'O3', line: 'L1', at: F + DAY }),
        sizeReturn(c, { order: 'O6', line: 'L1', at: F + DAY }),
      ]);

      const bodyA = await metricsAt(a, F, T);
      expect(bodyA.counts).toEqual({
        started_sessions: 6,
        recommended_sessions: 5,
        accepted_sessions: 2,
        overridden_sessions: 2,
        converted_sessions: 4,
        purchased_lines: 5,
        size_returned_lines: 1,
        kept_lines: 2,
        size_exchanged_lines: 1,
      });
      expectRates(bodyA.rates, {
        quiz_completion: 5 / 6,
        recommendation_acceptance: 2 / 5,
        recommendation_override: 2 / 5,
        fit_assisted_conversion: 4 / 5,
        size_related_return: 1 / 5,
        kept_after_recommendation: 2 / 5,
        exchange_for_size: 1 / 5,
      });

      const bodyB = await metricsAt(b, F, T);
      expect(bodyB.counts).toEqual(
        counts({
          started_sessions: 2,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 2,
          kept_lines: 1,
        }),
      );
      expectRates(bodyB.rates, {
        quiz_completion: 1 / 2,
        recommendation_acceptance: 1,
        recommendation_override: 0,
        fit_assisted_conversion: 1,
        size_related_return: 0,
        kept_after_recommendation: 1 / 2,
        exchange_for_size: 0,
      });
      expectFigures(
        await metricsAt(c, F, T),
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 1,
          size_exchanged_lines: 1,
        }),
      );

      // daily: the three UTC days the range touches, the first and last clipped
      const daily = await getDaily(t, a, { from: F, to: T });
      const day0 = utcDay(F);
      expect(daily.days.map((d) => [d.date, d.from, d.to])).toEqual([
        [iso(day0).slice(0, 10), iso(F), iso(day0 + DAY)],
        [iso(day0 + DAY).slice(0, 10), iso(day0 + DAY), iso(day0 + 2 * DAY)],
        [iso(day0 + 2 * DAY).slice(0, 10), iso(day0 + 2 * DAY), iso(T)],
      ]);
      expectFigures(daily.days[0], {
        started_sessions: 5,
        recommended_sessions: 4,
        accepted_sessions: 2,
        overridden_sessions: 1,
        converted_sessions: 4,
        purchased_lines: 5,
        size_returned_lines: 1,
        kept_lines: 2,
        size_exchanged_lines: 1,
      });
      expectFigures(daily.days[1], counts());
      expectFigures(daily.days[2], counts({ started_sessions: 1, recommended_sessions: 1, overridden_sessions: 1 }));
    });
  });

  // ——— daily ———

  describe('GET …/metrics/daily', () => {
    /** Every day equals GET …/metrics for that day's range, and session counts add up to the totals. */
    async function expectDaysConsistent(shop: MetricsShop, from: number, to: number, days: DayBody[]): Promise<void> {
      for (const day of days) {
        const single = await getMetrics(t, shop, { from: day.from, to: day.to });
        expect({ date: day.date, counts: day.counts }).toEqual({ date: day.date, counts: single.counts });
        expectRates(day.rates, single.rates);
      }
      const total = await getMetrics(t, shop, { from, to });
      for (const key of [
        'started_sessions',
        'recommended_sessions',
        'accepted_sessions',
        'overridden_sessions',
        'converted_sessions',
      ] as const) {
        expect({ key, sum: days.reduce((sum, d) => sum + d.counts[key], 0) }).toEqual({ key, sum: total.counts[key] });
      }
    }

    it('answers one entry per UTC day the range touches, clipped to the range, days without sessions included', async () => {
      const shop = await newMetricsShop(t);
      const day0 = anchor();
      const from = day0 + 18 * HOUR + 30 * MINUTE;
      const to = day0 + 3 * DAY + 6 * HOUR;
      const s0 = await placeSession(t, shop, from, 'accepted');
      await placeSession(t, shop, day0 + DAY - 1, 'started');
      const s2 = await placeSession(t, shop, day0 + 2 * DAY, 'overridden');
      const s3 = await placeSession(t, shop, to - 1, 'recommended');
      await placeSession(t, shop, to, 'accepted'); // outside
      await placeSession(t, shop, from - 1, 'accepted'); // outside
      await sendEvents(t, shop, [
        purchase(shop, { order: 'D-1', line: '1', session: s0.id, at: from + HOUR }),
        sizeReturn(shop, { order: 'D-1', line: '1', at: from + 5 * DAY }),
        purchase(shop, { order: 'D-2', line: '1', session: s2.id, at: day0 + 2 * DAY + HOUR }),
        purchase(shop, { order: 'D-2', line: '2', session: s2.id, at: day0 + 2 * DAY + HOUR }),
        kept(shop, { order: 'D-2', line: '2', at: day0 + 9 * DAY }),
        purchase(shop, { order: 'D-3', line: '1', session: s3.id, at: to + HOUR }),
      ]);

      const before = Date.now();
      const daily = await getDaily(t, shop, { from, to });
      const after = Date.now();
      expect(Object.keys(daily).sort()).toEqual(DAILY_KEYS);
      expect(daily).toMatchObject({ store_id: shop.storeId, from: iso(from), to: iso(to) });
      expect(daily.observed_through).toMatch(TIMESTAMP);
      expect(Date.parse(daily.observed_through)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(daily.observed_through)).toBeLessThanOrEqual(after + 1);
      for (const day of daily.days) {
        expect(Object.keys(day).sort()).toEqual(DAY_KEYS);
        expect(Object.keys(day.counts)).toEqual([...COUNT_KEYS]);
        expect(Object.keys(day.rates)).toEqual([...RATE_KEYS]);
      }
      expect(daily.days.map((d) => [d.date, d.from, d.to])).toEqual([
        [iso(day0).slice(0, 10), iso(from), iso(day0 + DAY)],
        [iso(day0 + DAY).slice(0, 10), iso(day0 + DAY), iso(day0 + 2 * DAY)],
        [iso(day0 + 2 * DAY).slice(0, 10), iso(day0 + 2 * DAY), iso(day0 + 3 * DAY)],
        [iso(day0 + 3 * DAY).slice(0, 10), iso(day0 + 3 * DAY), iso(to)],
      ]);
      expectFigures(
        daily.days[0],
        counts({
          started_sessions: 2,
          recommended_sessions: 1,
          accepted_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 1,
          size_returned_lines: 1,
        }),
      );
      expectFigures(daily.days[1], counts());
      expectFigures(
        daily.days[2],
        counts({
          started_sessions: 1,
          recommended_sessions: 1,
          overridden_sessions: 1,
          converted_sessions: 1,
          purchased_lines: 2,
          kept_lines: 1,
        }),
      );
      expectFigures(daily.days[3], counts({ started_sessions: 1, recommended_sessions: 1, converted_sessions: 1, purchased_lines: 1 }));
      expect(daily.days[1].rates).toEqual(NULL_RATES);
      await expectDaysConsistent(shop, from, to, daily.days);
      expect(daily.caveats).toEqual((await getMetrics(t, shop, { from, to })).caveats);
    });

    it('counts a line bought with sessions of two different days on each of those days, once in the total', async () => {
      const shop = await newMetricsShop(t);
      const day0 = anchor();
      const s0 = await placeSession(t, shop, day0 + 10 * HOUR, 'accepted');
      const s1 = await placeSession(t, shop, day0 + DAY + 10 * HOUR, 'accepted');
      await sendEvents(t, shop, [
        purchase(shop, { order: 'X-1', line: '1', session: s0.id, at: day0 + DAY + 11 * HOUR }),
        purchase(shop, { order: 'X-1', line: '1', session: s1.id, at: day0 + DAY + 11 * HOUR }),
        sizeReturn(shop, { order: 'X-1', line: '1', at: day0 + 4 * DAY }),
      ]);
      const one = counts({
        started_sessions: 1,
        recommended_sessions: 1,
        accepted_sessions: 1,
        converted_sessions: 1,
        purchased_lines: 1,
        size_returned_lines: 1,
      });
      const daily = await getDaily(t, shop, { from: day0, to: day0 + 2 * DAY });
      expect(daily.days.map((d) => d.date)).toEqual([iso(day0).slice(0, 10), iso(day0 + DAY).slice(0, 10)]);
      expectFigures(daily.days[0], one);
      expectFigures(daily.days[1], one);
      expectFigures(
        await getMetrics(t, shop, { from: day0, to: day0 + 2 * DAY }),
        counts({ ...scale(one, 2), purchased_lines: 1, size_returned_lines: 1 }),
      );
      await expectDaysConsistent(shop, day0, day0 + 2 * DAY, daily.days);
    });

    it('does not touch the day that begins at `to`, and gives a range within one day a single entry', async () => {
      const shop = await newMetricsShop(t);
      const day0 = anchor();
      await placeSession(t, shop, day0 + 2 * DAY, 'accepted');
      const midnight = await getDaily(t, shop, { from: day0, to: day0 + 2 * DAY });
      expect(midnight.days.map((d) => [d.date, d.from, d.to])).toEqual([
        [iso(day0).slice(0, 10), iso(day0), iso(day0 + DAY)],
        [iso(day0 + DAY).slice(0, 10), iso(day0 + DAY), iso(day0 + 2 * DAY)],
      ]);
      for (const day of midnight.days) expectFigures(day, counts());

      const inner = await getDaily(t, shop, { from: day0 + 2 * DAY - HOUR, to: day0 + 2 * DAY + 1 });
      expect(inner.days.map((d) => [d.date, d.from, d.to])).toEqual([
        [iso(day0 + DAY).slice(0, 10), iso(day0 + 2 * DAY - HOUR), iso(day0 + 2 * DAY)],
        [iso(day0 + 2 * DAY).slice(0, 10), iso(day0 + 2 * DAY), iso(day0 + 2 * DAY + 1)],
      ]);
      expectFigures(inner.days[1], counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1 }));

      const single = await getDaily(t, shop, { from: day0 + 2 * DAY, to: day0 + 2 * DAY + HOUR });
      expect(single.days.map((d) => [d.date, d.from, d.to])).toEqual([
        [iso(day0 + 2 * DAY).slice(0, 10), iso(day0 + 2 * DAY), iso(day0 + 2 * DAY + HOUR)],
      ]);
      expectFigures(single.days[0], counts({ started_sessions: 1, recommended_sessions: 1, accepted_sessions: 1 }));
    });

    it('defaults to the last 30 days: 31 UTC days touched, the last ending now', async () => {
      const shop = await newMetricsShop(t);
      const before = Date.now();
      const daily = await getDaily(t, shop);
      const after = Date.now();
      const to = Date.parse(daily.to);
      expect(to).toBeGreaterThanOrEqual(before - 1);
      expect(to).toBeLessThanOrEqual(after + 1);
      expect(Date.parse(daily.from)).toBe(to - 30 * DAY);
      const expectedDays = to % DAY === 0 ? 30 : 31;
      expect(daily.days).toHaveLength(expectedDays);
      expect(daily.days[0].from).toBe(daily.from);
      expect(daily.days[daily.days.length - 1].to).toBe(daily.to);
    });
  });

  // ——— the range ———

  describe('the range', () => {
    it('defaults `to` to now and `from` to 30 days before it, and counts a session created just now', async () => {
      const shop = await newMetricsShop(t);
      const created = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions`)
        .set(bearer(shop.secret))
        .send({ product_id: shop.productId });
      expect(created.status).toBe(201);
      const before = Date.now();
      const body = await getMetrics(t, shop);
      const after = Date.now();
      const to = Date.parse(body.to);
      expect(body.to).toMatch(TIMESTAMP);
      expect(body.from).toMatch(TIMESTAMP);
      expect(to).toBeGreaterThanOrEqual(before - 1);
      expect(to).toBeLessThanOrEqual(after + 1);
      expect(Date.parse(body.from)).toBe(to - 30 * DAY);
      expect(body.counts.started_sessions).toBe(1);
    });

    it('defaults `from` to 30 days before a given `to`, and `to` to now when only `from` is given', async () => {
      const shop = await newMetricsShop(t);
      const to = anchor() + 5 * HOUR + 7;
      const onlyTo = await getMetrics(t, shop, { to });
      expect({ from: onlyTo.from, to: onlyTo.to }).toEqual({ from: iso(to - 30 * DAY), to: iso(to) });

      const from = anchor();
      const before = Date.now();
      const onlyFrom = await getMetrics(t, shop, { from });
      const after = Date.now();
      expect(onlyFrom.from).toBe(iso(from));
      expect(Date.parse(onlyFrom.to)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(onlyFrom.to)).toBeLessThanOrEqual(after + 1);
    });

    it('reads RFC 3339 with any offset and echoes UTC with milliseconds', async () => {
      const shop = await newMetricsShop(t);
      const day = iso(anchor()).slice(0, 10);
      const body = await getMetrics(t, shop, { from: `${day}T02:00:00+02:00`, to: `${day}T12:30:00.5-01:30` });
      expect({ from: body.from, to: body.to }).toEqual({ from: `${day}T00:00:00.000Z`, to: `${day}T14:00:00.500Z` });
    });

    it.each([['metrics'], ['metrics/daily']])('GET …/%s refuses from ≥ to with 400 not_before_to on from', async (path) => {
      const shop = await newMetricsShop(t);
      const at = anchor();
      const daily = path === 'metrics/daily';
      expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: at, to: at }, daily), [
        { field: 'from', code: 'not_before_to' },
      ]);
      expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: at + 1, to: at }, daily), [
        { field: 'from', code: 'not_before_to' },
      ]);
      // a `from` after now, with `to` defaulting to now
      expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: Date.now() + DAY }, daily), [
        { field: 'from', code: 'not_before_to' },
      ]);
    });

    it.each([['metrics'], ['metrics/daily']])(
      'GET …/%s takes 366 days exactly and refuses a millisecond more with 400 range_too_long on to',
      async (path) => {
        const shop = await newMetricsShop(t);
        const daily = path === 'metrics/daily';
        const to = anchor();
        const ok = await metricsRaw(t, shop.storeId, shop.secret, { from: to - 366 * DAY, to }, daily);
        expect(ok.status).toBe(200);
        expect({ from: ok.body.from, to: ok.body.to }).toEqual({ from: iso(to - 366 * DAY), to: iso(to) });
        if (daily) expect(ok.body.days).toHaveLength(366);
        expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: to - 366 * DAY - 1, to }, daily), [
          { field: 'to', code: 'range_too_long' },
        ]);
        expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: Date.now() - 367 * DAY }, daily), [
          { field: 'to', code: 'range_too_long' },
        ]);
      },
    );

    it.each([['metrics'], ['metrics/daily']])('GET …/%s reads a date as that day at 00:00 UTC, for ranges in UTC days', async (path) => {
      const shop = await newMetricsShop(t);
      const day0 = anchor();
      await placeSession(t, shop, day0 + DAY + 23 * HOUR, 'accepted');
      await placeSession(t, shop, day0 + 3 * DAY, 'accepted'); // the first instant of `to`: outside
      const date = (at: number) => iso(at).slice(0, 10);
      const response = await metricsRaw(
        t,
        shop.storeId,
        shop.secret,
        { from: date(day0), to: date(day0 + 3 * DAY) },
        path === 'metrics/daily',
      );
      expect(response.status).toBe(200);
      expect({ from: response.body.from, to: response.body.to }).toEqual({ from: iso(day0), to: iso(day0 + 3 * DAY) });
      if (path === 'metrics/daily') {
        const days = (response.body as DailyBody).days;
        expect(days.map((d) => d.date)).toEqual([date(day0), date(day0 + DAY), date(day0 + 2 * DAY)]);
        expect(days.map((d) => d.counts.started_sessions)).toEqual([0, 1, 0]);
      } else {
        expect((response.body as MetricsBody).counts.started_sessions).toBe(1);
      }
    });

    const BAD = [
      'yesterday',
      '2026-02-30',
      '2026-11-1',
      '20261101',
      '2026-11-01T00:00:00',
      '2026-02-30T00:00:00Z',
      '2026-11-01T25:00:00Z',
      '1767225600000',
      '2026-11-01 00:00:00Z x',
    ];
    it.each(BAD.flatMap((value) => [['from', value] as const, ['to', value] as const]))(
      'refuses %s=%j with 400 on that field',
      async (field, value) => {
        const shop = await newMetricsShop(t);
        const other = field === 'from' ? { to: anchor() + DAY } : { from: anchor() - DAY };
        for (const daily of [false, true]) {
          expectFieldErrors(await metricsRaw(t, shop.storeId, shop.secret, { ...other, [field]: value }, daily), [{ field }]);
        }
      },
    );

    it('refuses a repeated range parameter with 400', async () => {
      const shop = await newMetricsShop(t);
      const a = encodeURIComponent(iso(anchor()));
      const b = encodeURIComponent(iso(anchor() + DAY));
      const response = await t.http().get(`/v1/stores/${shop.storeId}/metrics?from=${a}&from=${b}`).set(bearer(shop.secret));
      expectFieldErrors(response, [{ field: 'from' }]);
    });
  });

  // ——— who may read ———

  describe('access', () => {
    it('lets an analytics key of the store and a store-bound admin key read both routes', async () => {
      const shop = await newMetricsShop(t);
      const analytics = await issueKey(t, shop.secret, { scopes: ['analytics'], store_id: shop.storeId });
      const storeAdmin = await issueKey(t, shop.secret, { scopes: ['admin'], store_id: shop.storeId });
      await placeSession(t, shop, anchor() + HOUR, 'accepted');
      const q = { from: anchor(), to: anchor() + DAY };
      const reference = await getMetrics(t, shop, q);
      expect(reference.counts.started_sessions).toBe(1);
      for (const key of [analytics, storeAdmin]) {
        for (const daily of [false, true]) {
          const response = await metricsRaw(t, shop.storeId, key.secret, q, daily);
          expect(response.status).toBe(200);
          expect(response.body.store_id).toBe(shop.storeId);
        }
        const response = await metricsRaw(t, shop.storeId, key.secret, q);
        expect(response.body.counts).toEqual(reference.counts);
      }
    });

    it.each([['events'], ['fit'], ['catalog']])('refuses a %s-only key of the store with 403 insufficient_scope', async (scope) => {
      const shop = await newMetricsShop(t);
      const key = await issueKey(t, shop.secret, { scopes: [scope], store_id: shop.storeId });
      for (const daily of [false, true]) expectProblem(await metricsRaw(t, shop.storeId, key.secret, {}, daily), 403, 'insufficient_scope');
    });

    it('refuses an analytics key bound to another store with 403 store_forbidden', async () => {
      const shop = await newMetricsShop(t);
      const other = await siblingShop(t, shop);
      const key = await issueKey(t, shop.secret, { scopes: ['analytics'], store_id: other.storeId });
      for (const daily of [false, true]) expectProblem(await metricsRaw(t, shop.storeId, key.secret, {}, daily), 403, 'store_forbidden');
    });

    it('refuses a call without a key with 401', async () => {
      const shop = await newMetricsShop(t);
      for (const daily of [false, true]) {
        const response = await metricsRaw(t, shop.storeId, null, {}, daily);
        expectProblem(response, 401, 'unauthenticated');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it("answers 404 for another merchant's store", async () => {
      const shop = await newMetricsShop(t);
      const stranger = await newMetricsShop(t);
      for (const daily of [false, true]) expectProblem(await metricsRaw(t, shop.storeId, stranger.secret, {}, daily), 404, 'not_found');
    });
  });
});

/** Every count multiplied by `k`. */
function scale(c: Counts, k: number): Counts {
  return Object.fromEntries(Object.entries(c).map(([key, v]) => [key, v * k])) as Counts;
}
