import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { bearer } from '../../support/app.js';
import { db } from '../../support/console-fixtures.js';
import { expectProblem } from '../../support/fixtures.js';
import { callback, type ConsoleSession, usePlatformConnection } from '../../support/platform-console.js';
import { notification } from '../../support/platform-standin.js';
import { sessionsApi } from '../../support/session-api.js';
import { createShop, type Shop, SIZES, withFailingEventInsertWhere } from '../../support/session-fixtures.js';
import { findAll, textOf } from '../../support/console-client.js';

const NOTICES = '/platform/webhooks';
let shops = 0;

interface NoticeRow {
  id: string;
  topic: string;
  state: string;
  outcome: { summary: string; lines?: Array<{ external_id: string; status: string; code?: string }> } | null;
  payload: unknown;
}

describe('platform notifications', () => {
  const connection = usePlatformConnection();
  const t = () => connection.t;
  const sessions = () => sessionsApi(connection.t);

  /** A store connected through the console to a shop of its own, with a product whose ids are the shop's. */
  async function connectedShop(): Promise<{ shop: Shop; domain: string; session: ConsoleSession }> {
    const { tenant, session } = await connection.fresh();
    const domain = `notices-${++shops}-${Date.now()}.myshopify.com`;
    const done = await callback(session, await connection.approved(session, tenant.storeId, domain));
    expect(done.status).toBe(303);
    const shop = await createShop(t(), tenant.storeId, tenant.admin.secret);
    const base = `/v1/stores/${shop.storeId}/products/${shop.productId}`;
    expect(
      (
        await t()
          .http()
          .patch(base)
          .set(bearer(shop.secret))
          .send({ external_id: `gid-${shop.productId}` })
      ).status,
    ).toBe(200);
    for (const label of SIZES) {
      const variant = await t()
        .http()
        .patch(`${base}/variants/${shop.variants[label]}`)
        .set(bearer(shop.secret))
        .send({ external_id: `gid-${shop.productId}-${label}` });
      expect(variant.status).toBe(200);
    }
    return { shop, domain, session };
  }

  const deliver = (domain: string, topic: string, payload: unknown, options: { id?: string; secret?: string } = {}) => {
    const { headers, body } = notification(connection.platform, domain, topic, payload, options);
    return t().http().post(NOTICES).set(headers).send(body);
  };

  const noticesOf = (storeId: string): Promise<NoticeRow[]> =>
    db(t()).query(`SELECT id, topic, state, outcome, payload FROM platform_webhooks WHERE store_id = $1 ORDER BY received_at, id`, [
      storeId,
    ]);

  /** Waits until no notification of the store is queued (the job ran), and returns them all. */
  async function processed(storeId: string): Promise<NoticeRow[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await noticesOf(storeId);
      if (rows.length && rows.every((row) => row.state !== 'queued')) return rows;
      if (Date.now() > deadline)
        throw new Error(`notifications still queued: ${JSON.stringify(rows.map((row) => [row.topic, row.state]))}`);
      await sleep(100);
    }
  }

  const order = (shop: Shop, id: string, lines: Array<{ id: string; size: string; session?: string; product?: string }>) => ({
    id,
    processed_at: new Date().toISOString(),
    customer: { id: `cust-${id}` },
    line_items: lines.map((line) => ({
      id: line.id,
      product_id: line.product ?? `gid-${shop.productId}`,
      variant_id: `${line.product ?? `gid-${shop.productId}`}-${line.size}`,
      quantity: 1,
      properties: line.session ? [{ name: '_size_fit_session', value: line.session }] : [],
    })),
  });

  it('turns a paid order after a fit session into a fit-assisted purchase, and a return for size into what the product learned', async () => {
    const { shop, domain } = await connectedShop();
    const session = await sessions().recommended(shop);
    const label = session.recommendation?.size_label as string;
    expect((await sessions().decideRaw(shop, session.id, { size_label: label })).status).toBe(200);

    const paid = await deliver(domain, 'orders/paid', order(shop, '1001', [{ id: '1', size: label, session: session.id }]));
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({ received: true, duplicate: false });
    const [row] = await processed(shop.storeId);
    expect(row.outcome?.lines).toEqual([expect.objectContaining({ external_id: 'purchase:1001:1', status: 'recorded' })]);
    expect(row.payload).toBeNull(); // the body (it names a customer) is forgotten once processed

    const purchases = await t().http().get(`/v1/stores/${shop.storeId}/events?type=purchase`).set(bearer(shop.secret));
    expect(purchases.body.data).toEqual([expect.objectContaining({ source: 'platform', session_id: session.id, order_id: '1001' })]);
    const metrics = await t().http().get(`/v1/stores/${shop.storeId}/metrics`).set(bearer(shop.secret));
    expect(metrics.status).toBe(200);
    expect(metrics.body.counts).toMatchObject({ converted_sessions: 1, purchased_lines: 1 });

    const fitBefore = await t().http().get(`/v1/stores/${shop.storeId}/products/${shop.productId}/fit`).set(bearer(shop.secret));
    const returned = await deliver(domain, 'returns/requested', {
      id: 'R7',
      order_id: '1001',
      requested_at: new Date().toISOString(),
      return_line_items: [
        {
          id: 'RL1',
          quantity: 1,
          return_reason: 'SIZE_TOO_SMALL',
          line_item: { id: '1', product_id: `gid-${shop.productId}`, variant_id: `gid-${shop.productId}-${label}` },
        },
      ],
    });
    expect(returned.status).toBe(200);
    const rows = await processed(shop.storeId);
    expect(rows[1].outcome?.lines).toEqual([expect.objectContaining({ external_id: 'return:R7:RL1', status: 'recorded' })]);
    const events = await t().http().get(`/v1/stores/${shop.storeId}/events?type=return_requested`).set(bearer(shop.secret));
    expect(events.body.data).toEqual([
      expect.objectContaining({ source: 'platform', reason: 'size', fit_feedback: 'too_small', order_id: '1001' }),
    ]);
    const fitAfter = await t().http().get(`/v1/stores/${shop.storeId}/products/${shop.productId}/fit`).set(bearer(shop.secret));
    const tooSmall = (fit: { body: { sizes: Array<{ size_label: string; too_small: number }> } }) =>
      fit.body.sizes.find((size) => size.size_label === label)?.too_small;
    expect(tooSmall(fitBefore)).toBe(0);
    expect(tooSmall(fitAfter)).toBe(1);
    expect(fitAfter.body.learned.outcomes).toBeGreaterThan(fitBefore.body.learned.outcomes);
  });

  it('refuses a notification with a forged, missing or altered signature with 401 and keeps nothing', async () => {
    const { shop, domain } = await connectedShop();
    const payload = order(shop, '2001', [{ id: '1', size: 'M' }]);
    expectProblem(await deliver(domain, 'orders/paid', payload, { secret: 'not-the-app-secret' }), 401, 'invalid_signature');
    const { headers, body } = notification(connection.platform, domain, 'orders/paid', payload);
    const unsigned = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'X-Shop-Hmac-Sha256'));
    expectProblem(await t().http().post(NOTICES).set(unsigned).send(body), 401, 'invalid_signature');
    // The same signature over other bytes: one character of the body changed.
    expectProblem(await t().http().post(NOTICES).set(headers).send(body.replace('2001', '2002')), 401, 'invalid_signature');
    expect(await noticesOf(shop.storeId)).toEqual([]);
  });

  it('answers a redelivery as a duplicate and a replay under a new delivery id with the same events, never counting twice', async () => {
    const { shop, domain } = await connectedShop();
    const payload = order(shop, '3001', [
      { id: '1', size: 'M' },
      { id: '2', size: 'L' },
    ]);
    const first = await deliver(domain, 'orders/paid', payload, { id: 'delivery-1' });
    // Redelivered at once, several times over, concurrently.
    const again = await Promise.all([1, 2, 3].map(() => deliver(domain, 'orders/paid', payload, { id: 'delivery-1' })));
    expect(first.body).toEqual({ received: true, duplicate: false });
    for (const response of again) expect(response.body).toEqual({ received: true, duplicate: true });
    await processed(shop.storeId);
    const replay = await deliver(domain, 'orders/paid', payload, { id: 'delivery-2' });
    expect(replay.body.duplicate).toBe(false);
    const rows = await processed(shop.storeId);
    expect(rows).toHaveLength(2);
    expect(rows[1].outcome?.lines?.map((line) => line.status)).toEqual(['duplicate', 'duplicate']);
    const events = await t().http().get(`/v1/stores/${shop.storeId}/events?type=purchase`).set(bearer(shop.secret));
    expect(events.body.data).toHaveLength(2);
  });

  it('records a return that arrives before its order, and the order after it', async () => {
    const { shop, domain } = await connectedShop();
    const line = { id: '1', product_id: `gid-${shop.productId}`, variant_id: `gid-${shop.productId}-S` };
    await deliver(domain, 'exchanges/created', {
      id: 'X3',
      order_id: '4001',
      created_at: new Date().toISOString(),
      exchange_line_items: [{ id: 'XL1', quantity: 1, reason: 'SIZE_TOO_LARGE', line_item: line }],
    });
    await processed(shop.storeId);
    await deliver(domain, 'orders/paid', order(shop, '4001', [{ id: '1', size: 'S' }]));
    const rows = await processed(shop.storeId);
    expect(rows.map((row) => row.outcome?.lines?.[0].status)).toEqual(['recorded', 'recorded']);
    const events = await t().http().get(`/v1/stores/${shop.storeId}/events`).set(bearer(shop.secret));
    expect((events.body.data as Array<{ type: string }>).map((event) => event.type).sort()).toEqual(['purchase', 'size_exchange']);
  });

  it('records each line it cannot map and shows why, without losing the others', async () => {
    const { shop, domain } = await connectedShop();
    await deliver(
      domain,
      'orders/paid',
      order(shop, '5001', [
        { id: '1', size: 'M' },
        { id: '2', size: 'XXL' },
        { id: '3', size: 'M', product: 'gid-not-in-the-catalog' },
      ]),
    );
    const [row] = await processed(shop.storeId);
    expect(row.state).toBe('processed');
    expect(row.outcome?.lines?.map((line) => [line.external_id, line.status])).toEqual([
      ['purchase:5001:2', 'unknown_variant'],
      ['purchase:5001:3', 'not_in_catalog'],
      ['purchase:5001:1', 'recorded'],
    ]);
    expect(row.outcome?.summary).toBe('1 of 3 lines recorded, 2 not recorded (see the lines).');
  });

  it('keeps an unreadable order as failed, and acknowledges a topic it does not act on, a refund saying why', async () => {
    const { shop, domain } = await connectedShop();
    expect((await deliver(domain, 'orders/paid', { id: '6001', line_items: 'none' })).status).toBe(200);
    expect((await deliver(domain, 'carts/update', { id: 'c1' })).status).toBe(200);
    expect((await deliver(domain, 'refunds/create', { id: 'r1', order_id: '6001', refund_line_items: [] })).status).toBe(200);
    const rows = await processed(shop.storeId);
    expect(rows.map((row) => [row.topic, row.state])).toEqual([
      ['orders/paid', 'failed'],
      ['carts/update', 'ignored'],
      ['refunds/create', 'ignored'],
    ]);
    expect(rows[0].outcome?.summary).toMatch(/could not be read: processed_at: not a timestamp/);
    // A refund says money went back, not why: the return request it follows is what counts.
    expect(rows[2].outcome?.summary).toBe(
      'A refund says money went back, not why: a returned line counts from the shop’s return request, which says why.',
    );
    expect(rows[2].payload).toBeNull();
  });

  it('removes the connection and its token on uninstall, after which the shop’s notifications are only acknowledged', async () => {
    const { shop, domain } = await connectedShop();
    expect((await deliver(domain, 'app/uninstalled', { id: 1, domain })).status).toBe(200);
    await processed(shop.storeId);
    expect(await db(t()).query('SELECT 1 FROM platform_connections WHERE store_id = $1', [shop.storeId])).toEqual([]);
    const store = await t().http().get(`/v1/stores/${shop.storeId}`).set(bearer(shop.secret));
    expect(store.body.platform).toBeNull();
    expect((await deliver(domain, 'orders/paid', order(shop, '7001', [{ id: '1', size: 'M' }]))).status).toBe(200);
    expect((await noticesOf(shop.storeId)).map((row) => row.topic)).toEqual(['app/uninstalled']);
  });

  it('erases a customer on the platform’s redaction request, and a shop’s notifications on its own', async () => {
    const { shop, domain } = await connectedShop();
    const session = await sessions().recommended(shop, undefined, { shopper_ref: 'cust-8001' });
    expect(session.id).toBeTruthy();
    await deliver(domain, 'orders/paid', order(shop, '8001', [{ id: '1', size: 'M' }]));
    await processed(shop.storeId);
    const linked = () => db(t()).query('SELECT 1 FROM sessions WHERE store_id = $1 AND shopper_digest IS NOT NULL', [shop.storeId]);
    expect(await linked()).toHaveLength(1);
    await deliver(domain, 'customers/redact', { shop_domain: domain, customer: { id: 'cust-8001' }, orders_to_redact: ['8001'] });
    await processed(shop.storeId);
    expect(await linked()).toEqual([]);

    await deliver(domain, 'shop/redact', { shop_domain: domain });
    const deadline = Date.now() + 20_000;
    while ((await noticesOf(shop.storeId)).length > 0 && Date.now() < deadline) await sleep(100);
    expect(await noticesOf(shop.storeId)).toEqual([]);
  });

  it('retries a notification whose processing fails, lists it as failed once every attempt has, and processes it on the console’s retry', async () => {
    const { shop, domain, session } = await connectedShop();
    const tag = `platform_${shop.storeId.replace(/-/g, '')}`;
    await withFailingEventInsertWhere(t(), tag, `NEW.store_id = '${shop.storeId}'::uuid`, async () => {
      expect((await deliver(domain, 'orders/paid', order(shop, '9001', [{ id: '1', size: 'M' }]))).status).toBe(200);
      const [row] = await processed(shop.storeId); // every attempt (the first and one retry) failed
      expect(row.state).toBe('dead_letter');
      expect(row.payload).not.toBeNull(); // kept for the retry
    });
    const page = await session.get(`/console/stores/${shop.storeId}/platform`);
    expect(page.status).toBe(200);
    const failed = findAll(page.text, 'tr', { 'data-job': true });
    expect(failed).toHaveLength(1);
    expect(textOf(failed[0].inner)).toContain('Order paid');
    expect(textOf(failed[0].inner)).toContain('injected failure for a test');
    expect(findAll(page.text, 'tr', { 'data-state': 'dead_letter' })).toHaveLength(1);

    // Another store's console cannot retry it.
    const other = await connection.fresh();
    await other.session.get(`/console/stores/${other.tenant.storeId}/platform`);
    const foreign = await other.session.post(
      `/console/stores/${other.tenant.storeId}/platform/dead-letters/${failed[0].attrs['data-job']}/retry`,
    );
    expect(foreign.headers.location).toBe(`/console/stores/${other.tenant.storeId}/platform?retried=0`);
    expect((await noticesOf(shop.storeId))[0].state).toBe('dead_letter');

    const retried = await session.post(`/console/stores/${shop.storeId}/platform/dead-letters/${failed[0].attrs['data-job']}/retry`);
    expect(retried.status).toBe(303);
    expect(retried.headers.location).toBe(`/console/stores/${shop.storeId}/platform?retried=1`);
    const [row] = await processed(shop.storeId);
    expect(row.state).toBe('processed');
    expect(row.outcome?.lines?.map((line) => line.status)).toEqual(['recorded']);
    const after = await session.get(`/console/stores/${shop.storeId}/platform?retried=1`);
    expect(findAll(after.text, 'p', { 'data-status': 'retried' })).toHaveLength(1);
    expect(findAll(after.text, 'p', { 'data-empty': 'dead-letters' })).toHaveLength(1);
    expect(findAll(after.text, 'tr', { 'data-state': 'processed' })).toHaveLength(1);
  });

  it('shows the shop’s notifications on the console with each line it could not record and why', async () => {
    const { shop, domain, session } = await connectedShop();
    await deliver(
      domain,
      'orders/paid',
      order(shop, '9101', [
        { id: '1', size: 'M' },
        { id: '2', size: 'M', product: 'gid-elsewhere' },
      ]),
    );
    await processed(shop.storeId);
    const storePage = await session.get(`/console/stores/${shop.storeId}`);
    expect(storePage.text).toContain(`href="/console/stores/${shop.storeId}/platform"`);
    const page = await session.get(`/console/stores/${shop.storeId}/platform`);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain(`Connected to ${domain}`);
    expect(textOf(page.text)).toContain('/platform/webhooks');
    const [row] = findAll(page.text, 'tr', { 'data-topic': 'orders/paid' });
    expect(textOf(row.inner)).toContain('1 of 2 lines recorded, 1 not recorded (see the lines).');
    const [unmapped] = findAll(row.inner, 'li');
    expect(textOf(unmapped.inner)).toMatch(/^purchase:9101:2\s*: the product is not in the catalog/);
  });

  it('acknowledges a notification for a shop no store is connected to, and keeps nothing', async () => {
    const response = await deliver('nobody-here.myshopify.com', 'orders/paid', { id: 1 });
    expect(response.status).toBe(200);
    expect(await db(t()).query(`SELECT 1 FROM platform_webhooks WHERE shop = 'nobody-here.myshopify.com'`)).toEqual([]);
  });

  it('refuses a notification without its delivery id, topic or shop, naming the headers', async () => {
    const { headers, body } = notification(connection.platform, 'x.myshopify.com', 'orders/paid', {});
    const bare = Object.fromEntries(Object.entries(headers).filter(([name]) => !['X-Shop-Webhook-Id', 'X-Shop-Topic'].includes(name)));
    const response = await t().http().post(NOTICES).set(bare).send(body);
    expectProblem(response, 400, 'validation_failed');
    expect((response.body.errors as Array<{ field: string }>).map((error) => error.field)).toEqual(['X-Shop-Topic', 'X-Shop-Webhook-Id']);
  });
});
