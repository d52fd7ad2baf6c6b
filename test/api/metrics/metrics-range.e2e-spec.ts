/**
 * Cohort metrics e2e: the range — defaults, RFC 3339 and dates, the 366-day limit, and refused values.
 */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { expectErrors, TIMESTAMP } from '../../support/fixtures.js';
import {
  anchor,
  type DailyBody,
  DAY,
  getMetrics,
  HOUR,
  iso,
  metricsRaw,
  type MetricsBody,
  newMetricsShop,
  placeSession,
} from '../../support/metrics-fixtures.js';

describe('cohort metrics', () => {
  const t = useApp();

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
      expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: at, to: at }, daily), { from: 'not_before_to' });
      expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: at + 1, to: at }, daily), { from: 'not_before_to' });
      // a `from` after now, with `to` defaulting to now
      expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: Date.now() + DAY }, daily), { from: 'not_before_to' });
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
        expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: to - 366 * DAY - 1, to }, daily), { to: 'range_too_long' });
        expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { from: Date.now() - 367 * DAY }, daily), { to: 'range_too_long' });
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
          expectErrors(await metricsRaw(t, shop.storeId, shop.secret, { ...other, [field]: value }, daily), { [field]: undefined });
        }
      },
    );

    it('tells a caller whose unencoded + offset arrived as a space to send it as %2B', async () => {
      const shop = await newMetricsShop(t);
      const response = await t.http().get(`/v1/stores/${shop.storeId}/metrics?from=2026-11-01T00:00:00+01:00`).set(bearer(shop.secret));
      expectErrors(response, { from: 'is_instant_or_date' });
      expect(response.body.detail).toBe(
        'from must be an RFC 3339 timestamp with a time zone, or a date (YYYY-MM-DD, midnight UTC); ' +
          'its + arrived as a space: in a URL, send + as %2B (2026-11-01T00:00:00%2B01:00)',
      );
    });

    it('refuses a repeated range parameter with 400', async () => {
      const shop = await newMetricsShop(t);
      const a = encodeURIComponent(iso(anchor()));
      const b = encodeURIComponent(iso(anchor() + DAY));
      const response = await t.http().get(`/v1/stores/${shop.storeId}/metrics?from=${a}&from=${b}`).set(bearer(shop.secret));
      expectErrors(response, { from: undefined });
    });
  });
});
