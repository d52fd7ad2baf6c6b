/**
 * Cohort metrics e2e: GET …/metrics/daily — one entry per UTC day the range touches, each equal to GET …/metrics
 * for that day.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { TIMESTAMP } from '../../support/fixtures.js';
import {
  anchor,
  counts,
  DAY,
  type DayBody,
  expectFigures,
  expectRates,
  getDaily,
  getMetrics,
  HOUR,
  iso,
  kept,
  type MetricsShop,
  MINUTE,
  newMetricsShop,
  NULL_RATES,
  placeSession,
  purchase,
  scale,
  sendEvents,
  sizeReturn,
} from '../../support/metrics-fixtures.js';
import { COUNT_KEYS, RATE_KEYS } from '../../support/metrics-reference.js';

const DAILY_KEYS = ['caveats', 'days', 'from', 'observed_through', 'store_id', 'to'];
const DAY_KEYS = ['counts', 'date', 'from', 'rates', 'to'];

describe('cohort metrics', () => {
  const t = useApp();

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
});
