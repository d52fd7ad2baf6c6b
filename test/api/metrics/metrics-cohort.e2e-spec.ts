/**
 * Cohort metrics e2e: the answer's shape and caveats, which sessions make the cohort, and how purchases count as lines.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { TIMESTAMP } from '../../support/fixtures.js';
import {
  anchor,
  counts,
  DAY,
  expectFigures,
  getMetrics,
  HOUR,
  iso,
  kept,
  metricsAtOf,
  metricsRaw,
  type MetricsBody,
  newMetricsShop,
  NULL_RATES,
  placeSession,
  purchase,
  scale,
  sendEvents,
  sizeExchange,
  sizeReturn,
} from '../../support/metrics-fixtures.js';
import { COUNT_KEYS, RATE_KEYS } from '../../support/metrics-reference.js';

const BODY_KEYS = ['caveats', 'counts', 'from', 'observed_through', 'rates', 'store_id', 'to'];

describe('cohort metrics', () => {
  const t = useApp();
  const metricsAt = metricsAtOf(t);

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
});
