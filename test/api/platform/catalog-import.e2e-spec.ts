import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { bearer } from '../../support/app.js';
import { findAll, textOf } from '../../support/console-client.js';
import { db } from '../../support/console-fixtures.js';
import { callback, type ConsoleSession, importFinished, usePlatformConnection } from '../../support/platform-console.js';
import { notification, standinProducts } from '../../support/platform-standin.js';
import { createProductType, createSizeChart } from '../../support/catalog-fixtures.js';
import { createShop } from '../../support/session-fixtures.js';

let shops = 0;

describe('the import of a connected shop’s catalog', () => {
  const connection = usePlatformConnection();
  const t = () => connection.t;

  const finished = (storeId: string) => importFinished(t(), storeId);

  async function connectShop(session: ConsoleSession, storeId: string, domain: string): Promise<void> {
    const done = await callback(session, await connection.approved(session, storeId, domain));
    expect(done.status).toBe(303);
  }

  it('imports 2,000 products page by page through the platform’s rate limit: each once, sizes found by name, linked, skipped and needing a chart', async () => {
    const { tenant, session } = await connection.fresh();
    const domain = `import-${++shops}-${Date.now()}.myshopify.com`;
    connection.platform.catalogs.set(domain, standinProducts(2000));
    // One product of the shop is in the catalog already, under its platform id.
    const shop = await createShop(t(), tenant.storeId, tenant.admin.secret);
    const patched = await t()
      .http()
      .patch(`/v1/stores/${shop.storeId}/products/${shop.productId}`)
      .set(bearer(shop.secret))
      .send({ external_id: '1000' });
    expect(patched.status).toBe(200);

    const requestsBefore = connection.platform.adminRequests.length;
    connection.platform.rateLimitEvery = 3;
    try {
      await connectShop(session, tenant.storeId, domain);
      const done = await finished(tenant.storeId);
      expect(done).toMatchObject({ state: 'done', pages: 8, next_page: null, error: null });
    } finally {
      connection.platform.rateLimitEvery = 0;
    }
    const requests = connection.platform.adminRequests.slice(requestsBefore).filter((request) => request.shop === domain);
    expect(requests.filter((request) => request.status === 429).length).toBeGreaterThanOrEqual(3);
    // Every page was read once it was answered: 8 pages answered 200, each page's cursor asked for once.
    const answered = requests
      .filter((request) => request.status === 200)
      .map((request) => new URLSearchParams(request.query).get('page_info'));
    expect(answered).toHaveLength(8);
    expect(new Set(answered).size).toBe(8);

    const [counts] = await db(t()).query(
      `SELECT count(*)::int AS products, count(DISTINCT platform_id)::int AS distinct_products,
              sum(jsonb_array_length(variants))::int AS variants,
              count(*) FILTER (WHERE size_option IS NULL)::int AS skipped,
              count(*) FILTER (WHERE product_id IS NOT NULL)::int AS linked
         FROM platform_products WHERE store_id = $1`,
      [tenant.storeId],
    );
    expect(counts).toEqual({ products: 2000, distinct_products: 2000, variants: 1800 * 4 + 200, skipped: 200, linked: 1 });
    const options = (await db(t()).query(`SELECT DISTINCT size_option FROM platform_products WHERE store_id = $1`, [
      tenant.storeId,
    ])) as Array<{
      size_option: string | null;
    }>;
    expect(options.map((row) => String(row.size_option)).sort()).toEqual(
      ['Größe', 'Maat', 'Size', 'Taglia', 'Taille', 'Talla', 'null', 'size'].sort(),
    );

    const page = await session.get(`/console/stores/${tenant.storeId}/platform`);
    expect(page.status).toBe(200);
    const [section] = findAll(page.text, 'section', { id: 'catalog-import' });
    expect(section.attrs['data-state']).toBe('done');
    const count = (name: string) => textOf(findAll(section.inner, 'span', { 'data-count': name })[0].inner);
    expect([count('products'), count('variants'), count('linked'), count('needs-chart'), count('skipped')]).toEqual([
      '2000 products',
      '7400 variants',
      '1 in the catalog',
      '1799 need a chart',
      '200 skipped',
    ]);
    expect(findAll(section.inner, 'details', { 'data-list': 'skipped' })).toHaveLength(1);
    expect(textOf(section.inner)).toContain('Product 1001');

    // Again, from the first page: the same products, none twice.
    await session.get(`/console/stores/${tenant.storeId}/platform`);
    const again = await session.post(`/console/stores/${tenant.storeId}/platform/import`);
    expect(again.headers.location).toBe(`/console/stores/${tenant.storeId}/platform?importing=1`);
    expect(await finished(tenant.storeId)).toMatchObject({ state: 'done', pages: 8 });
    // The notice that the read started goes once it has ended, even on the address that asked for it.
    expect(findAll((await session.get(again.headers.location)).text, 'p', { 'data-status': 'importing' })).toEqual([]);
    const [after] = await db(t()).query(`SELECT count(*)::int AS n FROM platform_products WHERE store_id = $1`, [tenant.storeId]);
    expect(after.n).toBe(2000);
  });

  it('stops with a reason the merchant can act on when the shop refuses the app’s token, and keeps nothing of another shop', async () => {
    const { tenant, session } = await connection.fresh();
    const domain = `refused-${++shops}-${Date.now()}.myshopify.com`;
    connection.platform.catalogs.set(domain, standinProducts(3));
    await connectShop(session, tenant.storeId, domain);
    expect(await finished(tenant.storeId)).toMatchObject({ state: 'done', pages: 1 });
    // The platform forgets the token (the app was removed there): the next import is refused.
    for (const exchange of connection.platform.exchanges) if (exchange.shop === domain) Object.assign(exchange, { accessToken: 'revoked' });
    await session.get(`/console/stores/${tenant.storeId}/platform`);
    await session.post(`/console/stores/${tenant.storeId}/platform/import`);
    expect(await finished(tenant.storeId)).toMatchObject({
      state: 'failed',
      error: 'The shop refused the app’s access: connect the store again.',
    });
    const other = await connection.fresh();
    expect(await db(t()).query(`SELECT 1 FROM platform_products WHERE store_id = $1`, [other.tenant.storeId])).toEqual([]);
  });
  it('gives the products that need a chart a chart and a type by rule, many at once, and then maps their orders', async () => {
    const { tenant, session } = await connection.fresh();
    const domain = `assign-${++shops}-${Date.now()}.myshopify.com`;
    connection.platform.catalogs.set(domain, standinProducts(20));
    await connectShop(session, tenant.storeId, domain);
    expect(await finished(tenant.storeId)).toMatchObject({ state: 'done' });
    const chart = await createSizeChart(t(), tenant.admin.secret, tenant.storeId); // S, M, L: no XL
    const type = await createProductType(t(), tenant.admin.secret, tenant.storeId);
    const path = `/console/stores/${tenant.storeId}/platform`;

    // The form refuses a rule without a value, saying so beside the field.
    const form = await session.get(path);
    expect(findAll(form.text, 'section', { id: 'assign' })).toHaveLength(1);
    expect(findAll(form.text, 'datalist', { id: 'assign-values' })[0].inner).toContain('value="Dresses"');
    const refused = await session.post(`${path}/assign`, {
      field: 'product_type',
      value: ' ',
      size_chart_id: chart.id,
      product_type_id: type.id,
    });
    expect(refused.status).toBe(422);
    expect(textOf(findAll(refused.text, 'div', { role: 'alert' })[0].inner)).toContain('Enter the product type, vendor or tag');

    // Dresses are products 0, 3, 6, 12, 15 and 18 of the 20 (9 has no size option), matched whatever the case.
    const done = await session.post(`${path}/assign`, {
      field: 'product_type',
      value: 'dresses',
      size_chart_id: chart.id,
      product_type_id: type.id,
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${path}?created=6&left_out=6&not_created=0`);
    const page = await session.get(done.headers.location);
    expect(textOf(findAll(page.text, 'p', { 'data-status': 'assigned' })[0].inner)).toBe(
      '6 products are in the catalog now, with the chart and type chosen; 6 variants were left out: its size is not on the chart.',
    );
    const [section] = findAll(page.text, 'section', { id: 'catalog-import' });
    expect(textOf(findAll(section.inner, 'span', { 'data-count': 'linked' })[0].inner)).toBe('6 in the catalog');

    const listed = await t().http().get(`/v1/stores/${tenant.storeId}/products?external_id=1003`).set(bearer(tenant.admin.secret));
    expect(listed.body.data).toEqual([
      expect.objectContaining({ title: 'Product 1003', product_type_id: type.id, size_chart_id: chart.id }),
    ]);
    const variants = await t()
      .http()
      .get(`/v1/stores/${tenant.storeId}/products/${listed.body.data[0].id}/variants`)
      .set(bearer(tenant.admin.secret));
    expect((variants.body.data as Array<{ size_label: string; external_id: string }>).map((v) => [v.size_label, v.external_id])).toEqual([
      ['S', '100300'],
      ['M', '100301'],
      ['L', '100302'],
    ]);

    // Sent again, nothing more matches: the products are in the catalog.
    const again = await session.post(`${path}/assign`, {
      field: 'product_type',
      value: 'Dresses',
      size_chart_id: chart.id,
      product_type_id: type.id,
    });
    expect(again.headers.location).toBe(`${path}?created=0&left_out=0&not_created=0`);

    // An order of one of them now maps without any call of the API.
    const order = notification(connection.platform, domain, 'orders/paid', {
      id: 'A-1',
      processed_at: new Date().toISOString(),
      line_items: [{ id: '1', product_id: 1003, variant_id: 100301, quantity: 1 }],
    });
    expect((await t().http().post('/platform/webhooks').set(order.headers).send(order.body)).status).toBe(200);
    const deadline = Date.now() + 20_000;
    let purchases: unknown[] = [];
    while (purchases.length === 0 && Date.now() < deadline) {
      purchases = (await t().http().get(`/v1/stores/${tenant.storeId}/events?type=purchase`).set(bearer(tenant.admin.secret))).body.data;
      if (purchases.length === 0) await sleep(100);
    }
    expect(purchases).toEqual([expect.objectContaining({ source: 'platform', product_id: listed.body.data[0].id, order_id: 'A-1' })]);
  });
});
