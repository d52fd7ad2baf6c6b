/**
 * Database outage under traffic (PostgreSQL): the service reaches PostgreSQL through a TCP proxy that the test cuts
 * and restores, so the server itself keeps running for everyone else. While the database is away every request is
 * answered 503 `unavailable` within a second (no hang, no 500) and /readyz fails; once it is back the same process
 * serves reads and writes again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { bearer, startApp, type TestApp } from '../support/app.js';
import { createTenant, expectProblem, type Tenant } from '../support/fixtures.js';
import { type Cut, TcpProxy } from '../support/tcp-proxy.js';

const POSTGRES_URL = process.env.DATABASE_URL;

/** The bound for an answer while the database is away. */
const ANSWER_WITHIN_MS = 1000;
/** /readyz waits up to two seconds for the database before it answers 503. */
const READYZ_WITHIN_MS = 2500;
const OUTAGE_MS = 4000;
const RECOVERY_WITHIN_MS = 10_000;
const CLIENTS = 6;
/** A request without an answer by then is recorded as hanging (status 0), so that a hang cannot stall the file. */
const NO_ANSWER_AFTER_MS = 5000;

interface Sample {
  what: string;
  startedAt: number;
  endedAt: number;
  /** 0: no answer within the client's timeout. */
  status: number;
  code?: string;
  problem: boolean;
}

let deliveries = 0;

/** Reads and writes of one tenant from CLIENTS concurrent clients until `stop()` says so. */
function traffic(t: TestApp, tenant: Tenant, stop: () => boolean): { samples: Sample[]; done: Promise<void> } {
  const samples: Sample[] = [];
  const store = `/v1/stores/${tenant.storeId}`;
  const client = async (n: number) => {
    for (let i = 0; !stop(); i++) {
      const write = (i + n) % 2 === 0;
      const startedAt = Date.now();
      const call = write
        ? t
            .http()
            .post(`${store}/events`)
            .set(bearer(tenant.admin.secret))
            .send({
              source: 'storefront',
              external_id: `outage-${process.pid}-${++deliveries}`,
              type: 'fit_viewed',
              occurred_at: new Date().toISOString(),
            })
        : t.http().get(store).set(bearer(tenant.admin.secret));
      const sample: Sample = { what: write ? 'POST events' : 'GET store', startedAt, endedAt: 0, status: 0, problem: false };
      try {
        const response = await call.timeout(NO_ANSWER_AFTER_MS);
        sample.status = response.status;
        sample.code = response.body?.code;
        sample.problem = /^application\/problem\+json/.test(String(response.headers['content-type']));
      } catch {
        sample.status = 0;
      }
      sample.endedAt = Date.now();
      samples.push(sample);
    }
  };
  return { samples, done: Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n))).then(() => undefined) };
}

const describeOnPostgres = POSTGRES_URL ? describe : describe.skip;

describeOnPostgres('when the database goes away under traffic, and comes back', () => {
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    const target = new URL(POSTGRES_URL as string);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    t = await startApp({ databaseUrl: proxy.rewrite(POSTGRES_URL as string) });
  });

  afterAll(async () => {
    await proxy?.restore();
    await t?.close();
    await proxy?.close();
  });

  // A database that stops closes its connections (refuse); when its host vanishes, it stops answering new ones
  // (blackhole); behind a network partition, open connections stay open but fall silent as well (freeze): the
  // connection watchdog drops them (src/database/connection-watchdog.ts).
  const cases: Array<[Cut, string]> = [
    ['refuse', 'connections refused'],
    ['blackhole', 'connections that are never answered'],
    ['freeze', 'open connections fall silent and new ones are never answered'],
  ];

  it.each(cases)(
    '%s: answers 503 within a second, fails /readyz, and recovers without a restart (%s)',
    async (cut) => {
      const tenant = await createTenant(t);
      expect((await t.http().get('/readyz')).status).toBe(200);

      let stopping = false;
      const load = traffic(t, tenant, () => stopping);
      await sleep(500);

      const cutAt = Date.now();
      await proxy.cutOff(cut);
      await sleep(300);
      const readyStart = Date.now();
      const ready = await t.http().get('/readyz').timeout(NO_ANSWER_AFTER_MS);
      const readyMs = Date.now() - readyStart;
      await sleep(OUTAGE_MS - 300);

      const restoredAt = Date.now();
      await proxy.restore();
      let recoveredAt = 0;
      while (!recoveredAt && Date.now() - restoredAt < RECOVERY_WITHIN_MS + 5000) {
        const probe = await t
          .http()
          .get('/readyz')
          .timeout(NO_ANSWER_AFTER_MS)
          .catch(() => ({ status: 0 }));
        if (probe.status === 200) recoveredAt = Date.now();
        else await sleep(100);
      }
      await sleep(1000); // traffic on the recovered database
      stopping = true;
      await load.done;
      const { samples } = load;
      const outage = samples.filter((s) => s.endedAt >= cutAt && s.startedAt < restoredAt);
      const slowest = Math.max(0, ...outage.map((s) => s.endedAt - Math.max(s.startedAt, cutAt)));
      process.stderr.write(
        `database outage (${cut}): ${samples.length} requests, ${outage.length} during the outage, slowest answer then ` +
          `${slowest} ms; /readyz ${ready.status} in ${readyMs} ms; ready again ${recoveredAt - restoredAt} ms after the database came back\n`,
      );

      // Before the cut: served.
      const before = samples.filter((s) => s.endedAt < cutAt);
      expect(before.length).toBeGreaterThan(0);
      expect(before.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);

      // Never a 500, never without an answer: served, or 503 unavailable as problem details.
      expect(samples.filter((s) => ![200, 201, 503].includes(s.status))).toEqual([]);
      expect(samples.filter((s) => s.status === 503 && !(s.code === 'unavailable' && s.problem))).toEqual([]);

      // During the outage: every request answered 503 within a second of its start (or of the cut, if it was in flight).
      const during = outage;
      expect(during.length).toBeGreaterThan(CLIENTS);
      const late = during
        .filter((s) => s.endedAt - Math.max(s.startedAt, cutAt) > ANSWER_WITHIN_MS)
        .map((s) => ({ what: s.what, status: s.status, ms: s.endedAt - Math.max(s.startedAt, cutAt) }));
      expect(late).toEqual([]);
      const startedDuring = during.filter((s) => s.startedAt > cutAt + 50 && s.endedAt < restoredAt);
      expect(startedDuring.length).toBeGreaterThan(0);
      expect(startedDuring.filter((s) => s.status !== 503)).toEqual([]);

      expectProblem(ready, 503, 'unavailable');
      expect(readyMs).toBeLessThan(READYZ_WITHIN_MS);

      // Back: ready again, soon, in the same process; reads and writes served.
      expect(recoveredAt).toBeGreaterThan(0);
      expect(recoveredAt - restoredAt).toBeLessThan(RECOVERY_WITHIN_MS);
      const after = samples.filter((s) => s.startedAt > recoveredAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);
      const write = await t
        .http()
        .post(`/v1/stores/${tenant.storeId}/events`)
        .set(bearer(tenant.admin.secret))
        .send({
          source: 'storefront',
          external_id: `outage-${process.pid}-after-${cut}`,
          type: 'fit_viewed',
          occurred_at: new Date().toISOString(),
        });
      expect(write.status).toBe(201);
      const read = await t.http().get(`/v1/stores/${tenant.storeId}/events?source=storefront&limit=1`).set(bearer(tenant.admin.secret));
      expect(read.status).toBe(200);
      expect(read.body.data[0].external_id).toBe(`outage-${process.pid}-after-${cut}`);
    },
    60_000,
  );

  // The watchdog drops the pool only for silence: a long statement sends nothing while it runs, and a stalled event
  // loop reads nothing while it is stalled, yet the server is there and answers the watchdog's pings.
  it('keeps the connection of a statement that runs for seconds', async () => {
    const database = t.app.get(DataSource);
    await expect(database.query('SELECT pg_sleep(2.5) AS slept')).resolves.toEqual([{ slept: '' }]);
  });

  it('keeps the connections of a slow statement across a stalled event loop', async () => {
    const database = t.app.get(DataSource);
    const slow = database.query('SELECT pg_sleep(1.5) AS slept');
    await sleep(100);
    const stalledUntil = Date.now() + 900;
    while (Date.now() < stalledUntil) {
      // The event loop reads no socket while this runs.
    }
    await expect(slow).resolves.toEqual([{ slept: '' }]);
    const [{ answer }] = await database.query('SELECT 42 AS answer');
    expect(answer).toBe(42);
  });
});

describeOnPostgres('when the database itself is dropped', () => {
  // The server answers, but not for this database: new connections fail with 3D000 (no such database), not with a
  // network error.
  const admin = () => new DataSource({ type: 'postgres', url: POSTGRES_URL });
  const ownUrl = (name: string) => {
    const url = new URL(POSTGRES_URL as string);
    url.pathname = `/${name}`;
    return url.toString();
  };

  it('answers 503 unavailable, not 500, and fails /readyz', async () => {
    const name = `${new URL(POSTGRES_URL as string).pathname.slice(1)}_dropped`;
    const server = await admin().initialize();
    await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await server.query(`CREATE DATABASE ${name}`);
    const t = await startApp({ databaseUrl: ownUrl(name) });
    try {
      const tenant = await createTenant(t);
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      await server.query(`DROP DATABASE ${name} WITH (FORCE)`);
      expectProblem(await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(tenant.admin.secret)), 503, 'unavailable');
      expectProblem(await t.http().get('/readyz'), 503, 'unavailable');
    } finally {
      await t.close();
      await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.destroy();
    }
  });
});
