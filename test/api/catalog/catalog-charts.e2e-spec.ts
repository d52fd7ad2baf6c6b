/**
 * Catalog e2e: size charts — body and garment charts in cm or inches, their sizes and validation, changes that
 * variants constrain, delete or archive, and the list.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import {
  catalogRequests,
  createProduct,
  createProductType,
  createSizeChart,
  createVariant,
  DEFAULT_SIZES,
  type SizeDefinitionBody,
} from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors, expectProblem, TIMESTAMP, MISSING_ID } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del, expectTwoPages, startSession } = catalogRequests(t);

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
      ['sizes left out', { sizes: undefined }, { sizes: 'required' }],
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
      ['an unknown field', { store_id: MISSING_ID }, { store_id: 'unknown_field' }],
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
});
