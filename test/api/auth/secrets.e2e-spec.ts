import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { SESSION_COOKIE } from '../../../src/console-accounts/console-credentials.js';
import { bearer, OPERATOR_KEY, startApp, type TestApp } from '../../support/app.js';
import { ConsoleClient, keyRows, newSecret, setCookies, signUp, transcript, uniqueEmail } from '../../support/console-client.js';
import { standinConfig, type StandinPlatform, startPlatform } from '../../support/platform-standin.js';

/**
 * Secrets stay where they belong. A tour of every route family — merchants, keys, stores, the catalog,
 * questionnaires, sessions, events, metrics, the public pages, and the seller console with its sign-up, login, key
 * issue and revocation, metrics and platform OAuth against a stand-in platform — runs on an app logging at `debug`.
 * Afterwards:
 *
 * - no log line holds an API key secret, the operator key, a key digest, a console password, a password hash, a
 *   console session token or its digest, a platform access token (plain or sealed), the platform client secret or
 *   the token encryption key, in any encoding the tour could have produced;
 * - no answer (body or header) holds any of them, except that a key's secret is in the one answer that created it
 *   and a session token in the answer that set its cookie. CSRF tokens may appear in pages.
 */

const PUBLIC_URL = 'http://127.0.0.1:9';

interface Secret {
  what: string;
  value: string;
  /** The answer allowed to show it (its creation), if any. */
  createdBy?: Seen;
}

interface Seen {
  label: string;
  status: number;
  /** Body and every header, as a client would see them. */
  visible: string;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** The forms in which a value could surface: as is, URL- and form-encoded, and for keys without their prefix. */
function forms(value: string): string[] {
  const all = new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]);
  if (/^sf[ko]_/.test(value)) all.add(value.slice(4)); // the random part identifies the key without its prefix
  return [...all].filter((form) => form.length >= 12);
}

describe('secrets', () => {
  let t: TestApp;
  let platform: StandinPlatform;
  const tokenKey = randomBytes(32);
  const captured: string[] = [];
  let restore: (() => void) | undefined;
  const answers: Seen[] = [];
  const secrets: Secret[] = [];

  const secret = (what: string, value: unknown, createdBy?: Seen): void => {
    if (typeof value !== 'string' || value === '') throw new Error(`${what}: no secret value`);
    if (!secrets.some((s) => s.value === value)) secrets.push({ what, value, createdBy });
  };

  function visibleOf(response: Response): string {
    return [response.text ?? '', ...Object.entries(response.headers).map(([name, value]) => `${name}: ${JSON.stringify(value)}`)].join(
      '\n',
    );
  }

  /** One /v1 or public call, recorded; any `secret` fields of the answer are registered as created by it. */
  async function call(method: 'get' | 'post' | 'patch' | 'delete', path: string, key?: string, body?: unknown): Promise<Response> {
    let test = t.http()[method](path);
    if (key !== undefined) test = test.set(bearer(key));
    const response = body === undefined ? await test : await test.send(body as object);
    const seen: Seen = {
      label: `${method.toUpperCase()} ${path} → ${response.status}`,
      status: response.status,
      visible: visibleOf(response),
    };
    answers.push(seen);
    const created = response.body as { secret?: unknown; api_key?: { secret?: unknown } } | undefined;
    if (created?.secret !== undefined) secret(`key secret from ${seen.label}`, created.secret, seen);
    if (created?.api_key?.secret !== undefined) secret(`key secret from ${seen.label}`, created.api_key.secret, seen);
    return response;
  }

  async function ok(method: 'get' | 'post' | 'patch' | 'delete', path: string, key: string | undefined, body: unknown, status: number) {
    const response = await call(method, path, key, body);
    if (response.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${response.text}`);
    return response.body as Record<string, unknown> & { id: string };
  }

  beforeAll(async () => {
    platform = await startPlatform();
    const write = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    // Everything the process writes while the app lives is kept; JSON lines (the service's logs) are not echoed.
    const capture = (real: typeof write) =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        captured.push(text);
        if (text.startsWith('{')) {
          (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
          return true;
        }
        return real(chunk as string, ...(rest as []));
      }) as typeof process.stdout.write;
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture(write));
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture(writeErr));
    restore = () => {
      out.mockRestore();
      err.mockRestore();
    };
    t = await startApp({
      logLevel: 'debug',
      publicUrl: PUBLIC_URL,
      platform: standinConfig(platform, { scopes: ['read_products', 'read_orders'], timeoutMs: 2000, tokenKey }),
    });
  });

  afterAll(async () => {
    await t?.close();
    await platform?.close();
    restore?.();
  });

  it('keeps every secret out of the logs and out of every answer but its creation', async () => {
    secret('operator key', OPERATOR_KEY);
    secret('platform client secret', platform.clientSecret);
    for (const encoding of ['base64', 'hex', 'base64url'] as const)
      secret(`token encryption key (${encoding})`, tokenKey.toString(encoding));

    // ———— merchants, keys, stores ————
    const merchant = await ok('post', '/v1/merchants', OPERATOR_KEY, { name: 'Secretive Apparel' }, 201);
    const admin = (merchant.api_key as { secret: string }).secret;
    const other = await ok('post', '/v1/merchants', OPERATOR_KEY, { name: 'Other Apparel' }, 201);
    const otherAdmin = (other.api_key as { secret: string }).secret;
    await ok('get', '/v1/merchant', admin, undefined, 200);
    const store = (await ok('post', '/v1/stores', admin, { name: 'Secret store', currency: 'EUR' }, 201)).id;
    await ok('get', '/v1/stores', admin, undefined, 200);
    await ok('get', `/v1/stores/${store}`, admin, undefined, 200);
    await ok('patch', `/v1/stores/${store}`, admin, { name: 'Secret store EU' }, 200);
    const keys: Record<string, string> = {};
    for (const scope of ['admin', 'catalog', 'fit', 'events', 'analytics']) {
      keys[scope] = String(
        (await ok('post', '/v1/api-keys', admin, { name: `${scope} key`, scopes: [scope], store_id: store }, 201)).secret,
      );
    }
    const doomed = await ok(
      'post',
      '/v1/api-keys',
      admin,
      { name: 'doomed', scopes: ['fit'], store_id: store, expires_at: new Date(Date.now() + 86_400_000).toISOString() },
      201,
    );
    await ok('get', '/v1/api-keys', admin, undefined, 200);
    await ok('get', `/v1/api-keys?store_id=${store}`, admin, undefined, 200);
    await ok('delete', `/v1/api-keys/${doomed.id}`, admin, undefined, 200);
    await ok('get', '/v1/merchant', String(doomed.secret), undefined, 401); // a revoked key
    await ok('delete', `/v1/api-keys/${doomed.id}`, keys.admin, undefined, 200);
    // Keys where they do not belong: refused, and still never echoed or logged.
    await ok('get', `/v1/stores?api_key=${admin}`, undefined, undefined, 400);
    await ok('get', `/v1/stores?q=${keys.catalog}`, admin, undefined, 400);
    await ok('post', '/v1/stores', admin, { name: 'Nope', access_token: keys.fit }, 400);
    await ok('get', `/v1/api-keys/${keys.events}`, admin, undefined, 404);
    await ok('post', '/v1/merchants', admin, { name: 'Not the operator' }, 403);
    await ok('get', '/v1/merchant', OPERATOR_KEY, undefined, 403);
    await ok('get', '/v1/merchant', `${admin.slice(0, -3)}xyz`, undefined, 401);

    // ———— catalog, questionnaires, sessions, events, metrics ————
    const base = `/v1/stores/${store}`;
    const catalog = keys.catalog;
    const type = await ok(
      'post',
      `${base}/product-types`,
      catalog,
      { name: 'Tops', category: 'tops', zone_weights: { chest: 1, waist: 0.5 } },
      201,
    );
    const sizes = [
      { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
      { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
      { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
    ];
    const chart = await ok(
      'post',
      `${base}/size-charts`,
      catalog,
      { name: 'Tops chart', unit: 'cm', measurement_type: 'body', sizes },
      201,
    );
    const product = await ok(
      'post',
      `${base}/products`,
      catalog,
      { title: 'Tee', external_id: 'gid-1', product_type_id: type.id, size_chart_id: chart.id },
      201,
    );
    const variant = await ok('post', `${base}/products/${product.id}/variants`, catalog, { size_label: 'M', sku: 'TEE-M' }, 201);
    const spare = await ok('post', `${base}/products/${product.id}/variants`, catalog, { size_label: 'L', sku: 'TEE-L' }, 201);
    for (const path of ['product-types', 'size-charts', 'products', `products/${product.id}/variants`])
      await ok('get', `${base}/${path}`, catalog, undefined, 200);
    await ok('get', `${base}/products/${product.id}`, catalog, undefined, 200);
    await ok('get', `${base}/products?external_id=gid-1`, catalog, undefined, 200);
    await ok('patch', `${base}/products/${product.id}`, catalog, { fit_adjustment: 'runs_small' }, 200);
    await ok('patch', `${base}/products/${product.id}/variants/${variant.id}`, catalog, { title: 'Medium' }, 200);
    await ok('patch', `${base}/product-types/${type.id}`, catalog, { name: 'Tops 2' }, 200);
    await ok('patch', `${base}/size-charts/${chart.id}`, catalog, { name: 'Tops chart 2' }, 200);
    await ok('delete', `${base}/products/${product.id}/variants/${spare.id}`, catalog, undefined, 204);
    const fit = keys.fit;
    const quiz = await ok(
      'post',
      `${base}/questionnaires`,
      fit,
      {
        name: 'Quiz',
        questions: [
          { key: 'height', required: true },
          { key: 'weight', required: true },
        ],
      },
      201,
    );
    await ok('get', `${base}/questionnaires/${quiz.id}`, fit, undefined, 200);
    await ok('patch', `${base}/questionnaires/${quiz.id}`, fit, { name: 'Quiz 2' }, 200);
    const dropped = await ok(
      'post',
      `${base}/questionnaires`,
      fit,
      { name: 'Dropped', questions: [{ key: 'height', required: true }] },
      201,
    );
    await ok('delete', `${base}/questionnaires/${dropped.id}`, fit, undefined, 204);
    const session = await ok('post', `${base}/sessions`, fit, { product_id: product.id }, 201);
    await ok(
      'post',
      `${base}/sessions/${session.id}/answers`,
      fit,
      { answers: { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' } },
      200,
    );
    await ok('post', `${base}/sessions/${session.id}/decision`, fit, { size_label: 'M' }, 200);
    await ok('get', `${base}/sessions/${session.id}`, fit, undefined, 200);
    await ok('get', `${base}/sessions`, keys.admin, undefined, 200);
    const purchase = {
      source: 'shop',
      external_id: 'purchase-1',
      type: 'purchase',
      product_id: product.id,
      variant_id: variant.id,
      session_id: session.id,
      order_id: '1001',
      line_item_id: '1',
      occurred_at: new Date().toISOString(),
    };
    await ok('post', `${base}/events`, keys.events, purchase, 201);
    await ok('post', `${base}/events`, keys.events, purchase, 200);
    await ok('post', `${base}/events`, keys.events, { ...purchase, quantity: 2 }, 409);
    await ok(
      'post',
      `${base}/events/batch`,
      keys.events,
      { events: [{ ...purchase, external_id: 'return-1', type: 'return_requested', reason: 'size', session_id: undefined }] },
      200,
    );
    await ok('get', `${base}/events?order_id=1001`, keys.events, undefined, 200);
    await ok('get', `${base}/metrics`, keys.analytics, undefined, 200);
    await ok('get', `${base}/metrics/daily`, keys.analytics, undefined, 200);
    await ok('get', `/v1/stores/${store}`, otherAdmin, undefined, 404);

    // ———— public pages ————
    for (const path of ['/healthz', '/readyz', '/problems', '/problems/unauthenticated', '/openapi.json'])
      await ok('get', path, undefined, undefined, 200);

    // ———— the seller console ————
    const password = `pw ${randomBytes(9).toString('base64url')} long enough`;
    const wrongPassword = `wrong ${randomBytes(9).toString('base64url')} also long`;
    secret('console password', password);
    secret('mistyped console password', wrongPassword);
    const email = uniqueEmail('secrets');
    // A sign-up with a key that is not an admin key, then a real one.
    const refused = new ConsoleClient(t);
    const bad = await refused.submitSignUp({ admin_key: keys.catalog, email: uniqueEmail('refused'), password });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const browser = await signUp(t, admin, { email, password });
    const failed = new ConsoleClient(t);
    const denied = await failed.submitLogIn({ email, password: wrongPassword });
    expect(denied.status).toBeGreaterThanOrEqual(400);
    const second = new ConsoleClient(t);
    expect((await second.submitLogIn({ email, password })).status).toBe(303);
    await second.page('/console');

    const storePath = `/console/stores/${store}`;
    await browser.page(storePath);
    const issued = await browser.post(`${storePath}/keys`, { name: 'console key', scopes: ['events', 'analytics'] });
    expect(issued.status).toBe(201);
    const consoleKey = newSecret(issued.text);
    expect(consoleKey).toMatch(/^sfk_/);
    await browser.get(`${storePath}/keys`);
    const page = await browser.page(storePath);
    const consoleKeyRow = keyRows(page.text).find((row) => row.revokeAction !== undefined && row.text.includes('console key'));
    expect(consoleKeyRow).toBeDefined();
    await browser.post(consoleKeyRow?.revokeAction as string);
    await browser.page(`${storePath}/metrics`);
    // Connect the store to the platform: authorize, callback, the sealed token, then disconnect.
    await browser.page(storePath);
    const connect = await browser.post(`${storePath}/platform/connect`, { shop: 'secret-shop.myshopify.com' });
    expect(connect.status).toBe(303);
    const params = platform.authorize(connect.headers.location as string);
    const back = await browser.get(
      `/console/platform/callback?${new URLSearchParams(params as unknown as Record<string, string>).toString()}`,
    );
    expect(back.status).toBe(303);
    expect(platform.tokens).toHaveLength(1);
    await browser.page(storePath);
    await browser.page('/console');
    await browser.post(`${storePath}/platform/disconnect`);
    await second.logOut();
    await browser.logOut();

    // Console answers: a key's secret only on the page that issued it; a session token only where its cookie was set.
    const consoleSeen: Seen[] = transcript.map((seen) => ({
      label: `console ${seen.method} ${seen.path} → ${seen.status}`,
      status: seen.status,
      visible: [seen.text, ...Object.entries(seen.headers).map(([name, value]) => `${name}: ${JSON.stringify(value)}`)].join('\n'),
    }));
    transcript.forEach((seen, i) => {
      if (seen.path === `${storePath}/keys` && seen.method === 'POST' && seen.status === 201)
        secret('key issued in the console', consoleKey, consoleSeen[i]);
      for (const cookie of setCookies({ headers: seen.headers } as unknown as Response, SESSION_COOKIE)) {
        if (cookie.value !== '') secret('console session token', cookie.value, consoleSeen[i]);
      }
    });
    answers.push(...consoleSeen);
    for (const token of platform.tokens) secret('platform access token', token);

    // ———— what the database keeps instead: digests and sealed values, no more visible than the secrets ————
    const db = t.app.get(DataSource);
    for (const row of (await db.query('SELECT secret_digest FROM api_keys')) as { secret_digest: string }[])
      secret('key digest', row.secret_digest);
    for (const row of (await db.query('SELECT password_hash FROM console_accounts')) as { password_hash: string }[]) {
      secret('password hash', row.password_hash);
      for (const part of row.password_hash.split('$').slice(4)) secret('password hash part', part);
    }
    for (const row of (await db.query('SELECT token_digest FROM console_sessions')) as { token_digest: string }[])
      secret('session token digest', row.token_digest);
    for (const s of [...secrets]) {
      if (/^sf[ko]_/.test(s.value) || s.what === 'console session token') secret(`digest of a ${s.what}`, sha256(s.value));
    }
    expect(secrets.filter((s) => s.what.startsWith('key secret')).length).toBe(8);
    expect(secrets.filter((s) => s.what === 'console session token').length).toBeGreaterThanOrEqual(2);
    expect(secrets.filter((s) => s.what === 'key digest').length).toBeGreaterThanOrEqual(9);

    // ———— the checks ————
    await new Promise((resolve) => setTimeout(resolve, 200)); // log lines may trail their answers
    const log = captured.join('');
    expect(log).toContain('"res":{"statusCode":'); // the capture did see the request lines
    const inLog = secrets.filter((s) => forms(s.value).some((form) => log.includes(form))).map((s) => s.what);
    expect(inLog).toEqual([]);

    const inAnswers: string[] = [];
    for (const answer of answers) {
      for (const s of secrets) {
        if (answer === s.createdBy) continue;
        if (forms(s.value).some((form) => answer.visible.includes(form))) inAnswers.push(`${s.what} in ${answer.label}`);
      }
    }
    expect(inAnswers).toEqual([]);
    // Each created secret did reach its creator, so the exemption above is not hiding a lost secret.
    for (const s of secrets.filter((x) => x.createdBy)) expect(s.createdBy?.visible).toContain(s.value);
    expect(answers.length).toBeGreaterThan(80);
  }, 60_000);
});
