/**
 * Shutdown (SIGTERM, SIGINT): the service stops taking connections at once, answers the requests in flight (each
 * answer closing its connection, so keep-alive clients move on), says it is not ready meanwhile, and only then closes
 * its database; a request that never finishes is cut after `SHUTDOWN_GRACE_MS`. The service runs as a child process,
 * on the embedded database in a temporary directory, or on PostgreSQL when DATABASE_URL is set.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededDataDir } from '../support/embedded-template.js';
import { createTenant } from '../support/fixtures.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';

const POSTGRES_URL = process.env.DATABASE_URL;

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
}

/**
 * A POST whose body is sent in two halves: the first now, the second when `finish` is called. Until then the request
 * is in flight on a connection of its own.
 */
function halfSent(base: string, path: string, secret: string, body: string): { finish(): void; answer: Promise<Answer> } {
  const url = new URL(path, base);
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const request = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    // Keep-alive, as a client with a pool asks: without it the answer would close the connection whatever the server did.
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      'content-length': bytes.length,
      connection: 'keep-alive',
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: text }));
    });
  });
  request.write(bytes.subarray(0, half));
  request.flushHeaders();
  return { finish: () => request.end(bytes.subarray(half)), answer };
}

const event = (id: string) =>
  JSON.stringify({ source: 'shutdown', external_id: id, type: 'fit_viewed', occurred_at: new Date().toISOString() });

describe('shutdown on a signal', () => {
  let service: ServiceProcess | undefined;
  let dataDir: string | undefined;

  const start = async (graceMs: number) => {
    dataDir = POSTGRES_URL ? undefined : await seededDataDir('size-fit-shutdown-');
    service = await startServiceProcess({
      database: POSTGRES_URL ? { DATABASE_URL: POSTGRES_URL } : { DATA_DIR: dataDir as string },
      env: { SHUTDOWN_GRACE_MS: String(graceMs) },
    });
    return service;
  };

  afterEach(async () => {
    await service?.kill();
    service = undefined;
    if (dataDir) {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(`${dataDir}.lock`, { recursive: true, force: true });
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: answers the requests in flight, closing their connections, refuses new ones, then exits',
    async (signal) => {
      const running = await start(10_000);
      const tenant = await createTenant(running.asTestApp);
      const path = `/v1/stores/${tenant.storeId}/events`;
      const id = `in-flight-${signal}-${Date.now()}`;
      const inFlight = halfSent(running.base, path, tenant.admin.secret, event(id));
      const slower = halfSent(
        running.base,
        `${path}/batch`,
        tenant.admin.secret,
        JSON.stringify({ events: [JSON.parse(event(`${id}-b`))] }),
      );
      await sleep(300); // both requests read by the server, their bodies incomplete

      const startedAt = Date.now();
      const exited = running.kill(signal);
      await sleep(500);
      // No new connection is taken…
      const refused = await new Promise<string | undefined>((resolve) => {
        const socket = connect(running.port, '127.0.0.1', () => {
          socket.destroy();
          resolve(undefined);
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      });
      expect(refused).toBe('ECONNREFUSED');
      // …while those in flight are answered, in full, and told to close.
      inFlight.finish();
      const single = await inFlight.answer;
      expect({ status: single.status, connection: single.connection }).toEqual({ status: 201, connection: 'close' });
      expect(JSON.parse(single.body)).toMatchObject({ external_id: id });
      slower.finish();
      const batch = await slower.answer;
      expect(batch.status).toBe(200);
      expect(JSON.parse(batch.body).results).toEqual([expect.objectContaining({ status: 201 })]);

      await exited;
      expect(Date.now() - startedAt).toBeLessThan(8_000);
    },
    60_000,
  );

  it('closes a busy keep-alive connection after its next answer, instead of serving it for as long as it sends', async () => {
    const running = await start(10_000);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<Answer>((resolve, reject) => {
        const url = new URL('/healthz', running.base);
        httpRequest({ host: url.hostname, port: url.port, path: url.pathname, agent }, (response) => {
          response.resume();
          response.once('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: '' }));
        })
          .once('error', reject)
          .end();
      });
    expect((await get()).connection).toBe('keep-alive');
    const startedAt = Date.now();
    const exited = running.kill('SIGTERM');
    let gone = false;
    void exited.then(() => (gone = true));
    const during: Answer[] = [];
    // A client that keeps the connection busy, as a load balancer's pool would.
    while (!gone && Date.now() - startedAt < 8_000) {
      during.push(await get().catch(() => ({ status: 0, connection: undefined, body: '' })));
      await sleep(50);
    }
    agent.destroy();
    expect(gone).toBe(true);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    // The answer on its way when the signal lands may still keep the connection; none after it does, and one does
    // close it (the connection was busy, so it was not closed idle).
    expect(during.slice(1).filter((a) => a.status !== 0 && a.connection !== 'close')).toEqual([]);
    expect(during.filter((a) => a.connection === 'close')).toHaveLength(1);
  }, 60_000);

  it('cuts a request still unfinished after SHUTDOWN_GRACE_MS, and exits', async () => {
    const running = await start(1_500);
    const tenant = await createTenant(running.asTestApp);
    const stalled = halfSent(running.base, `/v1/stores/${tenant.storeId}/events`, tenant.admin.secret, event(`stalled-${Date.now()}`));
    const outcome = stalled.answer.then(
      (answer) => answer.status,
      () => 'cut' as const,
    );
    await sleep(300);
    const startedAt = Date.now();
    await running.kill('SIGTERM');
    const tookMs = Date.now() - startedAt;
    expect(tookMs).toBeGreaterThanOrEqual(1_400);
    expect(tookMs).toBeLessThan(6_000);
    expect(await outcome).toBe('cut');
  }, 60_000);
});
