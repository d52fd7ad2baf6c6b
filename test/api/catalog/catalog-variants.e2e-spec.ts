/**
 * Catalog e2e: variants — sizes of the product's chart, changes, external ids, the list in size order, and delete.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import { catalogRequests, createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors, expectProblem, TIMESTAMP, MISSING_ID } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del } = catalogRequests(t);

  describe('variants', () => {
    const variantsOf = (storeId: string, productId: string) => at(storeId, `/products/${productId}/variants`);

    it('creates a variant in a size of the product’s chart and reads it back', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      const response = await post(admin.secret, variantsOf(storeId, product.id), {
        size_label: 'L',
        external_id: 'gid://shopify/ProductVariant/1',
        sku: 'TEE-L',
        title: 'Tee / L',
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(String),
        product_id: product.id,
        external_id: 'gid://shopify/ProductVariant/1',
        size_label: 'L',
        sku: 'TEE-L',
        title: 'Tee / L',
        archived_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const read = await get(admin.secret, `${variantsOf(storeId, product.id)}/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);

      const bare = await createVariant(t, admin.secret, storeId, product.id, { size_label: 'S' });
      expect(bare).toMatchObject({ size_label: 'S', external_id: null, sku: null, title: null });
    });

    it('changes only the fields a PATCH sends, and removes optional ones on null', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      const variant = await createVariant(t, admin.secret, storeId, product.id, {
        size_label: 'S',
        sku: 'A',
        title: 'T',
        external_id: 'e',
      });
      const path = `${variantsOf(storeId, product.id)}/${variant.id}`;

      const resized = await patch(admin.secret, path, { size_label: 'L' });
      expect(resized.status).toBe(200);
      expect(resized.body).toEqual({ ...variant, size_label: 'L', updated_at: expect.stringMatching(TIMESTAMP) });

      const cleared = await patch(admin.secret, path, { sku: null, title: null, external_id: null });
      expect(cleared.body).toMatchObject({ size_label: 'L', sku: null, title: null, external_id: null });
      expect((await get(admin.secret, path)).body).toEqual(cleared.body);
    });

    it('refuses a size_label that is not a label of the product’s chart with 400 unknown_size', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      expectErrors(await post(admin.secret, variantsOf(storeId, product.id), { size_label: 'XXL' }), { size_label: 'unknown_size' });
      expectErrors(await post(admin.secret, variantsOf(storeId, product.id), { size_label: 'm' }), { size_label: 'unknown_size' });
      expect((await get(admin.secret, variantsOf(storeId, product.id))).body.data).toEqual([]);

      const variant = await createVariant(t, admin.secret, storeId, product.id);
      const path = `${variantsOf(storeId, product.id)}/${variant.id}`;
      expectErrors(await patch(admin.secret, path, { size_label: 'XXL' }), { size_label: 'unknown_size' });
      expect((await get(admin.secret, path)).body).toEqual(variant);
    });

    it.each([
      ['no size_label', {}, { size_label: undefined }],
      ['a numeric size_label', { size_label: 3 }, { size_label: 'must_be_string' }],
      ['a numeric sku', { size_label: 'M', sku: 7 }, { sku: 'must_be_string' }],
      ['an unknown field', { size_label: 'M', price: 10 }, { price: 'unknown_field' }],
      ['a product_id in the body', { size_label: 'M', product_id: MISSING_ID }, { product_id: 'unknown_field' }],
    ])('refuses %s with 400 naming the field', async (_, body, errors) => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      expectErrors(await post(admin.secret, variantsOf(storeId, product.id), body), errors);
    });

    it('refuses a second variant with the same external_id in the store with 409 duplicate, on create and on PATCH', async () => {
      const { admin, storeId } = await createTenant(t);
      const first = await createProduct(t, admin.secret, storeId);
      const second = await createProduct(t, admin.secret, storeId);
      const holder = await createVariant(t, admin.secret, storeId, first.id, { external_id: 'v-1' });
      const refusals = [
        await post(admin.secret, variantsOf(storeId, first.id), { size_label: 'L', external_id: 'v-1' }),
        await post(admin.secret, variantsOf(storeId, second.id), { size_label: 'L', external_id: 'v-1' }),
      ];

      const other = await createVariant(t, admin.secret, storeId, second.id, { external_id: 'v-2' });
      const path = `${variantsOf(storeId, second.id)}/${other.id}`;
      refusals.push(await patch(admin.secret, path, { external_id: 'v-1' }));
      for (const refused of refusals) {
        expectProblem(refused, 409, 'duplicate');
        expect(refused.body.existing_id).toBe(holder.id);
      }
      // a variant keeps its own external_id
      expect((await patch(admin.secret, `${variantsOf(storeId, first.id)}/${holder.id}`, { external_id: 'v-1' })).status).toBe(200);
      expect((await get(admin.secret, path)).body).toEqual(other);

      const elsewhere = await createTenant(t);
      const theirs = await createProduct(t, elsewhere.admin.secret, elsewhere.storeId);
      await createVariant(t, elsewhere.admin.secret, elsewhere.storeId, theirs.id, { external_id: 'v-1' });
    });

    it('lets exactly one of two concurrent variant creates with the same external_id through', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      const body = { size_label: 'M', external_id: 'race' };
      const responses = await Promise.all([
        post(admin.secret, variantsOf(storeId, product.id), body),
        post(admin.secret, variantsOf(storeId, product.id), body),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
      expect((await get(admin.secret, variantsOf(storeId, product.id))).body.data).toHaveLength(1);
    });

    it('lists a product’s variants in its chart’s size order, then oldest first, in pages, and no other product’s', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      const other = await createProduct(t, admin.secret, storeId);
      const elsewhere = await createVariant(t, admin.secret, storeId, other.id);
      const id: Record<string, string> = {};
      for (const [name, size_label] of [
        ['L', 'L'],
        ['S', 'S'],
        ['M', 'M'],
        ['S, red', 'S'],
      ]) {
        id[name] = (await createVariant(t, admin.secret, storeId, product.id, { size_label })).id;
      }
      const path = variantsOf(storeId, product.id);
      const ids = (response: Response) => response.body.data.map((v: { id: string }) => v.id);
      expect(ids(await get(admin.secret, path))).toEqual([id.S, id['S, red'], id.M, id.L]);
      const first = await get(admin.secret, `${path}?limit=2`);
      expect(ids(first)).toEqual([id.S, id['S, red']]);
      expect(first.body).toMatchObject({ has_more: true, next_cursor: id['S, red'] });
      const second = await get(admin.secret, `${path}?limit=2&starting_after=${first.body.next_cursor}`);
      expect(ids(second)).toEqual([id.M, id.L]);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      // a cursor that is not one of this product's variants
      expectErrors(await get(admin.secret, `${path}?starting_after=${elsewhere.id}`), { starting_after: 'not_found' });
    });

    it('answers a variant named through another product’s path with 404, and leaves it alone', async () => {
      const { admin, storeId } = await createTenant(t);
      const owner = await createProduct(t, admin.secret, storeId);
      const other = await createProduct(t, admin.secret, storeId);
      const variant = await createVariant(t, admin.secret, storeId, owner.id);
      const wrong = `${variantsOf(storeId, other.id)}/${variant.id}`;
      expectProblem(await get(admin.secret, wrong), 404, 'not_found');
      expectProblem(await patch(admin.secret, wrong, { sku: 'hijack' }), 404, 'not_found');
      expectProblem(await del(admin.secret, wrong), 404, 'not_found');
      expect((await get(admin.secret, `${variantsOf(storeId, owner.id)}/${variant.id}`)).body).toEqual(variant);
    });

    it('deletes a variant with 204', async () => {
      const { admin, storeId } = await createTenant(t);
      const product = await createProduct(t, admin.secret, storeId);
      const variant = await createVariant(t, admin.secret, storeId, product.id);
      const path = `${variantsOf(storeId, product.id)}/${variant.id}`;
      const response = await del(admin.secret, path);
      expect(response.status).toBe(204);
      expectProblem(await get(admin.secret, path), 404, 'not_found');
      expect((await get(admin.secret, variantsOf(storeId, product.id))).body.data).toEqual([]);
      expect((await get(admin.secret, at(storeId, `/products/${product.id}`))).status).toBe(200);
    });
  });
});
