/**
 * Catalog e2e: a product whose type weighs zones its size chart does not state cannot be made, whichever edit would
 * pair them (a new product, a product moved to another type or chart, a type's new weights, a chart's new sizes); the
 * 400 names the zones.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { catalogRequests, createProduct, createProductType, createSizeChart, DEFAULT_SIZES } from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors } from '../../support/fixtures.js';

/** Body sizes measured at hip and inseam only. */
const BOTTOM_SIZES = [
  { label: '30', measurements: { hip: { min: 90, max: 96 }, inseam: { min: 76, max: 80 } } },
  { label: '32', measurements: { hip: { min: 96, max: 102 }, inseam: { min: 78, max: 82 } } },
];

const zonesError = (response: { body: { errors?: { field: string; code: string; message: string }[] } }) =>
  response.body.errors?.[0]?.message ?? '';

describe('catalog: zones a product type weighs and its chart states', () => {
  const t = useApp();
  const { at, get, post, patch } = catalogRequests(t);

  it('refuses a product whose type weighs hip and inseam on a chest and waist chart, naming both zones', async () => {
    const tenant = await createTenant(t);
    const trousers = await createProductType(t, tenant.admin.secret, tenant.storeId, {
      name: 'Trousers',
      category: 'bottoms',
      zone_weights: { hip: 1, inseam: 0.5, waist: 1 },
    });
    const tops = await createSizeChart(t, tenant.admin.secret, tenant.storeId);
    const refused = await post(tenant.admin.secret, at(tenant.storeId, '/products'), {
      title: 'Chinos',
      product_type_id: trousers.id,
      size_chart_id: tops.id,
    });
    expectErrors(refused, { size_chart_id: 'zones_not_in_chart' });
    expect(zonesError(refused)).toBe(
      'the product type weighs hip and inseam, but its size chart states no range for them: use a chart that measures ' +
        'hip and inseam, or give them the weight 0 in the product type',
    );
    expect((await get(tenant.admin.secret, at(tenant.storeId, '/products'))).body.data).toEqual([]);

    // a zone at weight 0 is not weighed: the same chart is then fine
    const waistOnly = await createProductType(t, tenant.admin.secret, tenant.storeId, {
      name: 'Waist only',
      category: 'bottoms',
      zone_weights: { hip: 0, waist: 1 },
    });
    const accepted = await post(tenant.admin.secret, at(tenant.storeId, '/products'), {
      title: 'Joggers',
      product_type_id: waistOnly.id,
      size_chart_id: tops.id,
    });
    expect(accepted.status).toBe(201);
  });

  it('refuses moving a product to a type or a chart that do not agree, and leaves it as it was', async () => {
    const tenant = await createTenant(t);
    const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
    const path = at(tenant.storeId, `/products/${product.id}`);
    const trousers = await createProductType(t, tenant.admin.secret, tenant.storeId, {
      category: 'bottoms',
      zone_weights: { hip: 1 },
    });
    const bottoms = await createSizeChart(t, tenant.admin.secret, tenant.storeId, { sizes: BOTTOM_SIZES });

    const newType = await patch(tenant.admin.secret, path, { product_type_id: trousers.id });
    expectErrors(newType, { product_type_id: 'zones_not_in_chart' });
    expect(zonesError(newType)).toMatch(/^the product type weighs hip, but its size chart states no range for it/);

    const newChart = await patch(tenant.admin.secret, path, { size_chart_id: bottoms.id });
    expectErrors(newChart, { size_chart_id: 'zones_not_in_chart' });
    expect(zonesError(newChart)).toMatch(/^the product type weighs chest and waist, but its size chart/);
    expect((await get(tenant.admin.secret, path)).body).toEqual(product);

    // both at once agree
    const moved = await patch(tenant.admin.secret, path, { product_type_id: trousers.id, size_chart_id: bottoms.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ product_type_id: trousers.id, size_chart_id: bottoms.id });
  });

  it("refuses new weights of a type that its products' charts do not state, naming the product", async () => {
    const tenant = await createTenant(t);
    const type = await createProductType(t, tenant.admin.secret, tenant.storeId);
    await createProduct(t, tenant.admin.secret, tenant.storeId, { title: 'Crew tee', product_type_id: type.id });
    const path = at(tenant.storeId, `/product-types/${type.id}`);

    const refused = await patch(tenant.admin.secret, path, { zone_weights: { chest: 1, neck: 1 } });
    expectErrors(refused, { zone_weights: 'zones_not_in_chart' });
    expect(zonesError(refused)).toMatch(/^the product type weighs neck, but the size chart of "Crew tee" states no range for it/);
    expect((await get(tenant.admin.secret, path)).body).toEqual(type);

    const accepted = await patch(tenant.admin.secret, path, { zone_weights: { chest: 1 }, name: 'Tee' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ name: 'Tee', zone_weights: { chest: 1 } });
  });

  it("refuses new sizes of a chart that leave out a zone its products' types weigh", async () => {
    const tenant = await createTenant(t);
    const chart = await createSizeChart(t, tenant.admin.secret, tenant.storeId);
    await createProduct(t, tenant.admin.secret, tenant.storeId, { title: 'Crew tee', size_chart_id: chart.id });
    const path = at(tenant.storeId, `/size-charts/${chart.id}`);
    const chestOnly = DEFAULT_SIZES.map((size) => ({ label: size.label, measurements: { chest: size.measurements.chest } }));

    const refused = await patch(tenant.admin.secret, path, { sizes: chestOnly });
    expectErrors(refused, { sizes: 'zones_not_in_chart' });
    expect(zonesError(refused)).toMatch(/^the product type of "Crew tee" weighs waist, but the chart as edited states no range for it/);
    expect((await get(tenant.admin.secret, path)).body).toEqual(chart);

    // a zone stated by some sizes only is stated: the engine reads it where it is given
    const partly = [chestOnly[0], ...DEFAULT_SIZES.slice(1)];
    expect((await patch(tenant.admin.secret, path, { sizes: partly })).status).toBe(200);
  });
});
