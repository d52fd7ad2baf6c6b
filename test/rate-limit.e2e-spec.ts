import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { bearer, useApp } from './support/app.js';
import { ConsoleClient, uniqueEmail } from './support/console-client.js';
import { createTenant, expectProblem } from './support/fixtures.js';

describe('rate limiting', () => {
  const t = useApp({ rateLimitPerMinute: 4 });

  it('answers 429 with Retry-After and the IETF RateLimit headers once a key spends its budget', async () => {
    const tenant = await createTenant(t); // spends the operator's and the admin key's budgets, not a new key's
    const store = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    expect(store.status).toBe(201);
    const secret = store.body.secret as string;

    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await t.http().get('/v1/merchant').set(bearer(secret)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"default";q=4;w=60');
    expect(answers[0].headers['ratelimit']).toMatch(/^"default";r=3;t=\d+$/);
    expect(answers[3].headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);

    const limited = answers[4];
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
    expect(limited.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('counts each key separately', async () => {
    const tenant = await createTenant(t);
    const other = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    for (let i = 0; i < 4; i++) await t.http().get('/v1/merchant').set(bearer(other.body.secret));
    expect((await t.http().get('/v1/merchant').set(bearer(other.body.secret))).status).toBe(429);
    const fresh = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    expect((await t.http().get('/v1/merchant').set(bearer(fresh.body.secret))).status).toBe(200);
  });

  it('stops a flood of unknown keys before it reaches authentication', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http().get('/v1/merchant').set(bearer('sfk_not-a-key'))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('never limits health checks', async () => {
    for (let i = 0; i < 8; i++) expect((await t.http().get('/healthz')).status).toBe(200);
  });
});

/** Redis runs beside PostgreSQL on the machines the suite runs on (.ci/run starts it when it is not running). */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limiting shared by several instances through Redis', () => {
  const a = useApp({ rateLimitPerMinute: 4, redisUrl: REDIS_URL });
  const b = useApp({ rateLimitPerMinute: 4, redisUrl: REDIS_URL });

  it('counts a key once across instances: two requests on each, and the fifth is refused on either', async () => {
    const key = bearer(`sfk_unknown-${randomBytes(8).toString('hex')}`);
    const statuses = [];
    for (const t of [a, b, a, b]) statuses.push((await t.http().get('/v1/merchant').set(key)).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const refused = await b.http().get('/v1/merchant').set(key);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await a.http().get('/v1/merchant').set(key)).status).toBe(429);
  });

  it('keeps counting other keys separately', async () => {
    const first = bearer(`sfk_unknown-${randomBytes(8).toString('hex')}`);
    const second = bearer(`sfk_unknown-${randomBytes(8).toString('hex')}`);
    for (const t of [a, b, a, b]) await t.http().get('/v1/merchant').set(first);
    expect((await a.http().get('/v1/merchant').set(first)).status).toBe(429);
    expect((await b.http().get('/v1/merchant').set(second)).status).toBe(401);
  });
});

describe('console sign-in slowed down across instances through Redis', () => {
  const a = useApp({ redisUrl: REDIS_URL });
  const b = useApp({ redisUrl: REDIS_URL });

  // Every request here comes from 127.0.0.1: forget its address count, which outlives the run in Redis.
  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys('size-fit:login-address:*127.0.0.1');
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('counts failed sign-ins for one email on every instance', async () => {
    const email = uniqueEmail('shared');
    const statuses = [];
    for (const t of [a, b, a, b, a]) {
      const client = new ConsoleClient(t);
      await client.page('/console/login');
      statuses.push((await client.submitLogIn({ email, password: 'not the password at all' })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const client = new ConsoleClient(b);
    await client.page('/console/login');
    const refused = await client.submitLogIn({ email, password: 'not the password at all' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('rate limiting when Redis is unreachable', () => {
  // Nothing listens on port 1: every Redis command fails at once.
  const t = useApp({ rateLimitPerMinute: 4, redisUrl: 'redis://127.0.0.1:1' });

  it('keeps serving and falls back to limits counted by this instance alone', async () => {
    expect((await t.http().get('/healthz')).status).toBe(200);
    const key = bearer(`sfk_unknown-${randomBytes(8).toString('hex')}`);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http().get('/v1/merchant').set(key)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});

describe('slow clients', () => {
  const t = useApp({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });

  /** Opens a connection, sends `start`, then one more byte every 200 ms; resolves with what the server answered. */
  function dripRequest(port: number, start: string, drip: string): Promise<{ answer: string; closedAfterMs: number }> {
    return new Promise((resolve, reject) => {
      const began = Date.now();
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let sent = 0;
      const timer = setInterval(() => {
        if (!socket.writable) return;
        socket.write(drip[sent % drip.length]);
        sent++;
      }, 200);
      socket.on('connect', () => socket.write(start));
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined); // a reset is an answer too
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ answer, closedAfterMs: Date.now() - began });
      });
      setTimeout(() => {
        clearInterval(timer);
        socket.destroy();
        reject(new Error('the server held a slow client for 10 s'));
      }, 10_000).unref();
    });
  }

  /** The app's own server on a port (closed with the app): the limits belong to that server. */
  async function listening(): Promise<{ port: number }> {
    const server = t.app.getHttpServer() as unknown as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port };
  }

  it('cuts off a client that sends its headers a byte at a time', async () => {
    const { port } = await listening();
    const { answer, closedAfterMs } = await dripRequest(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n', 'X-Slow: y');
    expect(closedAfterMs).toBeLessThan(4_000);
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('cuts off a client that sends its body a byte at a time', async () => {
    const { port } = await listening();
    const head = 'POST /v1/stores HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    const { answer, closedAfterMs } = await dripRequest(port, head, '{');
    expect(closedAfterMs).toBeLessThan(5_000);
    expect(answer === '' || /^HTTP\/1\.1 (408|401)/.test(answer)).toBe(true);
  });
});
