/**
 * Cohort metrics e2e: a hand-built history of three stores whose every count and rate is known, totals and daily.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import {
  anchor,
  counts,
  DAY,
  type EventInput,
  expectFigures,
  expectRates,
  getDaily,
  HOUR,
  iso,
  kept,
  metricsAtOf,
  MINUTE,
  newMetricsShop,
  nextExternalId,
  outcome,
  placeSession,
  purchase,
  sendEvents,
  siblingShop,
  sizeExchange,
  sizeReturn,
  utcDay,
} from '../../support/metrics-fixtures.js';

describe('cohort metrics', () => {
  const t = useApp();
  const metricsAt = metricsAtOf(t);

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
});
