/**
 * Catalog e2e: product types — create, read, change, delete (refused while in use), list, and the validation of their bodies.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { catalogRequests, createProduct, createProductType } from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors, expectProblem, TIMESTAMP, MISSING_ID } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del, expectTwoPages, startSession } = catalogRequests(t);

  describe('product types', () => {
    const typesOf = (storeId: string) => at(storeId, '/product-types');

    it('creates a product type and reads it back', async () => {
      const { admin, storeId } = await createTenant(t);
      const response = await post(admin.secret, typesOf(storeId), {
        name: 'Jeans',
        category: 'bottoms',
        zone_weights: { waist: 1, hip: 0.8, inseam: 0.6, thigh: 0 },
      });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        id: expect.any(String),
        store_id: storeId,
        name: 'Jeans',
        category: 'bottoms',
        zone_weights: { waist: 1, hip: 0.8, inseam: 0.6, thigh: 0 },
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const read = await get(admin.secret, `${typesOf(storeId)}/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it('accepts every category and every zone, with weights from 0 to 10', async () => {
      const { admin, storeId } = await createTenant(t);
      const zones = ['chest', 'waist', 'hip', 'inseam', 'neck', 'sleeve', 'foot_length', 'head', 'thigh'];
      for (const category of ['tops', 'bottoms', 'dresses', 'outerwear', 'shoes', 'other']) {
        const weights = Object.fromEntries(zones.map((zone, i) => [zone, i === 0 ? 10 : i === 1 ? 0 : 0.25 * i]));
        const type = await createProductType(t, admin.secret, storeId, { category, zone_weights: weights });
        expect(type).toMatchObject({ category, zone_weights: weights });
      }
    });

    it('changes only the fields a PATCH sends, and replaces zone_weights as a whole', async () => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId, { zone_weights: { chest: 1, waist: 0.5 } });
      const path = `${typesOf(storeId)}/${type.id}`;

      const renamed = await patch(admin.secret, path, { name: 'Polo' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...type, name: 'Polo', updated_at: expect.stringMatching(TIMESTAMP) });

      const recategorised = await patch(admin.secret, path, { category: 'outerwear' });
      expect(recategorised.body).toMatchObject({ name: 'Polo', category: 'outerwear', zone_weights: { chest: 1, waist: 0.5 } });

      const reweighted = await patch(admin.secret, path, { zone_weights: { neck: 2 } });
      expect(reweighted.status).toBe(200);
      expect(reweighted.body.zone_weights).toEqual({ neck: 2 });

      const unchanged = await patch(admin.secret, path, {});
      expect(unchanged.status).toBe(200);
      expect(unchanged.body).toMatchObject({ name: 'Polo', category: 'outerwear', zone_weights: { neck: 2 } });
      expect((await get(admin.secret, path)).body).toEqual(unchanged.body);
    });

    it('deletes an unused product type with 204', async () => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId);
      const response = await del(admin.secret, `${typesOf(storeId)}/${type.id}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expectProblem(await get(admin.secret, `${typesOf(storeId)}/${type.id}`), 404, 'not_found');
      expect((await get(admin.secret, typesOf(storeId))).body.data).toEqual([]);
      expectProblem(await del(admin.secret, `${typesOf(storeId)}/${type.id}`), 404, 'not_found');
    });

    it('refuses to delete a product type that a product uses with 409 in_use, until the product is gone', async () => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId);
      const product = await createProduct(t, admin.secret, storeId, { product_type_id: type.id });
      const refused = await del(admin.secret, `${typesOf(storeId)}/${type.id}`);
      expectProblem(refused, 409, 'in_use');
      expect((await t.http().get(refused.body.type)).status).toBe(200);
      expect((await get(admin.secret, `${typesOf(storeId)}/${type.id}`)).status).toBe(200);

      expect((await del(admin.secret, at(storeId, `/products/${product.id}`))).status).toBe(204);
      expect((await del(admin.secret, `${typesOf(storeId)}/${type.id}`)).status).toBe(204);
    });

    it('refuses to delete a product type that only an archived product uses with 409 in_use', async () => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId);
      const product = await createProduct(t, admin.secret, storeId, { product_type_id: type.id });
      await startSession(admin.secret, storeId, product.id);
      expect((await del(admin.secret, at(storeId, `/products/${product.id}`))).status).toBe(200);
      expectProblem(await del(admin.secret, `${typesOf(storeId)}/${type.id}`), 409, 'in_use');
    });

    it('lists product types newest first in pages that follow next_cursor', async () => {
      const { admin, storeId } = await createTenant(t);
      const ids: string[] = [];
      for (const name of ['A', 'B', 'C']) ids.push((await createProductType(t, admin.secret, storeId, { name })).id);
      await expectTwoPages(admin.secret, typesOf(storeId), ids);
    });

    it.each([
      ['an unknown zone', { zone_weights: { chest: 1, elbow: 1 } }, { 'zone_weights.elbow': 'unknown_zone' }],
      ['only zero weights', { zone_weights: { chest: 0, waist: 0 } }, { zone_weights: 'no_weighted_zone' }],
      ['no zone at all', { zone_weights: {} }, { zone_weights: 'no_weighted_zone' }],
      ['a weight above 10', { zone_weights: { chest: 10.5 } }, { 'zone_weights.chest': 'out_of_range' }],
      ['a negative weight', { zone_weights: { chest: 1, waist: -0.1 } }, { 'zone_weights.waist': 'out_of_range' }],
      ['a weight that is a string', { zone_weights: { chest: '1' } }, { 'zone_weights.chest': 'must_be_number' }],
      ['zone_weights as an array', { zone_weights: [{ chest: 1 }] }, { zone_weights: 'must_be_object' }],
      ['zone_weights null', { zone_weights: null }, { zone_weights: 'must_be_object' }],
      ['an unknown category', { category: 'hats' }, { category: 'not_allowed_value' }],
      ['a numeric name', { name: 5 }, { name: 'must_be_string' }],
      ['a blank name', { name: '   ' }, { name: undefined }],
      ['an unknown field', { colour: 'red' }, { colour: 'unknown_field' }],
      ['a store_id in the body', { store_id: MISSING_ID }, { store_id: 'unknown_field' }],
    ])('refuses %s with 400 naming the field, and creates nothing', async (_, override, errors) => {
      const { admin, storeId } = await createTenant(t);
      const body = { name: 'Tee', category: 'tops', zone_weights: { chest: 1 }, ...override };
      expectErrors(await post(admin.secret, typesOf(storeId), body), errors);
      expect((await get(admin.secret, typesOf(storeId))).body.data).toEqual([]);
    });

    it('refuses a body without its required fields, naming each', async () => {
      const { admin, storeId } = await createTenant(t);
      expectErrors(await post(admin.secret, typesOf(storeId), {}), { name: undefined, category: undefined, zone_weights: undefined });
    });

    it('reports every offending field of one body in a single 400', async () => {
      const { admin, storeId } = await createTenant(t);
      const response = await post(admin.secret, typesOf(storeId), {
        name: 42,
        category: 'hats',
        zone_weights: { chest: 1, elbow: 1, waist: 11 },
        colour: 'red',
      });
      expectErrors(response, {
        name: 'must_be_string',
        category: 'not_allowed_value',
        'zone_weights.elbow': 'unknown_zone',
        'zone_weights.waist': 'out_of_range',
        colour: 'unknown_field',
      });
    });

    it.each([
      ['an unknown zone', { zone_weights: { knee: 1 } }, { 'zone_weights.knee': 'unknown_zone' }],
      ['only zero weights', { zone_weights: { chest: 0 } }, { zone_weights: 'no_weighted_zone' }],
      ['null zone_weights', { zone_weights: null }, { zone_weights: 'must_be_object' }],
      ['a null name', { name: null }, { name: undefined }],
      ['an unknown field', { id: MISSING_ID }, { id: 'unknown_field' }],
    ])('refuses a PATCH with %s and changes nothing', async (_, body, errors) => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId);
      const path = `${typesOf(storeId)}/${type.id}`;
      expectErrors(await patch(admin.secret, path, body), errors);
      expect((await get(admin.secret, path)).body).toEqual(type);
    });
  });
});
