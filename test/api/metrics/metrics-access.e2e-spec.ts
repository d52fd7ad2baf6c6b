/**
 * Cohort metrics e2e: who may read the metrics — scopes, store-bound keys, no key, another merchant.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { expectProblem, issueKey } from '../../support/fixtures.js';
import { anchor, DAY, getMetrics, HOUR, metricsRaw, newMetricsShop, placeSession, siblingShop } from '../../support/metrics-fixtures.js';

describe('cohort metrics', () => {
  const t = useApp();

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
