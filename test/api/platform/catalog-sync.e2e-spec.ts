import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { JobQueue } from '../../../src/database/job-queue.js';
import { bearer } from '../../support/app.js';
import { findAll, textOf } from '../../support/console-client.js';
import { db } from '../../support/console-fixtures.js';
import { createProductType, createSizeChart } from '../../support/catalog-fixtures.js';
import { callback, type ConsoleSession, importFinished, usePlatformConnection } from '../../support/platform-console.js';
import { notification, type StandinProduct, standinProducts } from '../../support/platform-standin.js';
import type { Tenant } from '../../support/fixtures.js';

let shops = 0;

describe('a connected shop’s catalog kept in sync', () => {
  const connection = usePlatformConnection();
  const t = () => connection.t;
  const api = () => t().http();

  const finished = (storeId: string, trigger?: string) => importFinished(t(), storeId, trigger);

  /** A store connected to a shop of its own whose catalog is `products`, imported. */
  async function connectedShop(products: StandinProduct[]): Promise<{ tenant: Tenant; session: ConsoleSession; domain: string }> {
    const { tenant, session } = await connection.fresh();
    const domain = `sync-${++shops}-${Date.now()}.myshopify.com`;
    connection.platform.catalogs.set(domain, products);
    const done = await callback(session, await connection.approved(session, tenant.storeId, domain));
    expect(done.status).toBe(303);
    expect(await finished(tenant.storeId)).toMatchObject({ state: 'done', trigger: 'connection' });
    return { tenant, session, domain };
  }

  /** Gives the shop's dresses (products 1000, 1003…) the chart S, M, L and a type, from the console. */
  async function assignDresses(tenant: Tenant, session: ConsoleSession): Promise<void> {
    const chart = await createSizeChart(t(), tenant.admin.secret, tenant.storeId);
    const type = await createProductType(t(), tenant.admin.secret, tenant.storeId);
    const path = `/console/stores/${tenant.storeId}/platform`;
    await session.get(path);
    const done = await session.post(`${path}/assign`, {
      field: 'product_type',
      value: 'Dresses',
      size_chart_id: chart.id,
      product_type_id: type.id,
    });
    expect(done.status).toBe(303);
  }

  /** Delivers a signed notification and waits for it to be processed; its outcome's summary. */
  async function delivered(domain: string, storeId: string, topic: string, payload: unknown, id?: string): Promise<string> {
    const { headers, body } = notification(connection.platform, domain, topic, payload, { id });
    const answer = await api().post('/platform/webhooks').set(headers).send(body);
    expect(answer.status).toBe(200);
    const delivery = headers['X-Shop-Webhook-Id'];
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [row] = (await db(t()).query(`SELECT state, outcome FROM platform_webhooks WHERE store_id = $1 AND delivery_id = $2`, [
        storeId,
        delivery,
      ])) as Array<{ state: string; outcome: { summary: string } | null }>;
      if (row && row.state !== 'queued') return row.outcome?.summary ?? '';
      if (Date.now() > deadline) throw new Error(`notification ${topic} still ${JSON.stringify(row)}`);
      await sleep(100);
    }
  }

  async function productOf(tenant: Tenant, platformId: string): Promise<{ id: string; archived_at: string | null } | undefined> {
    const listed = await api().get(`/v1/stores/${tenant.storeId}/products?external_id=${platformId}`).set(bearer(tenant.admin.secret));
    expect(listed.status).toBe(200);
    return listed.body.data[0];
  }

  async function variantsOf(tenant: Tenant, productId: string): Promise<Array<[string, string | null]>> {
    const listed = await api().get(`/v1/stores/${tenant.storeId}/products/${productId}/variants`).set(bearer(tenant.admin.secret));
    expect(listed.status).toBe(200);
    return (listed.body.data as Array<{ size_label: string; external_id: string | null }>)
      .map((variant): [string, string | null] => [variant.size_label, variant.external_id])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
  }

  /** Product 1000 of the stand-in as the shop changed it: `sizes` as [variant id, size], updated at `updatedAt`. */
  const dress = (sizes: Array<[number, string]>, updatedAt: string) => ({
    ...standinProducts(1)[0],
    updated_at: updatedAt,
    variants: sizes.map(([id, size]) => ({ id, title: `Blue / ${size}`, sku: `SKU-${id}`, option1: 'Blue', option2: size, option3: null })),
  });

  it('applies the shop’s product notifications to the catalog: a size renamed, a variant added or deleted, in order whatever the delivery order', async () => {
    const { tenant, session, domain } = await connectedShop(standinProducts(3));
    await assignDresses(tenant, session);
    const product = await productOf(tenant, '1000');
    expect(await variantsOf(tenant, product!.id)).toEqual([
      ['S', '100000'],
      ['M', '100001'],
      ['L', '100002'],
    ]);

    // The shop fixes a size (100001 is an L), adds an M (100004) and stops selling 100002.
    const changed = dress(
      [
        [100000, 'S'],
        [100001, 'L'],
        [100004, 'm'],
      ],
      '2026-06-02T10:00:00Z',
    );
    const deliveryId = 'products-update-1';
    expect(await delivered(domain, tenant.storeId, 'products/update', changed, deliveryId)).toBe(
      'Product 1000: in the catalog, its variants brought in line with the shop’s.',
    );
    const expected = [
      ['S', '100000'],
      ['L', '100001'],
      ['M', '100004'],
    ];
    expect(await variantsOf(tenant, product!.id)).toEqual(expected);

    // Delivered again: a duplicate, nothing processed twice.
    const again = notification(connection.platform, domain, 'products/update', changed, { id: deliveryId });
    expect((await api().post('/platform/webhooks').set(again.headers).send(again.body)).body).toEqual({ received: true, duplicate: true });

    // An older change delivered late changes nothing.
    const older = dress(
      [
        [100000, 'S'],
        [100001, 'M'],
        [100002, 'L'],
      ],
      '2026-06-01T10:00:00Z',
    );
    expect(await delivered(domain, tenant.storeId, 'products/update', older)).toBe(
      'Product 1000: older than what is kept (delivered out of order): nothing changed.',
    );
    expect(await variantsOf(tenant, product!.id)).toEqual(expected);
    const [kept] = await db(t()).query(`SELECT variants FROM platform_products WHERE store_id = $1 AND platform_id = '1000'`, [
      tenant.storeId,
    ]);
    expect(kept.variants).toEqual([
      { id: '100000', size: 'S' },
      { id: '100001', size: 'L' },
      { id: '100004', size: 'm' },
    ]);

    // A product created on the shop needs a chart; its notification counts it on the Shop connection page.
    const created = { ...standinProducts(1, 5000)[0], updated_at: '2026-06-02T11:00:00Z' };
    expect(await delivered(domain, tenant.storeId, 'products/create', created)).toBe(
      'Product 5000: kept; it needs a chart before the catalog has it.',
    );
    const page = await session.get(`/console/stores/${tenant.storeId}/platform`);
    const [section] = findAll(page.text, 'section', { id: 'catalog-import' });
    expect(textOf(findAll(section.inner, 'span', { 'data-count': 'products' })[0].inner)).toBe('4 products');
    expect(textOf(page.text)).toContain('Product changed');
  });

  it('removes a product deleted on the shop (archived when events refer to it), and no late notification brings it back', async () => {
    const { tenant, session, domain } = await connectedShop(standinProducts(4));
    await assignDresses(tenant, session); // 1000 and 1003
    const sold = await productOf(tenant, '1000');
    const unsold = await productOf(tenant, '1003');
    const order = { id: 'D-1', processed_at: new Date().toISOString(), line_items: [{ id: '1', product_id: 1000, variant_id: 100001 }] };
    expect(await delivered(domain, tenant.storeId, 'orders/paid', order)).toBe('1 of 1 line recorded.');

    expect(await delivered(domain, tenant.storeId, 'products/delete', { id: 1000 })).toBe(
      'Product 1000 was deleted on the shop: removed from the catalog (archived where events refer to it).',
    );
    expect(await delivered(domain, tenant.storeId, 'products/delete', { id: '1003' })).toBe(
      'Product 1003 was deleted on the shop: removed from the catalog (archived where events refer to it).',
    );
    const archived = await api().get(`/v1/stores/${tenant.storeId}/products/${sold!.id}`).set(bearer(tenant.admin.secret));
    expect(archived.body.archived_at).not.toBeNull();
    expect((await api().get(`/v1/stores/${tenant.storeId}/products/${unsold!.id}`).set(bearer(tenant.admin.secret))).status).toBe(404);

    // An update sent before the deletion and delivered after it: the product stays deleted.
    const late = dress([[100000, 'S']], new Date().toISOString());
    expect(await delivered(domain, tenant.storeId, 'products/update', late)).toBe(
      'Product 1000: deleted on the shop already: nothing changed.',
    );
    // A product created and deleted at once, its deletion delivered first: it never enters.
    expect(await delivered(domain, tenant.storeId, 'products/delete', { id: 7777 })).toBe(
      'Product 7777 was deleted on the shop; the catalog did not have it.',
    );
    expect(await delivered(domain, tenant.storeId, 'products/create', { ...standinProducts(1, 7777)[0] })).toBe(
      'Product 7777: deleted on the shop already: nothing changed.',
    );
    const [counts] = await db(t()).query(
      `SELECT count(*) FILTER (WHERE deleted_at IS NULL)::int AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted
         FROM platform_products WHERE store_id = $1`,
      [tenant.storeId],
    );
    expect(counts).toEqual({ live: 2, deleted: 3 });
    // A notification without a product id is kept as unreadable, never retried.
    expect(await delivered(domain, tenant.storeId, 'products/update', { title: 'no id' })).toBe(
      'The notification could not be read: id: not an id.',
    );
  });

  it('links the variants of a product the catalog had before the connection by their size, so that its orders map', async () => {
    const { tenant, session } = await connection.fresh();
    const chart = await createSizeChart(t(), tenant.admin.secret, tenant.storeId);
    const type = await createProductType(t(), tenant.admin.secret, tenant.storeId);
    const made = await api()
      .post(`/v1/stores/${tenant.storeId}/products`)
      .set(bearer(tenant.admin.secret))
      .send({ title: 'Linen dress', external_id: '1000', product_type_id: type.id, size_chart_id: chart.id });
    expect(made.status).toBe(201);
    for (const [size_label, external_id] of [
      ['S', null],
      ['M', null],
      ['L', 'own-sku-L'],
    ]) {
      const variant = await api()
        .post(`/v1/stores/${tenant.storeId}/products/${made.body.id}/variants`)
        .set(bearer(tenant.admin.secret))
        .send({ size_label, ...(external_id ? { external_id } : {}) });
      expect(variant.status).toBe(201);
    }
    const domain = `linked-${++shops}-${Date.now()}.myshopify.com`;
    connection.platform.catalogs.set(domain, standinProducts(2));
    expect((await callback(session, await connection.approved(session, tenant.storeId, domain))).status).toBe(303);
    expect(await finished(tenant.storeId)).toMatchObject({ state: 'done', repaired: 1 });

    // S and M take the shop's ids; L, whose id the integrator set, is left as it is and the shop's L gets a variant of
    // its own; XL is not on the chart.
    expect(await variantsOf(tenant, made.body.id)).toEqual([
      ['S', '100000'],
      ['M', '100001'],
      ['L', '100002'],
      ['L', 'own-sku-L'],
    ]);
    const page = await session.get(`/console/stores/${tenant.storeId}/platform`);
    const [repaired] = findAll(page.text, 'p', { 'data-repaired': '1' });
    expect(textOf(repaired.inner)).toBe('1 product’s variants were brought in line with the shop’s.');

    const order = { id: 'E-1', processed_at: new Date().toISOString(), line_items: [{ id: '1', product_id: 1000, variant_id: 100001 }] };
    expect(await delivered(domain, tenant.storeId, 'orders/paid', order)).toBe('1 of 1 line recorded.');
  });

  it('brings a product in line once when its notifications and a full read of the catalog race', async () => {
    const { tenant, session, domain } = await connectedShop(standinProducts(4));
    await assignDresses(tenant, session);
    const product = await productOf(tenant, '1000');
    const now = dress(
      [
        [100000, 'S'],
        [100001, 'L'],
        [100005, 'M'],
        [100006, 'M'],
      ],
      new Date().toISOString(),
    );
    connection.platform.catalogs.set(domain, [now, ...standinProducts(4).slice(1)]);
    await session.get(`/console/stores/${tenant.storeId}/platform`);
    const sent = await Promise.all([
      session.post(`/console/stores/${tenant.storeId}/platform/import`),
      ...Array.from({ length: 6 }, () => {
        const { headers, body } = notification(connection.platform, domain, 'products/update', now);
        return api().post('/platform/webhooks').set(headers).send(body);
      }),
    ]);
    expect(sent.map((answer) => answer.status)).toEqual([303, 200, 200, 200, 200, 200, 200]);
    expect(await finished(tenant.storeId, 'console')).toMatchObject({ state: 'done' });
    const deadline = Date.now() + 20_000;
    while ((await db(t()).query(`SELECT 1 FROM platform_webhooks WHERE store_id = $1 AND state = 'queued'`, [tenant.storeId])).length) {
      if (Date.now() > deadline) throw new Error('notifications still queued');
      await sleep(100);
    }
    expect(await variantsOf(tenant, product!.id)).toEqual([
      ['S', '100000'],
      ['L', '100001'],
      ['M', '100005'],
      ['M', '100006'],
    ]);
    const outcomes = (await db(t()).query(`SELECT state FROM platform_webhooks WHERE store_id = $1 AND topic = 'products/update'`, [
      tenant.storeId,
    ])) as Array<{ state: string }>;
    expect(outcomes.map((row) => row.state)).toEqual(Array(6).fill('processed'));
  });

  it('repairs on the scheduled reconcile what notifications missed: products deleted while the service was away, sizes renamed', async () => {
    const { tenant, session, domain } = await connectedShop(standinProducts(5));
    await assignDresses(tenant, session); // 1000 and 1003
    const kept = await productOf(tenant, '1000');
    const gone = await productOf(tenant, '1003');

    // The schedule is set (pg-boss's cron, in UTC), at the time the configuration gives.
    const schedules = await db(t()).query(`SELECT cron, timezone FROM jobs.schedule WHERE name = 'platform-reconcile'`);
    expect(schedules).toEqual([{ cron: '0 4 1 1 *', timezone: 'UTC' }]);

    // Unnotified: 1003 and 1001 deleted, 1000's M renamed L and its L gone.
    const catalog = standinProducts(5).filter((product) => product.id !== 1003 && product.id !== 1001);
    catalog[0] = dress(
      [
        [100000, 'S'],
        [100001, 'L'],
      ],
      new Date().toISOString(),
    );
    connection.platform.catalogs.set(domain, catalog);

    // A deletion the shop reported for a product it still lists: the full read, made after it, is what the shop has.
    expect(await delivered(domain, tenant.storeId, 'products/delete', { id: 1002 })).toBe(
      'Product 1002 was deleted on the shop; the catalog did not have it.',
    );

    // What the schedule sends when it comes due.
    const jobs = t().app.get(JobQueue);
    await t()
      .app.get(DataSource)
      .transaction((manager) => jobs.send(manager, 'platform-reconcile', {}));
    expect(await finished(tenant.storeId, 'schedule')).toMatchObject({ state: 'done', removed: 2, repaired: 1 });

    expect(await variantsOf(tenant, kept!.id)).toEqual([
      ['S', '100000'],
      ['L', '100001'],
    ]);
    expect((await api().get(`/v1/stores/${tenant.storeId}/products/${gone!.id}`).set(bearer(tenant.admin.secret))).status).toBe(404);
    const page = await session.get(`/console/stores/${tenant.storeId}/platform`);
    const [section] = findAll(page.text, 'section', { id: 'catalog-import' });
    expect(findAll(section.inner, 'p', { 'data-trigger': 'schedule' })).toHaveLength(1);
    expect(textOf(findAll(section.inner, 'p', { 'data-removed': '2' })[0].inner)).toBe(
      '2 products were no longer on the shop and left the catalog; 1 product’s variants were brought in line with the shop’s.',
    );
    expect(textOf(findAll(section.inner, 'span', { 'data-count': 'products' })[0].inner)).toBe('3 products');

    // A listing that comes back empty removes nothing: a shop is not emptied by one answer.
    connection.platform.catalogs.set(domain, []);
    await session.post(`/console/stores/${tenant.storeId}/platform/import`);
    expect(await finished(tenant.storeId, 'console')).toMatchObject({ state: 'done', removed: 0 });
    expect((await productOf(tenant, '1000'))?.archived_at).toBeNull();
  });
});
