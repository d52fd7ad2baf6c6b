/**
 * Catalog e2e: access — scopes, store-bound keys, other merchants' catalogs (404), ids that name nothing, no key.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { catalogRequests, createProduct, createProductType, createSizeChart, createVariant } from '../../support/catalog-fixtures.js';
import { createStore, createTenant, expectProblem, issueKey, type Tenant, MISSING_ID } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del } = catalogRequests(t);

  describe('access', () => {
    /** One of each catalog resource in the tenant's store, and the paths that reach them. */
    async function catalogOf(tenant: Tenant) {
      const s = tenant.admin.secret;
      const type = await createProductType(t, s, tenant.storeId);
      const chart = await createSizeChart(t, s, tenant.storeId);
      const product = await createProduct(t, s, tenant.storeId, { product_type_id: type.id, size_chart_id: chart.id });
      const variant = await createVariant(t, s, tenant.storeId, product.id);
      const base = `/v1/stores/${tenant.storeId}`;
      return {
        type,
        chart,
        product,
        variant,
        items: [
          `${base}/product-types/${type.id}`,
          `${base}/size-charts/${chart.id}`,
          `${base}/products/${product.id}`,
          `${base}/products/${product.id}/variants/${variant.id}`,
        ],
        lists: [`${base}/product-types`, `${base}/size-charts`, `${base}/products`, `${base}/products/${product.id}/variants`],
      };
    }

    it('lets a catalog key bound to the store do everything an admin key does', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['catalog'], store_id: tenant.storeId });
      const type = await createProductType(t, key.secret, tenant.storeId);
      const chart = await createSizeChart(t, key.secret, tenant.storeId);
      const product = await createProduct(t, key.secret, tenant.storeId, { product_type_id: type.id, size_chart_id: chart.id });
      const variant = await createVariant(t, key.secret, tenant.storeId, product.id);
      const variantPath = at(tenant.storeId, `/products/${product.id}/variants/${variant.id}`);
      expect((await patch(key.secret, variantPath, { sku: 'X' })).status).toBe(200);
      expect((await get(key.secret, variantPath)).body.sku).toBe('X');
      expect((await del(key.secret, variantPath)).status).toBe(204);
      expect((await del(key.secret, at(tenant.storeId, `/products/${product.id}`))).status).toBe(204);
      expect((await del(key.secret, at(tenant.storeId, `/size-charts/${chart.id}`))).status).toBe(204);
      expect((await del(key.secret, at(tenant.storeId, `/product-types/${type.id}`))).status).toBe(204);
    });

    it('refuses a store-bound key on any other store with 403 store_forbidden', async () => {
      const mine = await createTenant(t);
      const sibling = await createStore(t, mine.admin.secret);
      const theirs = await createTenant(t);
      const siblingCatalog = await catalogOf({ ...mine, storeId: sibling });
      const foreignCatalog = await catalogOf(theirs);
      for (const scopes of [['catalog'], ['admin']]) {
        const key = await issueKey(t, mine.admin.secret, { scopes, store_id: mine.storeId });
        for (const path of [...siblingCatalog.lists, ...siblingCatalog.items, ...foreignCatalog.lists, ...foreignCatalog.items]) {
          expectProblem(await get(key.secret, path), 403, 'store_forbidden');
        }
        expectProblem(
          await post(key.secret, siblingCatalog.lists[0], { name: 'x', category: 'tops', zone_weights: { chest: 1 } }),
          403,
          'store_forbidden',
        );
        expectProblem(await patch(key.secret, siblingCatalog.items[2], { title: 'Hijacked' }), 403, 'store_forbidden');
        expectProblem(await del(key.secret, siblingCatalog.items[1]), 403, 'store_forbidden');
      }
      expect((await get(mine.admin.secret, siblingCatalog.items[2])).body).toEqual(siblingCatalog.product);
    });

    it.each([['events'], ['fit'], ['analytics']])(
      'refuses a key with only the %s scope with 403 insufficient_scope and changes nothing',
      async (scope) => {
        const tenant = await createTenant(t);
        const catalog = await catalogOf(tenant);
        const key = await issueKey(t, tenant.admin.secret, { scopes: [scope], store_id: tenant.storeId });
        for (const path of catalog.lists) expectProblem(await get(key.secret, path), 403, 'insufficient_scope');
        for (const path of catalog.items) {
          expectProblem(await get(key.secret, path), 403, 'insufficient_scope');
          expectProblem(await patch(key.secret, path, {}), 403, 'insufficient_scope');
          expectProblem(await del(key.secret, path), 403, 'insufficient_scope');
        }
        expectProblem(
          await post(key.secret, catalog.lists[0], { name: 'x', category: 'tops', zone_weights: { chest: 1 } }),
          403,
          'insufficient_scope',
        );
        expectProblem(await post(key.secret, catalog.lists[3], { size_label: 'M' }), 403, 'insufficient_scope');
        expect((await get(tenant.admin.secret, catalog.items[2])).body).toEqual(catalog.product);
        expect((await get(tenant.admin.secret, catalog.lists[3])).body.data).toHaveLength(1);
      },
    );

    it('answers another merchant’s catalog with 404, as if it did not exist, and leaves it alone', async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const foreign = await catalogOf(theirs);
      // Their ids, asked for in my store, and their store named outright.
      const inMyStore = foreign.items.map((path) => path.replace(theirs.storeId, mine.storeId));
      for (const path of foreign.lists) expectProblem(await get(mine.admin.secret, path), 404, 'not_found');
      for (const path of [...inMyStore, ...foreign.items]) {
        expectProblem(await get(mine.admin.secret, path), 404, 'not_found');
        expectProblem(await patch(mine.admin.secret, path, {}), 404, 'not_found');
        expectProblem(await del(mine.admin.secret, path), 404, 'not_found');
      }
      const missing = await get(mine.admin.secret, at(mine.storeId, `/products/${MISSING_ID}`));
      const foreignProduct = await get(mine.admin.secret, inMyStore[2]);
      expect(foreignProduct.body.detail).toBe(missing.body.detail);
      expect(foreignProduct.text).not.toContain(theirs.storeId);
      for (const [path, body] of foreign.items.map(
        (p, i) => [p, [foreign.type, foreign.chart, foreign.product, foreign.variant][i]] as const,
      )) {
        expect((await get(theirs.admin.secret, path)).body).toEqual(body);
      }
    });

    it('answers ids that are not ids, or name nothing, with 404', async () => {
      const tenant = await createTenant(t);
      const { product } = await catalogOf(tenant);
      const base = `/v1/stores/${tenant.storeId}`;
      for (const id of ['not-an-id', MISSING_ID, MISSING_ID.toUpperCase(), '1']) {
        for (const path of [
          `${base}/product-types/${id}`,
          `${base}/size-charts/${id}`,
          `${base}/products/${id}`,
          `${base}/products/${id}/variants`,
          `${base}/products/${product.id}/variants/${id}`,
        ]) {
          expectProblem(await get(tenant.admin.secret, path), 404, 'not_found');
        }
        expectProblem(await patch(tenant.admin.secret, `${base}/products/${id}`, { title: 'x' }), 404, 'not_found');
        expectProblem(await del(tenant.admin.secret, `${base}/size-charts/${id}`), 404, 'not_found');
        expectProblem(await post(tenant.admin.secret, `${base}/products/${id}/variants`, { size_label: 'M' }), 404, 'not_found');
      }
      expectProblem(await get(tenant.admin.secret, `/v1/stores/not-a-store/products`), 404, 'not_found');
    });

    it('refuses calls without a key with 401', async () => {
      const tenant = await createTenant(t);
      const { lists } = await catalogOf(tenant);
      for (const path of lists) expectProblem(await t.http().get(path), 401, 'unauthenticated');
    });
  });
});
