import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../support/app.js';
import {
  createProduct,
  createProductType,
  createSizeChart,
  createVariant,
  DEFAULT_SIZES,
  type ProductBody,
  type SizeChartBody,
  type SizeDefinitionBody,
} from '../support/catalog-fixtures.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Tenant } from '../support/fixtures.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NO_SUCH_ID = '01a200fa-2ffc-76ba-af25-46c685a280e9';

describe('catalog', () => {
  const t = useApp();

  const at = (storeId: string, path: string) => `/v1/stores/${storeId}${path}`;
  const get = (secret: string, path: string) => t.http().get(path).set(bearer(secret));
  const post = (secret: string, path: string, body: object) => t.http().post(path).set(bearer(secret)).send(body);
  const patch = (secret: string, path: string, body: object) => t.http().patch(path).set(bearer(secret)).send(body);
  const del = (secret: string, path: string) => t.http().delete(path).set(bearer(secret));

  /** Three items created oldest to newest read back newest first in pages of two that follow next_cursor. */
  async function expectTwoPages(secret: string, listPath: string, oldestFirst: string[]): Promise<void> {
    expect(oldestFirst).toHaveLength(3);
    const [oldest, middle, newest] = oldestFirst;
    const join = listPath.includes('?') ? '&' : '?';
    const first = await get(secret, `${listPath}${join}limit=2`);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual([newest, middle]);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: middle });
    const second = await get(secret, `${listPath}${join}limit=2&starting_after=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.data.map((item: { id: string }) => item.id)).toEqual([oldest]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const all = await get(secret, listPath);
    expect(all.body.data.map((item: { id: string }) => item.id)).toEqual([newest, middle, oldest]);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
  }

  /** A product that a fit session refers to, so that deleting it archives it. */
  async function startSession(secret: string, storeId: string, productId: string): Promise<Response> {
    const response = await post(secret, at(storeId, '/sessions'), { product_id: productId });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return response;
  }

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
      ['a store_id in the body', { store_id: NO_SUCH_ID }, { store_id: 'unknown_field' }],
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
      ['an unknown field', { id: NO_SUCH_ID }, { id: 'unknown_field' }],
    ])('refuses a PATCH with %s and changes nothing', async (_, body, errors) => {
      const { admin, storeId } = await createTenant(t);
      const type = await createProductType(t, admin.secret, storeId);
      const path = `${typesOf(storeId)}/${type.id}`;
      expectErrors(await patch(admin.secret, path, body), errors);
      expect((await get(admin.secret, path)).body).toEqual(type);
    });
  });

  describe('size charts', () => {
    const chartsOf = (storeId: string) => at(storeId, '/size-charts');
    const withSizes = (sizes: unknown) => ({ name: 'Chart', unit: 'cm', measurement_type: 'body', sizes });

    it('creates a body chart in cm and reads it back', async () => {
      const { admin, storeId } = await createTenant(t);
      const response = await post(admin.secret, chartsOf(storeId), withSizes(DEFAULT_SIZES));
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(String),
        store_id: storeId,
        name: 'Chart',
        unit: 'cm',
        measurement_type: 'body',
        ease_cm: null,
        sizes: DEFAULT_SIZES,
        archived_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const read = await get(admin.secret, `${chartsOf(storeId)}/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it('keeps an imperial chart in inches exactly as sent', async () => {
      const { admin, storeId } = await createTenant(t);
      const sizes: SizeDefinitionBody[] = [
        { label: '30', measurements: { waist: { min: 29.5, max: 30.75 }, inseam: { min: 30, max: 32 } } },
        { label: '32', measurements: { waist: { min: 30.75, max: 32.5 }, inseam: { min: 30, max: 32 } } },
        { label: '34', measurements: { waist: { min: 32.5, max: 34.25 }, inseam: { min: 32, max: 34 } } },
      ];
      const chart = await createSizeChart(t, admin.secret, storeId, { name: 'US jeans', unit: 'in', sizes });
      expect(chart).toMatchObject({ name: 'US jeans', unit: 'in', measurement_type: 'body', sizes });
      expect((await get(admin.secret, `${chartsOf(storeId)}/${chart.id}`)).body).toEqual(chart);
    });

    it('creates a garment chart with its ease', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId, { measurement_type: 'garment', ease_cm: 6.5 });
      expect(chart).toMatchObject({ measurement_type: 'garment', ease_cm: 6.5 });
      const zero = await createSizeChart(t, admin.secret, storeId, { measurement_type: 'garment', ease_cm: 0 });
      expect(zero.ease_cm).toBe(0);
    });

    it('refuses a garment chart without ease_cm, and a body chart with one', async () => {
      const { admin, storeId } = await createTenant(t);
      expectErrors(await post(admin.secret, chartsOf(storeId), { ...withSizes(DEFAULT_SIZES), measurement_type: 'garment' }), {
        ease_cm: 'required',
      });
      expectErrors(await post(admin.secret, chartsOf(storeId), { ...withSizes(DEFAULT_SIZES), ease_cm: 4 }), {
        ease_cm: 'garment_only',
      });
      expect((await get(admin.secret, chartsOf(storeId))).body.data).toEqual([]);
    });

    it('accepts sizes that share a range and a single size', async () => {
      const { admin, storeId } = await createTenant(t);
      const same = { chest: { min: 90, max: 100 } };
      await createSizeChart(t, admin.secret, storeId, {
        sizes: [
          { label: 'S', measurements: same },
          { label: 'M', measurements: same },
        ],
      });
      await createSizeChart(t, admin.secret, storeId, { sizes: [{ label: 'One size', measurements: { head: { min: 54, max: 60 } } }] });
    });

    const S = { label: 'S', measurements: { chest: { min: 86, max: 94 } } };
    const M = { label: 'M', measurements: { chest: { min: 94, max: 102 } } };
    it.each([
      ['a duplicate label', { sizes: [S, { ...M, label: 'S' }] }, { 'sizes[1].label': 'duplicate_label' }],
      [
        'min above max',
        { sizes: [{ label: 'S', measurements: { chest: { min: 94, max: 86 } } }] },
        { 'sizes[0].measurements.chest': 'min_not_below_max' },
      ],
      [
        'min equal to max',
        { sizes: [S, { label: 'M', measurements: { chest: { min: 94, max: 94 } } }] },
        { 'sizes[1].measurements.chest': 'min_not_below_max' },
      ],
      ['sizes largest first', { sizes: [M, S] }, { 'sizes[1].measurements.chest': 'not_ascending' }],
      ['no sizes', { sizes: [] }, { sizes: 'must_not_be_empty' }],
      ['sizes left out', { sizes: undefined }, { sizes: 'must_be_array' }],
      ['sizes as an object', { sizes: { S } }, { sizes: 'must_be_array' }],
      [
        'an unknown zone in a size',
        { sizes: [S, { label: 'M', measurements: { chest: { min: 94, max: 102 }, elbow: { min: 1, max: 2 } } }] },
        { 'sizes[1].measurements.elbow': 'unknown_zone' },
      ],
      ['a size without measurements', { sizes: [{ label: 'S', measurements: {} }] }, { 'sizes[0].measurements': 'must_be_object' }],
      [
        'a range without max',
        { sizes: [{ label: 'S', measurements: { chest: { min: 86 } } }] },
        { 'sizes[0].measurements.chest': 'must_be_range' },
      ],
      [
        'a negative range',
        { sizes: [{ label: 'S', measurements: { chest: { min: -1, max: 5 } } }] },
        { 'sizes[0].measurements.chest': 'out_of_range' },
      ],
      ['an unknown field in a size', { sizes: [{ ...S, colour: 'red' }] }, { 'sizes[0].colour': 'unknown_field' }],
      ['a blank label', { sizes: [{ ...S, label: ' ' }] }, { 'sizes[0].label': 'invalid_label' }],
      [
        '51 sizes',
        { sizes: Array.from({ length: 51 }, (_, i) => ({ label: `S${i}`, measurements: { chest: { min: 50 + i, max: 51 + i } } })) },
        { sizes: 'too_many_items' },
      ],
      ['an unknown unit', { unit: 'mm' }, { unit: 'not_allowed_value' }],
      ['an unknown measurement type', { measurement_type: 'model' }, { measurement_type: 'not_allowed_value' }],
      ['a negative ease', { measurement_type: 'garment', ease_cm: -1 }, { ease_cm: 'too_small' }],
      ['an ease over 50 cm', { measurement_type: 'garment', ease_cm: 51 }, { ease_cm: 'too_large' }],
      ['an unknown field', { archived_at: null }, { archived_at: 'unknown_field' }],
    ])('refuses %s with 400 naming the field, and creates nothing', async (_, override, errors) => {
      const { admin, storeId } = await createTenant(t);
      expectErrors(await post(admin.secret, chartsOf(storeId), { ...withSizes([S, M]), ...override }), errors);
      expect((await get(admin.secret, chartsOf(storeId))).body.data).toEqual([]);
    });

    it('reports every offending field of one body in a single 400', async () => {
      const { admin, storeId } = await createTenant(t);
      const response = await post(admin.secret, chartsOf(storeId), {
        name: 42,
        unit: 'cm',
        measurement_type: 'body',
        sizes: [
          { label: 'S', measurements: { chest: { min: 94, max: 86 }, elbow: { min: 1, max: 2 } } },
          { label: 'S', measurements: { chest: { min: 94, max: 102 } } },
        ],
      });
      expectErrors(response, {
        name: 'must_be_string',
        'sizes[0].measurements.chest': 'min_not_below_max',
        'sizes[0].measurements.elbow': 'unknown_zone',
        'sizes[1].label': 'duplicate_label',
      });
    });

    it('replaces the sizes on PATCH and changes only the fields sent', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const path = `${chartsOf(storeId)}/${chart.id}`;
      const sizes = [S, M, { label: 'XL', measurements: { chest: { min: 110, max: 118 } } }];
      const response = await patch(admin.secret, path, { sizes });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...chart, sizes, updated_at: expect.stringMatching(TIMESTAMP) });

      const renamed = await patch(admin.secret, path, { name: 'Renamed', unit: 'in' });
      expect(renamed.body).toMatchObject({ name: 'Renamed', unit: 'in', measurement_type: 'body', ease_cm: null, sizes });
      expect((await get(admin.secret, path)).body).toEqual(renamed.body);
    });

    it('switches a chart between body and garment, asking for an ease only for garment', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const path = `${chartsOf(storeId)}/${chart.id}`;
      expectErrors(await patch(admin.secret, path, { measurement_type: 'garment' }), { ease_cm: 'required' });
      expectErrors(await patch(admin.secret, path, { ease_cm: 3 }), { ease_cm: 'garment_only' });
      expect((await get(admin.secret, path)).body).toEqual(chart);

      const garment = await patch(admin.secret, path, { measurement_type: 'garment', ease_cm: 5 });
      expect(garment.body).toMatchObject({ measurement_type: 'garment', ease_cm: 5 });
      const eased = await patch(admin.secret, path, { ease_cm: 7 });
      expect(eased.body).toMatchObject({ measurement_type: 'garment', ease_cm: 7 });
      const kept = await patch(admin.secret, path, { name: 'Still garment' });
      expect(kept.body).toMatchObject({ measurement_type: 'garment', ease_cm: 7 });
      const body = await patch(admin.secret, path, { measurement_type: 'body' });
      expect(body.status).toBe(200);
      expect(body.body).toMatchObject({ measurement_type: 'body', ease_cm: null });
    });

    it('refuses a PATCH that drops or renames a label variants use, and allows dropping an unused one', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const product = await createProduct(t, admin.secret, storeId, { size_chart_id: chart.id });
      await createVariant(t, admin.secret, storeId, product.id, { size_label: 'M' });
      const path = `${chartsOf(storeId)}/${chart.id}`;
      const [small, medium, large] = DEFAULT_SIZES;

      expectErrors(await patch(admin.secret, path, { sizes: [small, large] }), { sizes: 'label_in_use' });
      expectErrors(await patch(admin.secret, path, { sizes: [small, { ...medium, label: 'Medium' }, large] }), {
        sizes: 'label_in_use',
      });
      expect((await get(admin.secret, path)).body.sizes).toEqual(DEFAULT_SIZES);

      const trimmed = await patch(admin.secret, path, { sizes: [medium, large] });
      expect(trimmed.status).toBe(200);
      expect(trimmed.body.sizes).toEqual([medium, large]);
    });

    it.each([
      ['not ascending sizes', { sizes: [M, S] }, { 'sizes[1].measurements.chest': 'not_ascending' }],
      ['null sizes', { sizes: null }, { sizes: 'must_be_array' }],
      ['an unknown unit', { unit: 'ft' }, { unit: 'not_allowed_value' }],
      ['an unknown field', { store_id: NO_SUCH_ID }, { store_id: 'unknown_field' }],
    ])('refuses a PATCH with %s and changes nothing', async (_, body, errors) => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const path = `${chartsOf(storeId)}/${chart.id}`;
      expectErrors(await patch(admin.secret, path, body), errors);
      expect((await get(admin.secret, path)).body).toEqual(chart);
    });

    it('deletes a chart nothing refers to with 204', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const response = await del(admin.secret, `${chartsOf(storeId)}/${chart.id}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expectProblem(await get(admin.secret, `${chartsOf(storeId)}/${chart.id}`), 404, 'not_found');
    });

    it('refuses to delete a chart an active product uses with 409 in_use', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      await createProduct(t, admin.secret, storeId, { size_chart_id: chart.id });
      expectProblem(await del(admin.secret, `${chartsOf(storeId)}/${chart.id}`), 409, 'in_use');
      expect((await get(admin.secret, `${chartsOf(storeId)}/${chart.id}`)).body).toEqual(chart);
    });

    it('archives a chart that only an archived product refers to, and then refuses it for new products', async () => {
      const { admin, storeId } = await createTenant(t);
      const chart = await createSizeChart(t, admin.secret, storeId);
      const product = await createProduct(t, admin.secret, storeId, { size_chart_id: chart.id });
      await startSession(admin.secret, storeId, product.id);
      expect((await del(admin.secret, at(storeId, `/products/${product.id}`))).status).toBe(200);

      const archived = await del(admin.secret, `${chartsOf(storeId)}/${chart.id}`);
      expect(archived.status).toBe(200);
      expect(archived.body).toEqual({
        ...chart,
        archived_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect((await get(admin.secret, `${chartsOf(storeId)}/${chart.id}`)).body).toEqual(archived.body);

      const again = await del(admin.secret, `${chartsOf(storeId)}/${chart.id}`);
      expect(again.status).toBe(200);
      expect(again.body.archived_at).toBe(archived.body.archived_at);

      const type = await createProductType(t, admin.secret, storeId);
      expectErrors(
        await post(admin.secret, at(storeId, '/products'), { title: 'New', product_type_id: type.id, size_chart_id: chart.id }),
        {
          size_chart_id: 'archived',
        },
      );
      const other = await createProduct(t, admin.secret, storeId, { product_type_id: type.id });
      expectErrors(await patch(admin.secret, at(storeId, `/products/${other.id}`), { size_chart_id: chart.id }), {
        size_chart_id: 'archived',
      });
    });

    it('archives a chart that a session refers to after its product moved to another chart', async () => {
      const { admin, storeId } = await createTenant(t);
      const first = await createSizeChart(t, admin.secret, storeId, { name: 'First' });
      const second = await createSizeChart(t, admin.secret, storeId, { name: 'Second' });
      const product = await createProduct(t, admin.secret, storeId, { size_chart_id: first.id });
      await startSession(admin.secret, storeId, product.id);
      const moved = await patch(admin.secret, at(storeId, `/products/${product.id}`), { size_chart_id: second.id });
      expect(moved.status).toBe(200);

      const response = await del(admin.secret, `${chartsOf(storeId)}/${first.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: first.id, archived_at: expect.stringMatching(TIMESTAMP) });
    });

    it('lists size charts newest first in pages that follow next_cursor', async () => {
      const { admin, storeId } = await createTenant(t);
      const ids: string[] = [];
      for (const name of ['A', 'B', 'C']) ids.push((await createSizeChart(t, admin.secret, storeId, { name })).id);
      await expectTwoPages(admin.secret, chartsOf(storeId), ids);
    });
  });

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
      ['a product_type_id that names nothing', { product_type_id: NO_SUCH_ID }, { product_type_id: 'not_found' }],
      ['a size_chart_id that names nothing', { size_chart_id: NO_SUCH_ID }, { size_chart_id: 'not_found' }],
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
      ['a product_id in the body', { size_label: 'M', product_id: NO_SUCH_ID }, { product_id: 'unknown_field' }],
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

  describe('concurrent writes', () => {
    /**
     * Concurrent requests are repeated: on PostgreSQL they really run side by side, and a race shows in a few rounds.
     * The embedded database runs one transaction at a time, so one round is all it needs.
     */
    const ROUNDS = process.env.DATABASE_URL ? 5 : 1;

    /** `201`, `409:in_use`, `400:size_label/unknown_size`: what a client would branch on. */
    const outcome = (response: Response): string => {
      if (response.status === 400) {
        return `400:${(response.body.errors as { field: string; code: string }[]).map((e) => `${e.field}/${e.code}`).join(',')}`;
      }
      return response.body?.code ? `${response.status}:${response.body.code}` : String(response.status);
    };

    /** The outcomes of a race: one of the orders the requests could have run in. */
    function expectOneOf(seen: string[], allowed: string[][]): void {
      expect(seen).toEqual(allowed.find((one) => one.join() === seen.join()) ?? allowed);
    }

    it('a product type deleted while a product is created with it ends one way or the other, never in a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const type = await createProductType(t, admin.secret, storeId);
        const chart = await createSizeChart(t, admin.secret, storeId);
        const [created, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/products'), { title: 'Race', product_type_id: type.id, size_chart_id: chart.id }),
          del(admin.secret, at(storeId, `/product-types/${type.id}`)),
        ]);
        expectOneOf(
          [outcome(created), outcome(deleted)],
          [
            ['201', '409:in_use'],
            ['400:product_type_id/not_found', '204'],
          ],
        );
      }
    });

    it('a size chart deleted while a product is created with it ends one way or the other, never in a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const type = await createProductType(t, admin.secret, storeId);
        const chart = await createSizeChart(t, admin.secret, storeId);
        const [created, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/products'), { title: 'Race', product_type_id: type.id, size_chart_id: chart.id }),
          del(admin.secret, at(storeId, `/size-charts/${chart.id}`)),
        ]);
        expectOneOf(
          [outcome(created), outcome(deleted)],
          [
            ['201', '409:in_use'],
            ['400:size_chart_id/not_found', '204'],
          ],
        );
      }
    });

    it('a product deleted while a session starts on it is either archived or gone, never a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const product = await createProduct(t, admin.secret, storeId);
        const [started, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/sessions'), { product_id: product.id }),
          del(admin.secret, at(storeId, `/products/${product.id}`)),
        ]);
        expectOneOf(
          [outcome(started), outcome(deleted)],
          [
            ['201', '200'],
            ['400:product_id/not_found', '204'],
          ],
        );
      }
    });

    it('a chart that drops a size while a variant of that size is created never leaves the variant without its size', async () => {
      const [small, medium] = DEFAULT_SIZES;
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const product = await createProduct(t, admin.secret, storeId);
        const [variant, trimmed] = await Promise.all([
          post(admin.secret, at(storeId, `/products/${product.id}/variants`), { size_label: 'L' }),
          patch(admin.secret, at(storeId, `/size-charts/${product.size_chart_id}`), { sizes: [small, medium] }),
        ]);
        expectOneOf(
          [outcome(variant), outcome(trimmed)],
          [
            ['201', '400:sizes/label_in_use'],
            ['400:size_label/unknown_size', '200'],
          ],
        );
        const labels = (await get(admin.secret, at(storeId, `/size-charts/${product.size_chart_id}`))).body.sizes.map(
          (size: SizeDefinitionBody) => size.label,
        );
        const variants = (await get(admin.secret, at(storeId, `/products/${product.id}/variants`))).body.data as { size_label: string }[];
        for (const { size_label } of variants) expect(labels).toContain(size_label);
      }
    });
  });

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
      const missing = await get(mine.admin.secret, at(mine.storeId, `/products/${NO_SUCH_ID}`));
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
      for (const id of ['not-an-id', NO_SUCH_ID, NO_SUCH_ID.toUpperCase(), '1']) {
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
