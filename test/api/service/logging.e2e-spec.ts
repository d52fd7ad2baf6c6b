import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { generateSecret } from '../../../src/common/crypto/key-secret.js';
import { bearer, OPERATOR_KEY, startApp, type TestApp } from '../../support/app.js';
import { createTenant, issueKey } from '../../support/fixtures.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

/**
 * The service logs with pino to stdout. pino writes through `process.stdout.write` when that has been replaced
 * before the logger is built, so replacing it here, before the app starts, captures every log line.
 */
describe('logs', () => {
  let t: TestApp;
  const captured: string[] = [];
  let restore: () => void;

  beforeAll(async () => {
    const write = process.stdout.write.bind(process.stdout);
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (text.startsWith('{')) {
        captured.push(text);
        const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
        callback?.();
        return true;
      }
      return write(chunk as string, ...(rest as []));
    }) as typeof process.stdout.write);
    restore = () => spy.mockRestore();
    // Short limits for slow clients, so that a test can be cut off in a second or two (supertest's requests are quick).
    t = await startApp({ logLevel: 'info', headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
  });

  afterAll(async () => {
    await t?.close();
    restore?.();
  });

  const lines = (): Record<string, unknown>[] =>
    captured
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  /** The request log line for a response; log writes may trail the response by a tick, so wait for it. */
  async function requestLine(response: Response): Promise<Record<string, unknown>> {
    const id = response.headers['request-id'];
    for (let attempt = 0; attempt < 200; attempt++) {
      const line = lines().find((l) => (l.req as { id?: unknown } | undefined)?.id === id && l.res !== undefined);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no request log line for Request-Id ${id}`);
  }

  /** Sends `text` on a new connection and resolves with everything the server wrote back before it closed. */
  async function raw(text: string): Promise<string> {
    const server = t.app.getHttpServer() as unknown as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new Promise((resolve) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answer));
    });
  }

  it('logs a request cut off for being slow under the Request-Id its 408 answer carries, with that status', async () => {
    const tenant = await createTenant(t);
    const slowHeaders = await raw('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const slowBody = await raw(
      `POST /v1/stores HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${tenant.admin.secret}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    for (const answer of [slowHeaders, slowBody]) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      const id = /\r\nRequest-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
      const line = await requestLine({ headers: { 'request-id': id } } as unknown as Response);
      expect(line.res).toEqual({ statusCode: 408 });
    }
  }, 15_000);

  it('writes JSON lines that can be captured at all', async () => {
    const response = await t.http().get('/healthz');
    const line = await requestLine(response);
    expect(line).toMatchObject({ req: { id: response.headers['request-id'], method: 'GET', url: '/healthz' } });
  });

  it('never writes a secret, wherever the caller put it, and tags each request line with its Request-Id', async () => {
    const tenant = await createTenant(t);
    const admin = tenant.admin.secret;
    const unknown = generateSecret();
    const responses: Response[] = [];
    const secrets = [OPERATOR_KEY, admin, unknown];

    // A valid key in the header, an unknown one, and keys pushed into the URL (refused, but still logged).
    responses.push(await t.http().get('/v1/stores').set(bearer(admin)));
    responses.push(await t.http().get('/v1/stores').set(bearer(unknown)));
    responses.push(await t.http().get(`/v1/stores?access_token=${admin}`).set(bearer(admin)));
    responses.push(await t.http().get(`/v1/stores?api_key=${admin}`));
    responses.push(await t.http().get(`/v1/stores?limit=2&q=${admin}`).set(bearer(admin)));
    responses.push(await t.http().get(`/v1/api-keys/${admin}`).set(bearer(admin)));
    responses.push(await t.http().get(`/no/such/route?token=${admin}`));
    responses.push(await t.http().post('/v1/stores').set(bearer(admin)).send({ name: 'Logged', access_token: admin }));

    // Responses that carry secrets: a new merchant and a new key.
    const merchant = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name: 'Logged merchant' });
    expect(merchant.status).toBe(201);
    secrets.push(merchant.body.api_key.secret);
    responses.push(merchant);
    const issued = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(admin))
      .send({ name: 'logged key', scopes: ['fit'], store_id: tenant.storeId });
    expect(issued.status).toBe(201);
    secrets.push(issued.body.secret);
    responses.push(issued);
    responses.push(await t.http().get('/v1/api-keys').set(bearer(admin)).set('Request-Id', 'caller-trace-1'));
    // A key sent as the Request-Id is neither logged nor echoed: the request gets an id of its own.
    const keyAsId = await t.http().get('/v1/api-keys').set(bearer(admin)).set('Request-Id', admin);
    expect(keyAsId.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    responses.push(keyAsId);

    for (const response of responses) {
      const line = await requestLine(response);
      expect((line.req as { id: string }).id).toBe(response.headers['request-id']);
      expect(line.res).toMatchObject({ statusCode: response.status });
    }
    expect(lines().some((l) => (l.req as { id?: string } | undefined)?.id === 'caller-trace-1')).toBe(true);

    // The URLs that carried a key were logged, blanked.
    const refused = await requestLine(responses[2]);
    expect(refused).toMatchObject({ req: { method: 'GET', url: '/v1/stores?access_token=[REDACTED]' }, res: { statusCode: 400 } });

    const log = captured.join('');
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      // The part after `sfk_`/`sfo_` identifies the secret even when the prefix is encoded or cut off.
      expect(log).not.toContain(secret.slice(4));
      expect(log).not.toContain(secret.slice(4, 30));
    }
  });

  it('never writes a secret pushed into the URL in percent-encoded form', async () => {
    const { admin } = await createTenant(t);
    const encoded = [
      `/v1/stores?q=${admin.secret.replace('_', '%5F')}`,
      `/v1/stores?q=%73%66%6B_${admin.secret.slice(4)}`,
      `/v1/stores?access%5Ftoken=${admin.secret.replace('_', '%5F')}`,
    ];
    for (const url of encoded) {
      const response = await t.http().get(url).set(bearer(admin.secret));
      expect(response.status).toBe(400);
      await requestLine(response);
    }
    expect(captured.join('')).not.toContain(admin.secret.slice(4));
  });

  it("never writes a returning shopper's id sent to any spelling of the erasure route", async () => {
    const tenant = await createTenant(t);
    const key = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
    const store = `/v1/stores/${tenant.storeId}`;
    const spellings = [
      (ref: string) => `${store}/shoppers/${ref}`,
      (ref: string) => `${store}/Shoppers/${ref}`,
      (ref: string) => `${store}/SHOPPERS/${ref}`,
      (ref: string) => `${store}/shoppers;/${ref}`,
      (ref: string) => `${store}/shoppers;jsessionid=1/${ref}`,
      (ref: string) => `${store}/shoppers%2F${ref}`,
      (ref: string) => `${store}//shoppers//${ref}`,
      (ref: string) => `${store}/shoppers./${ref}`,
      (ref: string) => `${store}/shoppers../${ref}/`,
      (ref: string) => `${store}/%73hoppers/${ref}`,
      (ref: string) => `${store}/%53HOPPERS/${ref}`,
      (ref: string) => `${store}/%2573hoppers/${ref}`,
      (ref: string) => `${store}/%C5%BFhoppers/${ref}`,
      (ref: string) => `${store}/shoppers%3B/${ref}`,
      (ref: string) => `${store}/shoppers\\${ref}`,
      (ref: string) => `${store}/./shoppers/./${ref}?limit=1`,
    ];
    const refs: string[] = [];
    for (const [i, spelling] of spellings.entries()) {
      for (const method of ['delete', 'get'] as const) {
        const ref = `shopper-${method}-${i}-${randomUUID()}@example.com`;
        refs.push(ref);
        const response = await t
          .http()
          [method](spelling(encodeURIComponent(ref)))
          .set(bearer(key.secret));
        const line = await requestLine(response);
        expect((line.req as { url: string }).url).toContain('/[REDACTED]');
      }
    }
    const log = captured.join('');
    for (const ref of refs) {
      expect(log).not.toContain(ref);
      expect(log).not.toContain(encodeURIComponent(ref));
      expect(log).not.toContain(ref.slice(0, ref.indexOf('@'))); // its distinctive part, however encoded around it
    }
  });

  it('never writes the Authorization header', async () => {
    const { admin } = await createTenant(t);
    const response = await t.http().get('/v1/merchant').set(bearer(admin.secret));
    await requestLine(response);
    expect(captured.join('')).not.toMatch(/Bearer\s+sf[ko]_/);
    expect(captured.join('')).not.toContain(admin.secret.slice(4));
  });

  // Breaking the schema on purpose is safe only on a throw-away embedded database; it is put back at once.
  (onPostgres ? it.skip : it)(
    'logs a failed request twice under its Request-Id: the error with its stack, and the request line',
    async () => {
      const { admin, storeId } = await createTenant(t);
      const database = t.app.get(DataSource);
      await database.query('ALTER TABLE stores RENAME COLUMN currency TO currency_code');
      let response: Response;
      try {
        response = await t.http().get(`/v1/stores/${storeId}`).set(bearer(admin.secret));
      } finally {
        await database.query('ALTER TABLE stores RENAME COLUMN currency_code TO currency');
      }
      expect(response.status).toBe(500);
      const id = response.headers['request-id'];
      const line = await requestLine(response);
      expect(line).toMatchObject({ level: 50, req: { id, method: 'GET' }, res: { statusCode: 500 } });
      const error = lines().find((l) => l.msg === 'unhandled error' && l.request_id === id);
      expect(error).toMatchObject({ level: 50, err: { type: expect.any(String), stack: expect.stringContaining('currency') } });
      expect(captured.join('')).not.toContain(admin.secret.slice(4));
    },
  );

  it('says once, naming the address, when a client reaches MAX_CONNECTIONS_PER_ADDRESS, and again only after it went below', async () => {
    const capped = await startApp({ logLevel: 'info', maxConnectionsPerAddress: 2 });
    const server = capped.app.getHttpServer() as unknown as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sockets: ReturnType<typeof connect>[] = [];
    /** Opens `count` connections and waits until the server has closed those over the cap. */
    const openMany = async (count: number) => {
      const opened = await Promise.all(
        Array.from({ length: count }, () => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          socket.on('error', () => undefined);
          return new Promise<{ closed: boolean }>((resolve) => {
            const state = { closed: false };
            socket.once('close', () => (state.closed = true));
            socket.once('connect', () => resolve(state));
          });
        }),
      );
      for (let wait = 0; wait < 100 && opened.filter((c) => c.closed).length < Math.max(0, count - 2); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const refusals = () => lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('connections refused'));
    try {
      await openMany(6); // two kept, four closed: one line
      await openMany(3); // still at the cap: no new line
      expect(refusals()).toEqual([expect.objectContaining({ level: 40, address: '127.0.0.1', max: 2 })]);
      for (const socket of sockets.splice(0)) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await openMany(3); // below the cap in between: a second line
      expect(refusals()).toHaveLength(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.close();
    }
  });
});
