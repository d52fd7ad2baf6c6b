import { randomInt } from 'node:crypto';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { bearer, useApp } from '../../support/app.js';
import { ConsoleClient, uniqueEmail } from '../../support/console-client.js';
import { createTenant, expectProblem, issueKey, type Tenant } from '../../support/fixtures.js';
import { FAILED_AUTHENTICATION_COST } from '../../../src/auth/api-gate.middleware.js';
import { generateSecret } from '../../../src/common/crypto/key-secret.js';

/** Every request of these tests comes from loopback; behind a trusted proxy, each test is its own client address. */
let lastAddress = 0;
const newAddress = () => `198.51.100.${++lastAddress}`;
const from = (address: string) => ({ 'X-Forwarded-For': address });

describe('rate limiting per key', () => {
  // Room at the address for every key of these tests: what is counted here is the key.
  const t = useApp({ rateLimitPerMinute: 10, rateLimitPerAddressPerMinute: 1_000 });
  let tenant: Tenant;
  /** Keys whose budgets no request has touched yet, issued once by one admin key (its budget covers them). */
  const fresh: string[] = [];
  const freshKey = (): string => fresh.pop() as string;
  beforeAll(async () => {
    tenant = await createTenant(t);
    for (let i = 0; i < 8; i++) fresh.push((await issueKey(t, tenant.admin.secret, { scopes: ['admin'] })).secret);
  });

  it('answers 429 with Retry-After and the IETF RateLimit headers once a key spends its budget', async () => {
    const secret = freshKey();
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await t.http().get('/v1/merchant').set(bearer(secret)));
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(200), 429]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"address";q=1000;w=60, "key";q=10;w=60');
    expect(answers[0].headers['ratelimit']).toMatch(/^"address";r=\d+;t=\d+, "key";r=9;t=\d+$/);
    expect(answers[9].headers['ratelimit']).toMatch(/, "key";r=0;t=\d+$/);

    const limited = answers[10];
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit']).toMatch(/, "key";r=0;t=\d+$/);
    expect(limited.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('counts each key separately', async () => {
    const spent = freshKey();
    for (let i = 0; i < 10; i++) await t.http().get('/v1/merchant').set(bearer(spent));
    expect((await t.http().get('/v1/merchant').set(bearer(spent))).status).toBe(429);
    expect((await t.http().get('/v1/merchant').set(bearer(freshKey()))).status).toBe(200);
  });

  it('counts a key once however the scheme is spelled: 64 spellings of Bearer spend one budget', async () => {
    const key = freshKey();
    const spellings = Array.from({ length: 64 }, (_, i) => [...'bearer'].map((c, bit) => ((i >> bit) & 1 ? c.toUpperCase() : c)).join(''));
    expect(new Set(spellings).size).toBe(64);
    const statuses = [];
    for (const scheme of spellings) statuses.push((await t.http().get('/v1/merchant').set('Authorization', `${scheme} ${key}`)).status);
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(54).fill(429)]);
  });

  it('lets exactly the budget through when one key sends 40 requests at once', async () => {
    const key = freshKey();
    const answers = await Promise.all(Array.from({ length: 40 }, () => t.http().get('/v1/merchant').set(bearer(key))));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(10).fill(200), ...Array(30).fill(429)]);
  });

  it('puts the RateLimit headers on every /v1 answer and counts every request, refusals too', async () => {
    const auth = bearer(freshKey());
    for (let i = 0; i < 6; i++) await t.http().get('/v1/merchant').set(auth);
    const answers = [
      await t.http().post('/v1/stores').set(auth).send({ name: '' }), // 400
      await t.http().get('/v1/no-such-route').set(auth), // 404
      await t.http().post('/v1/stores').set(auth).set('Content-Type', 'text/plain').send('x'), // 415
      await t
        .http()
        .post('/v1/stores')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send(`{"name":"${'x'.repeat(70_000)}"}`), // 413
      await t.http().get('/v1/merchant').set(auth), // over the budget
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 404, 415, 413, 429]);
    expect(answers.map((a) => /"key";r=(\d+)/.exec(String(a.headers['ratelimit']))?.[1])).toEqual(['3', '2', '1', '0', '0']);
    for (const answer of answers) expect(answer.headers['ratelimit-policy']).toBe('"address";q=1000;w=60, "key";q=10;w=60');
  });

  it('never limits health checks', async () => {
    for (let i = 0; i < 8; i++) expect((await t.http().get('/healthz')).status).toBe(200);
  });
});

describe('rate limiting per client address', () => {
  // 20 per address, as RATE_LIMIT_PER_MINUTE=5 sets it; keys with room to spare. Each test is its own client
  // behind the proxy, set-up requests come from loopback itself.
  const t = useApp({ rateLimitPerMinute: 1_000, rateLimitPerAddressPerMinute: 20, trustProxy: 'loopback' });
  // Four failed authentications spend an address's 20: each costs FAILED_AUTHENTICATION_COST (5) requests.
  const failuresAllowed = 20 / FAILED_AUTHENTICATION_COST;

  it('refuses 200 malformed Authorization headers with 401 until the address is spent, then 429', async () => {
    const address = newAddress();
    const statuses = [];
    for (let i = 0; i < 200; i++)
      statuses.push((await t.http().get('/v1/merchant').set(from(address)).set('Authorization', `x${i}`)).status);
    expect(statuses).toEqual([...Array(failuresAllowed).fill(401), ...Array(200 - failuresAllowed).fill(429)]);
  });

  it('refuses 200 made-up keys with valid checksums the same way: each failed lookup costs the address', async () => {
    const address = newAddress();
    const statuses = [];
    for (let i = 0; i < 200; i++)
      statuses.push((await t.http().get('/v1/merchant').set(from(address)).set(bearer(generateSecret()))).status);
    expect(statuses).toEqual([...Array(failuresAllowed).fill(401), ...Array(200 - failuresAllowed).fill(429)]);
  });

  it('counts requests without a key, and makes them pay as failed authentications', async () => {
    const address = newAddress();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http().get('/v1/merchant').set(from(address))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('holds the address budget across many valid keys, and leaves other addresses alone', async () => {
    const tenant = await createTenant(t); // from loopback itself, as are the keys: 8 of its 20
    const keys = [];
    for (let i = 0; i < 6; i++) keys.push((await issueKey(t, tenant.admin.secret, { scopes: ['admin'] })).secret);
    const address = newAddress();
    const statuses = [];
    for (const key of keys)
      for (let i = 0; i < 4; i++) statuses.push((await t.http().get('/v1/merchant').set(from(address)).set(bearer(key))).status);
    expect(statuses).toEqual([...Array(20).fill(200), ...Array(4).fill(429)]);
    expect((await t.http().get('/v1/merchant').set(from(newAddress())).set(bearer(keys[5]))).status).toBe(200);
  });

  it('lets no more than the address budget through when 60 requests with bad keys arrive at once', async () => {
    const address = newAddress();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => t.http().get('/v1/merchant').set(from(address)).set('Authorization', `x${i}`)),
    );
    const refused = answers.filter((a) => a.status === 401).length;
    // Between four (every failure charged before the next arrives) and twenty (all counted before any is charged).
    expect(refused).toBeGreaterThanOrEqual(failuresAllowed);
    expect(refused).toBeLessThanOrEqual(20);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(60 - refused);
  });
});

/** Redis runs beside PostgreSQL on the machines the suite runs on (.ci/run starts it when it is not running). */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limiting shared by several instances through Redis', () => {
  // Counters in Redis outlive the run: every test uses keys and a client address of its own.
  const shared = { rateLimitPerMinute: 4, rateLimitPerAddressPerMinute: 100_000, redisUrl: REDIS_URL, trustProxy: 'loopback' };
  const a = useApp(shared);
  const b = useApp(shared);
  const client = from(`10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`);

  it('counts a key once across instances: two requests on each, and the fifth is refused on either', async () => {
    const key = bearer(generateSecret()); // well formed, unknown to both: counted, then refused by lookup
    const statuses = [];
    for (const t of [a, b, a, b]) statuses.push((await t.http().get('/v1/merchant').set(client).set(key)).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const refused = await b.http().get('/v1/merchant').set(client).set(key);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await a.http().get('/v1/merchant').set(client).set(key)).status).toBe(429);
  });

  it('keeps counting other keys separately', async () => {
    const first = bearer(generateSecret());
    const second = bearer(generateSecret());
    for (const t of [a, b, a, b]) await t.http().get('/v1/merchant').set(client).set(first);
    expect((await a.http().get('/v1/merchant').set(client).set(first)).status).toBe(429);
    expect((await b.http().get('/v1/merchant').set(client).set(second)).status).toBe(401);
  });

  it('lets exactly the budget through when 30 requests with one key reach both instances at once', async () => {
    const key = bearer(generateSecret());
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).http().get('/v1/merchant').set(client).set(key)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(4).fill(401), ...Array(26).fill(429)]);
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
  const t = useApp({ rateLimitPerMinute: 4, rateLimitPerAddressPerMinute: 1_000, redisUrl: 'redis://127.0.0.1:1' });

  it('keeps serving and falls back to limits counted by this instance alone', async () => {
    expect((await t.http().get('/healthz')).status).toBe(200);
    const key = bearer(generateSecret());
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
