/**
 * Catalog e2e: products — create, read, change, external ids, references to a type and chart of the store, the list,
 * and delete or archive.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import {
  catalogRequests,
  createProduct,
  createProductType,
  createSizeChart,
  createVariant,
  DEFAULT_SIZES,
  type ProductBody,
  type SizeChartBody,
} from '../../support/catalog-fixtures.js';
import { createStore, createTenant, expectErrors, expectProblem, TIMESTAMP, type Tenant, MISSING_ID } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del, expectTwoPages, startSession } = catalogRequests(t);

  describe('products', () => {
    const productsOf = (storeId: string) => at(storeId, '/products');

    async function typeAndChart(tenant: Tenant, storeId = tenant.storeId): Promise<{ typeId: string; chart: SizeChartBody }> {
      const type = await createProductType(t, tenant.admin.secret, storeId);
      const chart = await createSizeChart(t, tenant.admin.secret, storeId);
      return { typeId: type.id, chart };
    }

    it('creates a product that fits true to size by default, and reads it back', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const response = await post(tenant.admin.secret, productsOf(tenant.storeId), {
        title: 'Crew tee',
        product_type_id: typeId,
        size_chart_id: chart.id,
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(String),
        store_id: tenant.storeId,
        external_id: null,
        title: 'Crew tee',
        product_type_id: typeId,
        size_chart_id: chart.id,
        fit_adjustment: 'true_to_size',
        archived_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const read = await get(tenant.admin.secret, `${productsOf(tenant.storeId)}/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it('keeps the external_id and fit adjustment it is given', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      for (const fit_adjustment of ['runs_small', 'true_to_size', 'runs_large']) {
        const product = await createProduct(t, tenant.admin.secret, tenant.storeId, {
          product_type_id: typeId,
          size_chart_id: chart.id,
          external_id: `gid://shopify/Product/${fit_adjustment}`,
          fit_adjustment,
        });
        expect(product).toMatchObject({ external_id: `gid://shopify/Product/${fit_adjustment}`, fit_adjustment });
      }
    });

    it('changes only the fields a PATCH sends, and removes the external_id on null', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const otherType = await createProductType(t, tenant.admin.secret, tenant.storeId, { name: 'Other' });
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId, {
        product_type_id: typeId,
        size_chart_id: chart.id,
        external_id: 'p-1',
      });
      const path = `${productsOf(tenant.storeId)}/${product.id}`;

      const retitled = await patch(tenant.admin.secret, path, { title: 'New title' });
      expect(retitled.status).toBe(200);
      expect(retitled.body).toEqual({ ...product, title: 'New title', updated_at: expect.stringMatching(TIMESTAMP) });

      const changed = await patch(tenant.admin.secret, path, {
        product_type_id: otherType.id,
        fit_adjustment: 'runs_large',
        external_id: 'p-2',
      });
      expect(changed.body).toMatchObject({
        title: 'New title',
        product_type_id: otherType.id,
        fit_adjustment: 'runs_large',
        external_id: 'p-2',
      });

      const cleared = await patch(tenant.admin.secret, path, { external_id: null });
      expect(cleared.body).toMatchObject({ external_id: null, title: 'New title', fit_adjustment: 'runs_large' });
      expect((await get(tenant.admin.secret, path)).body).toEqual(cleared.body);
    });

    it.each([
      ['a numeric title', { title: 5 }, { title: 'must_be_string' }],
      ['no title', { title: undefined }, { title: undefined }],
      ['an unknown fit adjustment', { fit_adjustment: 'tiny' }, { fit_adjustment: 'not_allowed_value' }],
      ['a product_type_id that is not an id', { product_type_id: 'tee' }, { product_type_id: 'must_be_id' }],
      ['a product_type_id that names nothing', { product_type_id: MISSING_ID }, { product_type_id: 'not_found' }],
      ['a size_chart_id that names nothing', { size_chart_id: MISSING_ID }, { size_chart_id: 'not_found' }],
      ['an empty external_id', { external_id: '' }, { external_id: undefined }],
      ['an unknown field', { archived_at: '2026-01-01T00:00:00.000Z' }, { archived_at: 'unknown_field' }],
    ])('refuses %s with 400 naming the field, and creates nothing', async (_, override, errors) => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const body = { title: 'Tee', product_type_id: typeId, size_chart_id: chart.id, ...override };
      expectErrors(await post(tenant.admin.secret, productsOf(tenant.storeId), body), errors);
      expect((await get(tenant.admin.secret, productsOf(tenant.storeId))).body.data).toEqual([]);
    });

    it('reports every offending field of one body in a single 400', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, productsOf(tenant.storeId), {
        title: 42,
        product_type_id: 'tee',
        size_chart_id: 7,
        fit_adjustment: 'tiny',
        colour: 'red',
      });
      expectErrors(response, {
        title: 'must_be_string',
        product_type_id: 'must_be_id',
        size_chart_id: 'must_be_id',
        fit_adjustment: 'not_allowed_value',
        colour: 'unknown_field',
      });
    });

    it('refuses a type or chart of another merchant or of another store with 400 not_found', async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const { typeId, chart } = await typeAndChart(mine);
      const foreign = await typeAndChart(theirs);
      const foreignProduct = await createProduct(t, theirs.admin.secret, theirs.storeId);
      const sibling = await createStore(t, mine.admin.secret);
      const siblings = await typeAndChart(mine, sibling);
      const base = { title: 'Tee', product_type_id: typeId, size_chart_id: chart.id };

      for (const product_type_id of [foreign.typeId, siblings.typeId, foreignProduct.id, chart.id]) {
        expectErrors(await post(mine.admin.secret, productsOf(mine.storeId), { ...base, product_type_id }), {
          product_type_id: 'not_found',
        });
      }
      for (const size_chart_id of [foreign.chart.id, siblings.chart.id, typeId]) {
        expectErrors(await post(mine.admin.secret, productsOf(mine.storeId), { ...base, size_chart_id }), { size_chart_id: 'not_found' });
      }
      expectProblem(await get(mine.admin.secret, `${productsOf(mine.storeId)}/${foreignProduct.id}`), 404, 'not_found');
      expectProblem(await get(mine.admin.secret, at(mine.storeId, `/product-types/${foreign.typeId}`)), 404, 'not_found');
      expect((await get(mine.admin.secret, productsOf(mine.storeId))).body.data).toEqual([]);

      const product = await createProduct(t, mine.admin.secret, mine.storeId, base);
      const path = `${productsOf(mine.storeId)}/${product.id}`;
      expectErrors(await patch(mine.admin.secret, path, { product_type_id: foreign.typeId }), { product_type_id: 'not_found' });
      expectErrors(await patch(mine.admin.secret, path, { size_chart_id: siblings.chart.id }), { size_chart_id: 'not_found' });
      expect((await get(mine.admin.secret, path)).body).toEqual(product);
    });

    it('refuses a second product with the same external_id in the store with 409 duplicate naming the first', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const body = { title: 'Tee', product_type_id: typeId, size_chart_id: chart.id, external_id: 'sku-1' };
      const first = await post(tenant.admin.secret, productsOf(tenant.storeId), body);
      expect(first.status).toBe(201);
      const again = await post(tenant.admin.secret, productsOf(tenant.storeId), { ...body, title: 'Copy' });
      expectProblem(again, 409, 'duplicate');
      expect(again.body.existing_id).toBe(first.body.id);
      const listed = await get(tenant.admin.secret, productsOf(tenant.storeId));
      expect(listed.body.data.map((p: ProductBody) => p.title)).toEqual(['Tee']);

      // Products without an external_id never collide.
      const { external_id: _, ...withoutId } = body;
      expect((await post(tenant.admin.secret, productsOf(tenant.storeId), withoutId)).status).toBe(201);
      expect((await post(tenant.admin.secret, productsOf(tenant.storeId), withoutId)).status).toBe(201);
    });

    it('refuses a PATCH to an external_id another product of the store has with 409 duplicate', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const base = { product_type_id: typeId, size_chart_id: chart.id };
      const holder = await createProduct(t, tenant.admin.secret, tenant.storeId, { ...base, external_id: 'taken' });
      const other = await createProduct(t, tenant.admin.secret, tenant.storeId, { ...base, external_id: 'mine' });
      const path = `${productsOf(tenant.storeId)}/${other.id}`;
      const refused = await patch(tenant.admin.secret, path, { external_id: 'taken', title: 'Changed' });
      expectProblem(refused, 409, 'duplicate');
      expect(refused.body.existing_id).toBe(holder.id);
      expect((await get(tenant.admin.secret, path)).body).toEqual(other);
      expect((await patch(tenant.admin.secret, path, { external_id: 'mine' })).status).toBe(200);
    });

    it('accepts the same external_id in another store', async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const other = await createTenant(t);
      const a = await createProduct(t, tenant.admin.secret, tenant.storeId, { external_id: 'shared' });
      const b = await createProduct(t, tenant.admin.secret, sibling, { external_id: 'shared' });
      const c = await createProduct(t, other.admin.secret, other.storeId, { external_id: 'shared' });
      expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    });

    it('lets exactly one of two concurrent creates with the same external_id through', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const body = { title: 'Race', product_type_id: typeId, size_chart_id: chart.id, external_id: 'race-1' };
      const responses = await Promise.all([
        post(tenant.admin.secret, productsOf(tenant.storeId), body),
        post(tenant.admin.secret, productsOf(tenant.storeId), body),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
      const refused = responses.find((r) => r.status === 409) as Response;
      expectProblem(refused, 409, 'duplicate');
      // named when the winner had committed before the loser looked; the unique constraint refuses it otherwise
      if (refused.body.existing_id !== undefined) expect(refused.body.existing_id).toBe(responses.find((r) => r.status === 201)?.body.id);
      const listed = await get(tenant.admin.secret, `${productsOf(tenant.storeId)}?external_id=race-1`);
      expect(listed.body.data.map((p: ProductBody) => p.id)).toEqual([responses.find((r) => r.status === 201)?.body.id]);
    });

    it('finds a product by its external_id', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const base = { product_type_id: typeId, size_chart_id: chart.id };
      await createProduct(t, tenant.admin.secret, tenant.storeId, { ...base, external_id: 'a' });
      const wanted = await createProduct(t, tenant.admin.secret, tenant.storeId, { ...base, external_id: 'b' });
      await createProduct(t, tenant.admin.secret, tenant.storeId, base);
      const other = await createTenant(t);
      await createProduct(t, other.admin.secret, other.storeId, { external_id: 'b' });

      const found = await get(tenant.admin.secret, `${productsOf(tenant.storeId)}?external_id=b`);
      expect(found.status).toBe(200);
      expect(found.body).toEqual({ data: [wanted], has_more: false, next_cursor: null });
      const none = await get(tenant.admin.secret, `${productsOf(tenant.storeId)}?external_id=zzz`);
      expect(none.body).toEqual({ data: [], has_more: false, next_cursor: null });
    });

    it('lists products newest first in pages that follow next_cursor', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const ids: string[] = [];
      for (const title of ['A', 'B', 'C']) {
        ids.push(
          (await createProduct(t, tenant.admin.secret, tenant.storeId, { title, product_type_id: typeId, size_chart_id: chart.id })).id,
        );
      }
      await expectTwoPages(tenant.admin.secret, productsOf(tenant.storeId), ids);
    });

    it.each([
      ['limit=0', 'limit', 'too_small'],
      ['limit=101', 'limit', 'too_large'],
      ['limit=two', 'limit', 'must_be_integer'],
      ['starting_after=abc', 'starting_after', 'must_be_id'],
      ['external_id=', 'external_id', undefined],
      ['colour=red', 'colour', 'unknown_field'],
    ])('refuses ?%s on the product list with 400 naming the parameter', async (query, field, code) => {
      const { admin, storeId } = await createTenant(t);
      expectErrors(await get(admin.secret, `${productsOf(storeId)}?${query}`), { [field]: code });
    });

    it('moves a product to a chart that has every label its variants use, and refuses one that lacks any', async () => {
      const tenant = await createTenant(t);
      const { typeId, chart } = await typeAndChart(tenant);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId, { product_type_id: typeId, size_chart_id: chart.id });
      await createVariant(t, tenant.admin.secret, tenant.storeId, product.id, { size_label: 'S' });
      await createVariant(t, tenant.admin.secret, tenant.storeId, product.id, { size_label: 'L' });
      const path = `${productsOf(tenant.storeId)}/${product.id}`;

      const lacking = await createSizeChart(t, tenant.admin.secret, tenant.storeId, { sizes: DEFAULT_SIZES.slice(0, 2) });
      expectErrors(await patch(tenant.admin.secret, path, { size_chart_id: lacking.id, title: 'Moved' }), {
        size_chart_id: 'label_mismatch',
      });
      expect((await get(tenant.admin.secret, path)).body).toEqual(product);

      const fitting = await createSizeChart(t, tenant.admin.secret, tenant.storeId, {
        sizes: [...DEFAULT_SIZES, { label: 'XL', measurements: { chest: { min: 110, max: 118 }, waist: { min: 95, max: 103 } } }],
      });
      const moved = await patch(tenant.admin.secret, path, { size_chart_id: fitting.id });
      expect(moved.status).toBe(200);
      expect(moved.body.size_chart_id).toBe(fitting.id);
    });

    it('deletes a product nothing refers to with 204, its variants with it', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const variant = await createVariant(t, tenant.admin.secret, tenant.storeId, product.id, { external_id: 'v-1' });
      const path = `${productsOf(tenant.storeId)}/${product.id}`;
      const response = await del(tenant.admin.secret, path);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expectProblem(await get(tenant.admin.secret, path), 404, 'not_found');
      expectProblem(await get(tenant.admin.secret, `${path}/variants/${variant.id}`), 404, 'not_found');
      expectProblem(await get(tenant.admin.secret, `${path}/variants`), 404, 'not_found');
      expect((await get(tenant.admin.secret, productsOf(tenant.storeId))).body.data).toEqual([]);

      // The variant's external_id is free again.
      const again = await createProduct(t, tenant.admin.secret, tenant.storeId);
      await createVariant(t, tenant.admin.secret, tenant.storeId, again.id, { external_id: 'v-1' });
    });

    it('archives a product that a session refers to, keeps it readable, and starts no new session on it', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const variant = await createVariant(t, tenant.admin.secret, tenant.storeId, product.id);
      await startSession(tenant.admin.secret, tenant.storeId, product.id);
      const path = `${productsOf(tenant.storeId)}/${product.id}`;

      const archived = await del(tenant.admin.secret, path);
      expect(archived.status).toBe(200);
      expect(archived.body).toEqual({
        ...product,
        archived_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect((await get(tenant.admin.secret, path)).body).toEqual(archived.body);
      expect((await get(tenant.admin.secret, `${path}/variants/${variant.id}`)).status).toBe(200);

      const again = await del(tenant.admin.secret, path);
      expect(again.status).toBe(200);
      expect(again.body.archived_at).toBe(archived.body.archived_at);

      const session = await post(tenant.admin.secret, at(tenant.storeId, '/sessions'), { product_id: product.id });
      expectErrors(session, { product_id: 'archived' });
    });
  });
});
