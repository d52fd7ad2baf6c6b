/**
 * Cohort metrics e2e: the outcomes of purchased lines (size returns, size exchanges, kept signals), and which stored
 * events count, whenever they arrived.
 */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { expectProblem } from '../../support/fixtures.js';
import {
  anchor,
  counts,
  DAY,
  expectFigures,
  HOUR,
  kept,
  metricsAtOf,
  MINUTE,
  newMetricsShop,
  outcome,
  placeSession,
  purchase,
  sendEvent,
  sendEvents,
  SHOPPER,
  sizeExchange,
  sizeReturn,
} from '../../support/metrics-fixtures.js';

describe('cohort metrics', () => {
  const t = useApp();
  const metricsAt = metricsAtOf(t);

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
});
