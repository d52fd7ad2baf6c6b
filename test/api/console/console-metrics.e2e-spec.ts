import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useApp } from '../../support/app.js';
import { auditConsoleAnswers, expectErrorPage, expectPage, fieldErrors, find, findAll, signUp } from '../../support/console-client.js';
import { PLATFORM } from '../../support/console-fixtures.js';
import { createTenant } from '../../support/fixtures.js';
import {
  addDays,
  DAY,
  type DailyBody,
  dateOf,
  HOUR,
  kept,
  type MetricsBody,
  metricsRaw,
  newMetricsShop,
  placeSession,
  purchase,
  sendEvents,
  sizeExchange,
  sizeReturn,
  today,
  utcDay,
} from '../../support/metrics-fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: the metrics page, against the API's figures.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

/** The seven rates and the counts each divides (docs/decisions/004-events-and-metrics.md). */
const RATE_PARTS = {
  quiz_completion: ['recommended_sessions', 'started_sessions'],
  recommendation_acceptance: ['accepted_sessions', 'recommended_sessions'],
  recommendation_override: ['overridden_sessions', 'recommended_sessions'],
  fit_assisted_conversion: ['converted_sessions', 'recommended_sessions'],
  size_related_return: ['size_returned_lines', 'purchased_lines'],
  kept_after_recommendation: ['kept_lines', 'purchased_lines'],
  exchange_for_size: ['size_exchanged_lines', 'purchased_lines'],
} as const;

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

  // ——— metrics ———

  describe('metrics page', () => {
    /** The rows of `#rates`: rate → its data-* values. */
    function ratesOnPage(html: string): Record<string, { value: string; numerator: string; denominator: string }> {
      const table = find(html, 'table', { id: 'rates' });
      return Object.fromEntries(
        findAll(table.inner, 'tr', { 'data-rate': true }).map((tr) => [
          tr.attrs['data-rate'],
          { value: tr.attrs['data-value'], numerator: tr.attrs['data-numerator'], denominator: tr.attrs['data-denominator'] },
        ]),
      );
    }

    /** `#daily` rows: date → the numbers in its cells. */
    function dailyOnPage(html: string): Array<{ date: string; numbers: number[] }> {
      const table = find(html, 'table', { id: 'daily' });
      return findAll(table.inner, 'tr', { 'data-date': true }).map((tr) => ({
        date: tr.attrs['data-date'],
        numbers: findAll(tr.inner, 'td').map((td) => Number(td.text)),
      }));
    }

    /** The page's figures equal the API's for the same range: from 00:00Z through the end of `to`. */
    async function expectSameAsApi(html: string, storeId: string, secret: string, from: string, to: string): Promise<MetricsBody> {
      const query = { from: `${from}T00:00:00Z`, to: `${addDays(to, 1)}T00:00:00Z` };
      const summary = await metricsRaw(t, storeId, secret, query);
      expect(summary.status).toBe(200);
      const api = summary.body as MetricsBody;
      const shown = ratesOnPage(html);
      expect(Object.keys(shown).sort()).toEqual(Object.keys(RATE_PARTS).sort());
      for (const [rate, [numerator, denominator]] of Object.entries(RATE_PARTS)) {
        const value = api.rates[rate as keyof typeof RATE_PARTS];
        expect({ rate, ...shown[rate] }).toEqual({
          rate,
          value: value === null ? '' : expect.any(String),
          numerator: String(api.counts[numerator]),
          denominator: String(api.counts[denominator]),
        });
        if (value !== null) expect(Number(shown[rate].value)).toBe(value);
      }
      const caveats = findAll(find(html, 'ul', { id: 'caveats' }).inner, 'li').map((li) => li.text);
      // each of the API's caveats, in plain words: none of its field names
      expect(caveats).toHaveLength(api.caveats.length);
      for (const caveat of caveats) expect(caveat).not.toMatch(/observed_through|order_id|line_item_id|session_id|_/);

      const daily = await metricsRaw(t, storeId, secret, query, true);
      expect(daily.status).toBe(200);
      const days = (daily.body as DailyBody).days;
      const rows = dailyOnPage(html);
      expect(rows.map((row) => row.date)).toEqual(days.map((day) => day.date));
      for (const [k, row] of rows.entries()) {
        const counts = Object.values(days[k].counts);
        expect({ date: row.date, numbers: row.numbers.filter((n) => !counts.includes(n)) }).toEqual({ date: row.date, numbers: [] });
        expect(row.numbers).toContain(days[k].counts.started_sessions);
      }
      return api;
    }

    it('shows the seven rates with their counts, the caveats and one row a day, as the API computes them', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const day0 = utcDay(Date.now()) - 10 * DAY;
      await placeSession(t, shop, day0 + 1 * HOUR, 'started');
      await placeSession(t, shop, day0 + 2 * HOUR, 'recommended');
      const a = await placeSession(t, shop, day0 + 3 * HOUR, 'accepted');
      const b = await placeSession(t, shop, day0 + 4 * HOUR, 'accepted');
      const c = await placeSession(t, shop, day0 + 5 * HOUR, 'overridden');
      const d = await placeSession(t, shop, day0 + DAY + HOUR, 'accepted');
      await placeSession(t, shop, day0 + DAY + 2 * HOUR, 'started');
      await placeSession(t, shop, day0 + 3 * DAY, 'accepted'); // after the range
      await sendEvents(t, shop, [
        purchase(shop, { order: 'A-1', line: '1', session: a.id, at: a.createdAt + HOUR }),
        purchase(shop, { order: 'A-2', line: '1', session: b.id, at: b.createdAt + HOUR }),
        purchase(shop, { order: 'C-1', line: '1', session: c.id, at: c.createdAt + HOUR }),
        purchase(shop, { order: 'D-1', line: '1', session: d.id, at: d.createdAt + HOUR }),
        sizeReturn(shop, { order: 'A-1', line: '1', at: a.createdAt + 2 * DAY }),
        kept(shop, { order: 'A-2', line: '1', at: b.createdAt + 2 * DAY }),
        sizeExchange(shop, { order: 'D-1', line: '1', at: d.createdAt + 2 * DAY }),
      ]);
      const from = dateOf(day0);
      const to = dateOf(day0 + 2 * DAY);

      const response = await client.get(`/console/stores/${shop.storeId}/metrics?from=${from}&to=${to}`);

      expectPage(response, 200);
      const api = await expectSameAsApi(response.text, shop.storeId, shop.secret, from, to);
      // the cohort is the one built above, so the comparison is not between two empty answers
      expect(api.counts).toMatchObject({ started_sessions: 7, recommended_sessions: 5, accepted_sessions: 3, purchased_lines: 4 });
      expect(ratesOnPage(response.text).quiz_completion).toEqual({ value: String(5 / 7), numerator: '5', denominator: '7' });
      expect(dailyOnPage(response.text).map((row) => row.date)).toEqual([from, addDays(from, 1), to]);
      // Without the script (which draws the chart and folds the table), the table is open and no empty box shows.
      expect(find(response.text, 'div', { id: 'daily-chart' }).attrs).toHaveProperty('hidden');
      expect(find(response.text, 'details', { id: 'daily-table' }).attrs).toHaveProperty('open');
      const data = find(response.text, 'script', { id: 'daily-data', type: 'application/json' });
      expect(() => JSON.parse(data.inner) as unknown).not.toThrow();
    });

    it('shows the last 30 days through today by default', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      await placeSession(t, shop, Date.now() - 5 * DAY, 'accepted');
      await placeSession(t, shop, utcDay(Date.now()) - 30 * DAY + HOUR, 'accepted'); // the 31st day back: outside
      const first = today();

      const response = await client.get(`/console/stores/${shop.storeId}/metrics`);

      expectPage(response, 200);
      const last = today();
      const dates = dailyOnPage(response.text).map((row) => row.date);
      expect(dates).toHaveLength(30);
      expect([first, last]).toContain(dates[29]);
      expect(dates[0]).toBe(addDays(dates[29], -29));
      for (const [k, date] of dates.entries()) expect(date).toBe(addDays(dates[0], k));
      await expectSameAsApi(response.text, shop.storeId, shop.secret, dates[0], dates[29]);
      expect(ratesOnPage(response.text).quiz_completion.denominator).toBe('1');
    });

    it('accepts a single day and a range of exactly 366 days', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const to = addDays(today(), -1);

      const one = await client.get(`/console/stores/${shop.storeId}/metrics?from=${to}&to=${to}`);
      expectPage(one, 200);
      expect(dailyOnPage(one.text).map((row) => row.date)).toEqual([to]);

      const year = await client.get(`/console/stores/${shop.storeId}/metrics?from=${addDays(to, -365)}&to=${to}`);
      expectPage(year, 200);
      expect(dailyOnPage(year.text)).toHaveLength(366);
    });

    it.each([
      ['from is not a date', () => ({ from: 'last-week', to: today() }), ['from']],
      ['from has a time of day', () => ({ from: '2026-01-01T00:00:00Z', to: today() }), ['from']],
      ['to does not exist', () => ({ from: '2026-02-01', to: '2026-02-30' }), ['to']],
      ['to is not a date', () => ({ from: '2026-02-01', to: '20260210' }), ['to']],
      ['from is after to', () => ({ from: today(), to: addDays(today(), -1) }), ['from', 'to']],
      ['the range spans 367 days', () => ({ from: addDays(today(), -366), to: today() }), ['from', 'to']],
    ])('answers 422 with a field error when %s', async (_label, range, fields) => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const { from, to } = range();

      const response = await client.get(
        `/console/stores/${shop.storeId}/metrics?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      );

      expectPage(response, 422);
      const named = Object.keys(fieldErrors(response.text));
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((field) => !fields.includes(field))).toEqual([]);
      expect(findAll(response.text, 'table', { id: 'rates' })).toEqual([]);
    });

    it("answers 404 for the metrics of another merchant's store", async () => {
      const client = await signUp(t, await createTenant(t));
      const theirs = await createTenant(t);

      expectErrorPage(await client.get(`/console/stores/${theirs.storeId}/metrics`), 404, 'not_found');
      expectErrorPage(await client.get(`/console/stores/${randomUUID()}/metrics`), 404, 'not_found');
    });
  });
});
