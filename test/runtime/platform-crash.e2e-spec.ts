/**
 * A connected shop's notifications survive a kill: the service answers each one once it is kept with its job, is
 * killed with SIGKILL while the jobs are queued or running, and started again on the same database; every order line
 * then becomes exactly one event, and every notification ends processed. An import of the shop's catalog cut off by
 * the kill resumes after the restart at the page it was reading.
 *
 * Runs on PostgreSQL (a database of its own) when DATABASE_URL is set, otherwise on the embedded database in a
 * temporary data directory. The service runs as a child process so that it can really die.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer } from '../support/app.js';
import { findAll, signUp, textOf } from '../support/console-client.js';
import { createTenant } from '../support/fixtures.js';
import { callback, startConnect } from '../support/platform-console.js';
import { notification, type StandinPlatform, standinProducts, startPlatform } from '../support/platform-standin.js';
import { scratchDatabase, type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { createShop, type Shop, SIZES } from '../support/session-fixtures.js';

const ORDERS = 40;
const LINES = 2;
const DOMAIN = 'crash-shop.myshopify.com';

describe(`platform notifications across a SIGKILL, on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'the embedded database'}`, () => {
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  let platform: StandinPlatform;
  let service: ServiceProcess | undefined;
  let shop: Shop;
  /** A console session: it lives in the database, so it outlives the process (same port, same address). */
  let session: Awaited<ReturnType<typeof signUp>>;

  const randomKey = randomBytes(32).toString('base64');
  const start = async (port?: number) =>
    startServiceProcess({
      database: database.env,
      port,
      env: {
        PLATFORM_CLIENT_ID: platform.clientId,
        PLATFORM_CLIENT_SECRET: platform.clientSecret,
        PLATFORM_BASE_URL: platform.baseUrl,
        TOKEN_ENCRYPTION_KEY: randomKey,
        PLATFORM_JOB_POLL_SECONDS: '1',
        PLATFORM_RETRY_DELAY_SECONDS: '1',
      },
      readyWithinMs: 120_000,
    });

  beforeAll(async () => {
    database = await scratchDatabase();
    platform = await startPlatform();
    service = await start();
    const t = service.asTestApp;
    const tenant = await createTenant(t);
    session = await signUp(t, tenant);
    const { location } = await startConnect(session, tenant.storeId, DOMAIN);
    expect((await callback(session, platform.authorize(location))).status).toBe(303);
    shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    const base = `/v1/stores/${shop.storeId}/products/${shop.productId}`;
    expect((await t.http().patch(base).set(bearer(shop.secret)).send({ external_id: 'gid-1' })).status).toBe(200);
    for (const label of SIZES) {
      const path = `${base}/variants/${shop.variants[label]}`;
      expect(
        (
          await t
            .http()
            .patch(path)
            .set(bearer(shop.secret))
            .send({ external_id: `gid-1-${label}` })
        ).status,
      ).toBe(200);
    }
  }, 180_000);

  afterAll(async () => {
    await service?.kill();
    await platform?.close();
    await database?.drop();
  }, 60_000);

  it('processes every acknowledged notification exactly once after a restart', async () => {
    const running = service as ServiceProcess;
    const deliveries = Array.from({ length: ORDERS }, (_, n) =>
      notification(platform, DOMAIN, 'orders/paid', {
        id: `crash-${n}`,
        processed_at: new Date().toISOString(),
        line_items: Array.from({ length: LINES }, (_, line) => ({
          id: String(line),
          product_id: 'gid-1',
          variant_id: 'gid-1-M',
          quantity: 1,
        })),
      }),
    );
    const answers = await Promise.all(
      deliveries.map(({ headers, body }) => fetch(`${running.base}/platform/webhooks`, { method: 'POST', headers, body })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(deliveries.map(() => 200));
    await running.kill('SIGKILL');

    service = await start(running.port);
    const t = service.asTestApp;
    // A job running at the kill is taken back once it expires (15 s) and supervision next looks (every 10 s).
    const deadline = Date.now() + 90_000;
    let purchases: Array<{ external_id: string }>;
    for (;;) {
      const listed = await t.http().get(`/v1/stores/${shop.storeId}/events?type=purchase&limit=100`).set(bearer(shop.secret));
      expect(listed.status).toBe(200);
      purchases = listed.body.data;
      if (purchases.length >= ORDERS * LINES || Date.now() > deadline) break;
      await sleep(500);
    }
    expect(purchases).toHaveLength(ORDERS * LINES);
    expect(new Set(purchases.map((event) => event.external_id)).size).toBe(ORDERS * LINES);

    const page = await session.get(`/console/stores/${shop.storeId}/platform`);
    expect(page.status).toBe(200);
    const rows = findAll(page.text, 'tr', { 'data-topic': 'orders/paid' });
    expect(rows.map((row) => row.attrs['data-state'])).toEqual(deliveries.map(() => 'processed'));
  }, 180_000);
  it('resumes a catalog import cut off by the kill at the page it was reading, and keeps each product once', async () => {
    const running = service as ServiceProcess;
    platform.catalogs.set(DOMAIN, standinProducts(2000));
    platform.adminDelayMs = 400;
    const importSection = async () => {
      const page = await session.get(`/console/stores/${shop.storeId}/platform`);
      expect(page.status).toBe(200);
      const [section] = findAll(page.text, 'section', { id: 'catalog-import' });
      const pages = Number(/(\d+) pages? read/.exec(textOf(section.inner))?.[1] ?? 0);
      const products = textOf(findAll(section.inner, 'span', { 'data-count': 'products' })[0].inner);
      return { state: section.attrs['data-state'], pages, products };
    };
    try {
      await session.get(`/console/stores/${shop.storeId}/platform`);
      expect((await session.post(`/console/stores/${shop.storeId}/platform/import`)).status).toBe(303);
      const deadline = Date.now() + 60_000;
      while ((await importSection()).pages < 2 && Date.now() < deadline) await sleep(100);
      expect((await importSection()).state).toBe('running');
      const requestsAtKill = platform.adminRequests.length;
      await running.kill('SIGKILL');

      service = await start(running.port);
      // The job comes back once its heartbeat is missed (10 s) and supervision next looks (every 10 s).
      const until = Date.now() + 90_000;
      while ((await importSection()).state === 'running' && Date.now() < until) await sleep(500);
      expect(await importSection()).toEqual({ state: 'done', pages: 8, products: '2000 products' });
      const after = platform.adminRequests.slice(requestsAtKill).filter((request) => request.status === 200);
      // Resumed where it was: no page before the one in hand at the kill was read again.
      expect(new URLSearchParams(after[0]?.query).get('page_info')).not.toBeNull();
    } finally {
      platform.adminDelayMs = 0;
    }
  }, 180_000);
});
