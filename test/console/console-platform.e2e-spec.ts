import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, startApp, type TestApp } from '../support/app.js';
import {
  ConsoleClient,
  errorCode,
  expectSeeOther,
  fieldErrors,
  findAll,
  logIn as logInClient,
  signUp as signUpClient,
  transcript,
} from '../support/console-client.js';
import { createTenant, type Tenant } from '../support/fixtures.js';
import {
  type ApproveOptions,
  type CallbackParams,
  callbackQuery,
  closedPort,
  signCallback,
  type StandinPlatform,
  startPlatform,
} from '../support/platform-standin.js';

/**
 * The console's platform connection (docs/decisions/005-seller-console.md, "Platform connection"): Shopify-style
 * authorization-code OAuth against a stand-in platform on 127.0.0.1 (test/support/platform-standin.ts).
 */

const PUBLIC_URL = 'http://127.0.0.1:9';
const CALLBACK = '/console/platform/callback';
const SCOPES = ['read_products', 'read_orders'];
const TIMEOUT_MS = 500;
const SHOP = 'demo-shop.myshopify.com';

// ---------------------------------------------------------------------------------------------------------------
// Nothing secret in any answer: the requests of the tests go through `seen`, which checks the body, the Location and
// every other header against the platform's client secret, every access token the stand-ins handed out so far, and
// the token encryption keys; the last test audits the shared client's transcript (sign-up and login pages too).

const platforms: StandinPlatform[] = [];
const tokenKeys: Buffer[] = [];
let checkedResponses = 0;

function forbidden(): string[] {
  return [
    ...platforms.flatMap((platform) => [platform.clientSecret, ...platform.tokens]),
    ...tokenKeys.flatMap((key) => [key.toString('base64'), key.toString('hex'), key.toString('base64url')]),
  ];
}

async function seen(pending: PromiseLike<Response>): Promise<Response> {
  const response = await pending;
  const visible = [response.text ?? '', ...Object.values(response.headers).map((value) => String(value))].join('\n');
  const secrets = forbidden();
  const decoded = (() => {
    try {
      return decodeURIComponent(visible);
    } catch {
      return visible;
    }
  })();
  const leaked = secrets.filter((secret) => visible.includes(secret) || decoded.includes(secret));
  expect(leaked).toEqual([]);
  checkedResponses++;
  return response;
}

// ---------------------------------------------------------------------------------------------------------------
// Console helpers, on the shared browser-like client (test/support/console-client.ts).

type ConsoleSession = ConsoleClient & { readonly email: string };

const signUp = (t: TestApp, tenant: Tenant): Promise<ConsoleSession> => signUpClient(t, tenant);
/** Another browser of an existing account: its own console session. */
const logIn = async (t: TestApp, email: string): Promise<ConsoleSession> => Object.assign(await logInClient(t, { email }), { email });
const expectRedirect = expectSeeOther;

function expectErrorPage(response: Response, status: number, code: string): void {
  expect({ status: response.status, code: errorCode(response.text) }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.headers['cache-control']).toContain('no-store');
}

async function storePage(session: ConsoleSession, storeId: string): Promise<Response> {
  const page = await seen(session.get(`/console/stores/${storeId}`));
  expect(page.status).toBe(200);
  return page;
}

/** `data-connected` of `section#platform` and the section's markup. */
function platformSection(html: string): { connected: string | undefined; markup: string } {
  const section = findAll(html, 'section', { id: 'platform' })[0];
  return { connected: section?.attrs['data-connected'], markup: section?.inner ?? '' };
}

/** Posts the connect form, by default from a fresh store page (its CSRF token); `fromPage: false` uses the last page's. */
async function connect(session: ConsoleSession, storeId: string, shop: string, fromPage = true): Promise<Response> {
  if (fromPage) await storePage(session, storeId);
  return seen(session.post(`/console/stores/${storeId}/platform/connect`, { shop }));
}

/** Connect, expecting the redirect to the platform; returns the authorize URL and its state. */
async function startConnect(session: ConsoleSession, storeId: string, shop = SHOP): Promise<{ location: string; state: string }> {
  const response = await connect(session, storeId, shop);
  expect(response.status).toBe(303);
  const location = response.headers.location as string;
  const state = new URL(location).searchParams.get('state');
  expect(state).toBeTruthy();
  return { location, state: state as string };
}

function callback(session: ConsoleSession | TestApp, query: string | Readonly<Record<string, string | undefined>>): Promise<Response> {
  const path = `${CALLBACK}?${typeof query === 'string' ? query : callbackQuery(query)}`;
  return seen(session instanceof ConsoleClient ? session.get(path) : session.http().get(path));
}

// ---------------------------------------------------------------------------------------------------------------
// Database and token helpers.

const db = (t: TestApp) => t.app.get(DataSource);

interface ConnectionRow {
  shop: string;
  scopes: string;
  sealed: Buffer;
  connected_by: string | null;
}

async function connections(t: TestApp, storeId: string): Promise<ConnectionRow[]> {
  const rows = (await db(t).query('SELECT shop, scopes, token_ciphertext, connected_by FROM platform_connections WHERE store_id = $1', [
    storeId,
  ])) as Array<{ shop: string; scopes: string; token_ciphertext: Uint8Array; connected_by: string | null }>;
  return rows.map((row) => ({
    shop: row.shop,
    scopes: row.scopes,
    sealed: Buffer.from(row.token_ciphertext),
    connected_by: row.connected_by,
  }));
}

async function pendingStates(
  t: TestApp,
  storeId: string,
): Promise<Array<{ state_digest: string; shop: string; session_id: string; expires_at: Date }>> {
  return db(t).query('SELECT state_digest, shop, session_id, expires_at FROM platform_oauth_states WHERE store_id = $1', [storeId]);
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** AES-256-GCM, `'v1' ‖ iv(12) ‖ ciphertext ‖ tag(16)`, the store id as additional data: written from the spec, not from src. */
function openSealed(key: Buffer, storeId: string, sealed: Buffer): string {
  expect(sealed.subarray(0, 2).toString('latin1')).toBe('v1');
  const iv = sealed.subarray(2, 14);
  const tag = sealed.subarray(sealed.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(storeId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(14, sealed.length - 16)), decipher.final()]).toString('utf8');
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------------------------

describe('console: platform connection', () => {
  let platform: StandinPlatform;
  let t: TestApp;
  const tokenKey = randomBytes(32);
  tokenKeys.push(tokenKey);
  const captured: string[] = [];
  let restoreStdout: (() => void) | undefined;

  beforeAll(async () => {
    platform = await startPlatform();
    platforms.push(platform);
    // Capture the service's JSON log lines (as test/service/logging.e2e-spec.ts does) to check that no secret is logged.
    const write = process.stdout.write.bind(process.stdout);
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (text.startsWith('{')) {
        captured.push(text);
        (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
        return true;
      }
      return write(chunk as string, ...(rest as []));
    }) as typeof process.stdout.write);
    restoreStdout = () => spy.mockRestore();
    t = await startApp({
      logLevel: 'info',
      publicUrl: PUBLIC_URL,
      platform: {
        baseUrl: platform.baseUrl,
        clientId: platform.clientId,
        clientSecret: platform.clientSecret,
        scopes: SCOPES,
        timeoutMs: TIMEOUT_MS,
        tokenKey,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await platform?.close();
    restoreStdout?.();
  });

  /** A tenant with one store and one console account signed in. */
  async function fresh(): Promise<{ tenant: Tenant; session: ConsoleSession }> {
    const tenant = await createTenant(t);
    return { tenant, session: await signUp(t, tenant) };
  }

  /** What the stand-in's token endpoint receives from now on. */
  function exchangesFrom(): () => typeof platform.exchanges {
    const start = platform.exchanges.length;
    return () => platform.exchanges.slice(start);
  }

  /** Connect and approve: the callback parameters the platform sends back. */
  async function approved(session: ConsoleSession, storeId: string, shop = SHOP, options?: ApproveOptions): Promise<CallbackParams> {
    const { location } = await startConnect(session, storeId, shop);
    return platform.authorize(location, options);
  }

  async function expectNotConnected(storeId: string): Promise<void> {
    expect(await connections(t, storeId)).toEqual([]);
  }

  it('connects a store: authorize redirect, signed callback, one code exchange, the token sealed and never shown; disconnects', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    const before = await storePage(session, storeId);
    expect(platformSection(before.text).connected).toBe('false');
    // The browser follows the connect form's redirect to the platform only if the page's CSP lets forms go there.
    const formAction = /(?:^|;)\s*form-action ([^;]*)/.exec(String(before.headers['content-security-policy']))?.[1].trim().split(/\s+/);
    expect(formAction).toEqual(expect.arrayContaining(["'self'", platform.origin]));
    expect(platformSection(before.text).markup).toContain(`action="/console/stores/${storeId}/platform/connect"`);

    // Connect: 303 to the platform's authorize page.
    const started = await connect(session, storeId, SHOP);
    expect(started.status).toBe(303);
    const authorize = new URL(started.headers.location as string);
    expect(authorize.origin).toBe(platform.origin);
    expect(authorize.pathname).toBe(`/shops/${SHOP}/admin/oauth/authorize`);
    for (const name of ['client_id', 'scope', 'redirect_uri', 'state']) expect(authorize.searchParams.getAll(name)).toHaveLength(1);
    expect(authorize.searchParams.get('client_id')).toBe(platform.clientId);
    expect(authorize.searchParams.get('scope')).toBe('read_products,read_orders');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/console/platform/callback`);
    const state = authorize.searchParams.get('state') as string;
    expect(state.length).toBeGreaterThanOrEqual(43);

    // The state is pending: stored as its digest, for this shop, for about ten minutes.
    const pending = await pendingStates(t, storeId);
    expect(pending).toHaveLength(1);
    expect(pending[0].state_digest).toBe(sha256(state));
    expect(pending[0].shop).toBe(SHOP);
    const expiresIn = new Date(pending[0].expires_at).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    expect(exchanges()).toHaveLength(0);

    // The merchant approves; the platform redirects back.
    const params = platform.authorize(authorize.toString());
    const done = await callback(session, params);
    expectRedirect(done, `/console/stores/${storeId}`);

    // Exactly one exchange, with the app's credentials and the code just issued.
    expect(exchanges()).toHaveLength(1);
    const [exchange] = exchanges();
    expect(exchange.shop).toBe(SHOP);
    expect(exchange.contentType).toMatch(/^application\/json/);
    expect(exchange.body).toMatchObject({ client_id: platform.clientId, client_secret: platform.clientSecret, code: params.code });
    expect(exchange.status).toBe(200);
    const token = exchange.accessToken as string;
    expect(token).toMatch(/^shpat_/);

    // The state is consumed; the connection holds the sealed token.
    expect(await pendingStates(t, storeId)).toEqual([]);
    const rows = await connections(t, storeId);
    expect(rows).toHaveLength(1);
    expect(rows[0].shop).toBe(SHOP);
    expect(rows[0].scopes).toBe('read_products,read_orders');
    expect(rows[0].sealed.length).toBe(2 + 12 + Buffer.byteLength(token) + 16);
    expect(rows[0].sealed.includes(Buffer.from(token))).toBe(false);
    expect(openSealed(tokenKey, storeId, rows[0].sealed)).toBe(token);
    expect(() => openSealed(tokenKey, tenant.merchantId, rows[0].sealed)).toThrow(); // bound to the store id
    const [account] = (await db(t).query('SELECT id FROM console_accounts WHERE email = $1', [session.email])) as Array<{ id: string }>;
    expect(rows[0].connected_by).toBe(account.id);

    // The store page shows the connection (and, checked by `seen`, not the token).
    const after = await storePage(session, storeId);
    const section = platformSection(after.text);
    expect(section.connected).toBe('true');
    expect(section.markup).toContain(SHOP);
    expect(section.markup).toContain(`action="/console/stores/${storeId}/platform/disconnect"`);

    // Disconnect needs the CSRF token...
    const refused = await seen(session.post(`/console/stores/${storeId}/platform/disconnect`, {}, { csrf: null }));
    expectErrorPage(refused, 403, 'csrf_failed');
    expect(await connections(t, storeId)).toHaveLength(1);

    // ...and with it deletes the connection.
    await storePage(session, storeId);
    const disconnected = await seen(session.post(`/console/stores/${storeId}/platform/disconnect`));
    expectRedirect(disconnected, `/console/stores/${storeId}`);
    await expectNotConnected(storeId);
    const last = await storePage(session, storeId);
    expect(platformSection(last.text).connected).toBe('false');
    expect(platformSection(last.text).markup).not.toContain(SHOP);
  });

  it('sets the store’s platform fields in the API while connected, and clears them on disconnect', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const read = async () => {
      const response = await seen(t.http().get(`/v1/stores/${storeId}`).set(bearer(tenant.admin.secret)));
      expect(response.status).toBe(200);
      return { platform: response.body.platform, platform_shop: response.body.platform_shop };
    };
    expect(await read()).toEqual({ platform: null, platform_shop: null });

    expectRedirect(await callback(session, await approved(session, storeId)), `/console/stores/${storeId}`);
    expect(await read()).toEqual({ platform: 'shopify', platform_shop: SHOP });

    await storePage(session, storeId);
    const disconnected = await seen(session.post(`/console/stores/${storeId}/platform/disconnect`));
    expectRedirect(disconnected, `/console/stores/${storeId}`);
    await expectNotConnected(storeId);
    expect(await read()).toEqual({ platform: null, platform_shop: null });
  });

  it('replaces the connection when the store is connected again', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    expectRedirect(await callback(session, await approved(session, storeId)), `/console/stores/${storeId}`);
    const other = 'other-shop.myshopify.com';
    expectRedirect(await callback(session, await approved(session, storeId, other)), `/console/stores/${storeId}`);

    expect(exchanges().map((exchange) => exchange.shop)).toEqual([SHOP, other]);
    const rows = await connections(t, storeId);
    expect(rows).toHaveLength(1);
    expect(rows[0].shop).toBe(other);
    expect(openSealed(tokenKey, storeId, rows[0].sealed)).toBe(exchanges()[1].accessToken);
    const section = platformSection((await storePage(session, storeId)).text);
    expect(section.connected).toBe('true');
    expect(section.markup).toContain(other);
  });

  it('stores the scopes the platform granted, not the ones asked for', async () => {
    const { tenant, session } = await fresh();
    const params = await approved(session, tenant.storeId);
    platform.grantedScope = 'read_products';
    try {
      expectRedirect(await callback(session, params), `/console/stores/${tenant.storeId}`);
    } finally {
      platform.grantedScope = 'read_products,read_orders';
    }
    expect((await connections(t, tenant.storeId)).map((row) => row.scopes)).toEqual(['read_products']);
  });

  it('includes extra parameters such as host in the signature, and works through the stand-in’s authorize redirect', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;

    // host, signed with the others.
    const withHost = await approved(session, storeId, SHOP, { host: true });
    expect(withHost.host).toBeTruthy();
    expectRedirect(await callback(session, withHost), `/console/stores/${storeId}`);

    // host added after signing: not the signed message any more.
    const { location } = await startConnect(session, storeId);
    const unsigned = platform.authorize(location);
    expectErrorPage(await callback(session, { ...unsigned, host: 'YWRtaW4uZXhhbXBsZQ' }), 400, 'invalid_hmac');

    // The browser path: the stand-in's authorize page redirects to redirect_uri with the signed parameters.
    const { location: again } = await startConnect(session, storeId, 'browser-shop.myshopify.com');
    const approval = await fetch(again, { redirect: 'manual' });
    expect(approval.status).toBe(302);
    const back = new URL(approval.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}${CALLBACK}`);
    expect(back.searchParams.get('host')).toBeTruthy();
    expectRedirect(await callback(session, back.search.slice(1)), `/console/stores/${storeId}`);
    expect((await connections(t, storeId))[0]?.shop).toBe('browser-shop.myshopify.com');
  });

  it('refuses a forged signature before anything else: invalid_hmac, no exchange, nothing stored', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    const { location } = await startConnect(session, storeId);
    const genuine = platform.authorize(location);

    // Signed with another secret.
    const forged = platform.authorize(location, { secret: 'not-the-client-secret' });
    expectErrorPage(await callback(session, forged), 400, 'invalid_hmac');

    // Each parameter changed after signing.
    const other = platform.approve(SHOP, 'x'); // another genuine code, to swap in
    const changed: Array<Partial<CallbackParams>> = [
      { code: other.code },
      { shop: 'other-shop.myshopify.com' },
      { state: `${genuine.state}x` },
      { timestamp: String(Number(genuine.timestamp) - 1) },
      { hmac: genuine.hmac.replace(/^./, (c) => (c === '0' ? '1' : '0')) },
      { hmac: genuine.hmac.slice(0, 32) },
      { hmac: 'not hex at all' },
    ];
    for (const change of changed) {
      const response = await callback(session, { ...genuine, ...change });
      expect({ change, code: errorCode(response.text), status: response.status }).toEqual({ change, code: 'invalid_hmac', status: 400 });
    }
    // Right secret, wrong message: not sorted by name, or with hmac's own (empty) pair in it.
    const unsorted = ['timestamp', 'state', 'shop', 'code'].map((name) => `${name}=${genuine[name]}`).join('&');
    const withHmac = ['code', 'hmac', 'shop', 'state', 'timestamp']
      .map((name) => `${name}=${name === 'hmac' ? '' : genuine[name]}`)
      .join('&');
    for (const message of [unsorted, withHmac]) {
      const hmac = createHmac('sha256', platform.clientSecret).update(message).digest('hex');
      expectErrorPage(await callback(session, { ...genuine, hmac }), 400, 'invalid_hmac');
    }

    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);

    // The genuine answer is what makes a connection (so the refusals above were about the signature).
    expectRedirect(await callback(session, genuine), `/console/stores/${storeId}`);
    expect(exchanges()).toHaveLength(1);
  });

  it('accepts values holding &, = and %, signed with them escaped as the platform documents', async () => {
    const { tenant, session } = await fresh();
    const extra = { note: '50% off & more=yes', 'a=b&c%': 'd', empty: '' };
    const params = await approved(session, tenant.storeId, SHOP, { host: true, extra });
    expectRedirect(await callback(session, params), `/console/stores/${tenant.storeId}`);
  });

  it('refuses a signature moved to other parameters by shifting where one ends: invalid_hmac, no exchange', async () => {
    const { tenant, session } = await fresh();
    const exchanges = exchangesFrom();
    const genuine = await approved(session, tenant.storeId, SHOP, { extra: { a: '1', b: '2' } });
    const { a: _a, b: _b, ...rest } = genuine;
    // Other parameters than the platform signed, which joined without escaping read `a=1&b=2&code=…` all the same.
    const shifted = [
      { ...rest, a: '1&b=2' },
      { ...rest, 'a=1&b': '2' },
    ];
    for (const query of shifted) {
      const response = await callback(session, query);
      expect({ query, status: response.status, code: errorCode(response.text) }).toEqual({ query, status: 400, code: 'invalid_hmac' });
    }
    expect(exchanges()).toEqual([]);
    await expectNotConnected(tenant.storeId);
  });

  it('refuses a callback with a parameter missing or repeated: invalid_request', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();
    const params = await approved(session, storeId);

    for (const name of ['code', 'hmac', 'shop', 'state', 'timestamp'] as const) {
      const { [name]: _dropped, ...rest } = params;
      // Re-signed without it, so that only its absence is wrong (hmac itself cannot be re-signed away).
      const query = name === 'hmac' ? rest : { ...rest, hmac: signCallback(rest, platform.clientSecret) };
      const response = await callback(session, query);
      expect({ missing: name, status: response.status, code: errorCode(response.text) }).toEqual({
        missing: name,
        status: 400,
        code: 'invalid_request',
      });
    }
    // An empty value counts as missing.
    const empty = { ...params, code: '' };
    empty.hmac = signCallback(empty, platform.clientSecret);
    expectErrorPage(await callback(session, empty), 400, 'invalid_request');

    const base = callbackQuery(params);
    for (const name of ['code', 'hmac', 'shop', 'state', 'timestamp'] as const) {
      const response = await callback(session, `${base}&${name}=${encodeURIComponent(params[name])}`);
      expect({ repeated: name, status: response.status, code: errorCode(response.text) }).toEqual({
        repeated: name,
        status: 400,
        code: 'invalid_request',
      });
    }
    // Repeated with another value, and in the array syntax query parsers accept.
    expectErrorPage(await callback(session, `${base}&shop=other-shop.myshopify.com`), 400, 'invalid_request');
    expectErrorPage(await callback(session, `${base.replace(/(^|&)code=/, '$1code[]=')}&code[]=x`), 400, 'invalid_request');

    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);
    // The state was not touched by any of these: the genuine callback still connects.
    expectRedirect(await callback(session, params), `/console/stores/${storeId}`);
  });

  it('uses a state once: a second callback with a fresh code and the same state is invalid_state', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    const first = await approved(session, storeId);
    expectRedirect(await callback(session, first), `/console/stores/${storeId}`);
    const token = exchanges()[0].accessToken;

    const replay = platform.approve(SHOP, first.state); // the platform signs a fresh code for the same state
    expectErrorPage(await callback(session, replay), 400, 'invalid_state');
    // The very same answer again, too.
    expectErrorPage(await callback(session, first), 400, 'invalid_state');

    expect(exchanges()).toHaveLength(1);
    const rows = await connections(t, storeId);
    expect(rows).toHaveLength(1);
    expect(openSealed(tokenKey, storeId, rows[0].sealed)).toBe(token);
  });

  it('refuses a state started in another console session: another browser of the same account, another account, another merchant', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    const sameAccount = await logIn(t, session.email);
    const sameMerchant = await signUp(t, tenant);
    const otherMerchant = await signUp(t, await createTenant(t));

    for (const [who, intruder] of [
      ['same account, other session', sameAccount],
      ['other account of the merchant', sameMerchant],
      ['account of another merchant', otherMerchant],
    ] as const) {
      const params = await approved(session, storeId);
      const response = await callback(intruder, params);
      expect({ who, status: response.status, code: errorCode(response.text) }).toEqual({ who, status: 400, code: 'invalid_state' });
    }
    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);
  });

  it('lets exactly one of two simultaneous callbacks with the same state through', async () => {
    const { tenant, session } = await fresh();
    const exchanges = exchangesFrom();
    const { state } = await startConnect(session, tenant.storeId);
    const answers = await Promise.all([callback(session, platform.approve(SHOP, state)), callback(session, platform.approve(SHOP, state))]);
    const outcomes = answers.map((response) => (response.status === 303 ? 'connected' : errorCode(response.text))).sort();
    expect(outcomes).toEqual(['connected', 'invalid_state']);
    expect(exchanges()).toHaveLength(1);
    expect(await connections(t, tenant.storeId)).toHaveLength(1);
  });

  it('runs the callback checks in the contract’s order', async () => {
    const { tenant, session } = await fresh();
    const exchanges = exchangesFrom();
    const { state } = await startConnect(session, tenant.storeId);
    const stale = nowSeconds() - 600;
    const unknownState = randomBytes(32).toString('base64url');
    const cases: Array<[string, Record<string, string>, string]> = [
      // 1 before 2: a missing code, even with a bad signature.
      ['invalid_request', { shop: 'evil.com', state: unknownState, timestamp: String(stale), hmac: 'bad' }, 'no code'],
      // 2 before 3..6
      ['invalid_hmac', { ...platform.approve('evil.com', unknownState, { timestamp: stale }), hmac: 'bad' }, 'bad hmac'],
      // 3 before 4..6
      ['stale_timestamp', platform.approve('evil.com', unknownState, { timestamp: stale }), 'stale'],
      // 4 before 5
      ['invalid_shop', platform.approve('evil.com', unknownState), 'bad shop'],
      // 5 before 6
      ['shop_mismatch', platform.approve('other-shop.myshopify.com', state), 'other shop'],
    ];
    for (const [expected, params, label] of cases) {
      const response = await callback(session, params);
      expect({ label, code: errorCode(response.text) }).toEqual({ label, code: expected });
    }
    expect(exchanges()).toEqual([]);
    await expectNotConnected(tenant.storeId);
  });

  it('refuses an expired state: invalid_state', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    const params = await approved(session, storeId);
    const [, updated] = (await db(t).query(
      `UPDATE platform_oauth_states SET expires_at = now() - interval '1 second' WHERE store_id = $1`,
      [storeId],
    )) as [unknown, number];
    expect(updated).toBe(1);
    expectErrorPage(await callback(session, params), 400, 'invalid_state');
    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);

    // A state with a little time left still works.
    const live = await approved(session, storeId);
    await db(t).query(`UPDATE platform_oauth_states SET expires_at = now() + interval '20 seconds' WHERE store_id = $1`, [storeId]);
    expectRedirect(await callback(session, live), `/console/stores/${storeId}`);
  });

  it('refuses an unknown state: invalid_state', async () => {
    const { tenant, session } = await fresh();
    const exchanges = exchangesFrom();
    await approved(session, tenant.storeId);
    const made = platform.approve(SHOP, randomBytes(32).toString('base64url'));
    expectErrorPage(await callback(session, made), 400, 'invalid_state');
    expect(exchanges()).toEqual([]);
    await expectNotConnected(tenant.storeId);
  });

  it('refuses a shop that is not a platform shop domain at connect: 422, nothing pending', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    for (const shop of [
      'evil.com',
      'demo-shop.myshopify.com.evil.com',
      'Demo.myshopify.com',
      '-x.myshopify.com',
      'a.myshopify.com/x',
      'a.myshopify.com@evil.com',
      'myshopify.com',
      '.myshopify.com',
      'a_b.myshopify.com',
      '',
    ]) {
      const response = await connect(session, storeId, shop);
      expect({ shop, status: response.status, location: response.headers.location }).toEqual({ shop, status: 422, location: undefined });
      expect(Object.keys(fieldErrors(response.text))).toEqual(['shop']);
      expect(await pendingStates(t, storeId)).toEqual([]);
    }
    // The pattern admits what it should.
    for (const shop of ['a.myshopify.com', '0-shop-9.myshopify.com']) {
      const response = await connect(session, storeId, shop);
      expect({ shop, status: response.status }).toEqual({ shop, status: 303 });
    }
  });

  it('refuses a callback shop that is not a platform shop domain: invalid_shop, no exchange', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();
    const { state } = await startConnect(session, storeId);
    for (const shop of [
      'evil.com',
      'demo-shop.myshopify.com.evil.com',
      'Demo-shop.myshopify.com',
      '127.0.0.1:1',
      'demo-shop.myshopify.com/x',
    ]) {
      const response = await callback(session, platform.approve(shop, state));
      expect({ shop, status: response.status, code: errorCode(response.text) }).toEqual({ shop, status: 400, code: 'invalid_shop' });
    }
    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);
  });

  it('refuses a callback for another shop than the one connect started for: shop_mismatch, state consumed', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();
    const { state } = await startConnect(session, storeId);
    const other = platform.approve('other-shop.myshopify.com', state); // signed correctly
    expectErrorPage(await callback(session, other), 400, 'shop_mismatch');
    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);
    expect(await pendingStates(t, storeId)).toEqual([]);
    // And the state is gone for the right shop too.
    expectErrorPage(await callback(session, platform.approve(SHOP, state)), 400, 'invalid_state');
    expect(exchanges()).toEqual([]);
  });

  it('accepts a timestamp within 90 seconds either way and refuses one outside: stale_timestamp', async () => {
    const { tenant, session } = await fresh();
    const { storeId } = tenant;
    const exchanges = exchangesFrom();

    // Ten seconds of margin either side of 90: a loaded machine may take a second or two between signing and checking.
    for (const offset of [-100, 100, -3600, 10 ** 9]) {
      const params = await approved(session, storeId, SHOP, { timestamp: nowSeconds() + offset });
      const response = await callback(session, params);
      expect({ offset, status: response.status, code: errorCode(response.text) }).toEqual({ offset, status: 400, code: 'stale_timestamp' });
    }
    const milliseconds = await approved(session, storeId, SHOP, { timestamp: Date.now() });
    expectErrorPage(await callback(session, milliseconds), 400, 'stale_timestamp');
    expect(exchanges()).toEqual([]);
    await expectNotConnected(storeId);

    for (const offset of [-80, 80]) {
      const params = await approved(session, storeId, SHOP, { timestamp: nowSeconds() + offset });
      const response = await callback(session, params);
      const location = response.headers.location as string | undefined;
      expect({ offset, status: response.status, path: location && new URL(location, PUBLIC_URL).pathname }).toEqual({
        offset,
        status: 303,
        path: `/console/stores/${storeId}`,
      });
    }
    expect(exchanges()).toHaveLength(2);
  });

  describe('when the code exchange fails: 502 token_exchange_failed, nothing stored', () => {
    const cases = [
      ['the token endpoint answers 500', 'error500'],
      ['the answer is not JSON', 'invalid-json'],
      ['the answer has no access_token', 'missing-access-token'],
      ['the answer has an empty access_token', 'empty-access-token'],
      ['the answer has no scope', 'missing-scope'],
      ['the connection is dropped', 'drop'],
    ] as const;
    for (const [title, behaviour] of cases) {
      it(title, async () => {
        const { tenant, session } = await fresh();
        const exchanges = exchangesFrom();
        const params = await approved(session, tenant.storeId);
        platform.tokenBehaviour = behaviour;
        try {
          expectErrorPage(await callback(session, params), 502, 'token_exchange_failed');
        } finally {
          platform.tokenBehaviour = 'ok';
        }
        expect(exchanges()).toHaveLength(1);
        await expectNotConnected(tenant.storeId);
        expect(await pendingStates(t, tenant.storeId)).toEqual([]);
        // A fresh attempt connects.
        expectRedirect(await callback(session, await approved(session, tenant.storeId)), `/console/stores/${tenant.storeId}`);
      });
    }

    it('the platform refuses the code (400)', async () => {
      const { tenant, session } = await fresh();
      const exchanges = exchangesFrom();
      const { state } = await startConnect(session, tenant.storeId);
      const unknownCode = { code: randomBytes(16).toString('hex'), shop: SHOP, state, timestamp: String(nowSeconds()) };
      expectErrorPage(
        await callback(session, { ...unknownCode, hmac: signCallback(unknownCode, platform.clientSecret) }),
        502,
        'token_exchange_failed',
      );
      expect(exchanges().map((exchange) => exchange.status)).toEqual([400]);
      await expectNotConnected(tenant.storeId);
    });

    it.each([
      ['the token endpoint', 'hang'],
      ['the body of the answer', 'hang-body'],
    ] as const)('%s hangs past the timeout: the page comes back in time', async (_, behaviour) => {
      const { tenant, session } = await fresh();
      const exchanges = exchangesFrom();
      const params = await approved(session, tenant.storeId);
      platform.tokenBehaviour = behaviour;
      const started = Date.now();
      let response: Response;
      try {
        response = await callback(session, params);
      } finally {
        platform.tokenBehaviour = 'ok';
      }
      const elapsed = Date.now() - started;
      expectErrorPage(response, 502, 'token_exchange_failed');
      expect(elapsed).toBeLessThan(3000);
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(exchanges()).toHaveLength(1);
      await expectNotConnected(tenant.storeId);
    });
  });

  it('sends a callback without a console session to the login page, exchanging nothing', async () => {
    const { tenant, session } = await fresh();
    const exchanges = exchangesFrom();
    const params = await approved(session, tenant.storeId);
    const response = await callback(t, params);
    expectRedirect(response, '/console/login');
    expect(exchanges()).toEqual([]);
    await expectNotConnected(tenant.storeId);
  });

  it('connect needs a session, the CSRF token and a store of the merchant', async () => {
    const { tenant, session } = await fresh();
    const other = await createTenant(t);

    // No session: to the login page.
    const anonymous = await seen(t.http().post(`/console/stores/${tenant.storeId}/platform/connect`).type('form').send({ shop: SHOP }));
    expectRedirect(anonymous, '/console/login');

    // No CSRF token: refused.
    await storePage(session, tenant.storeId);
    const noCsrf = await seen(session.post(`/console/stores/${tenant.storeId}/platform/connect`, { shop: SHOP }, { csrf: null }));
    expectErrorPage(noCsrf, 403, 'csrf_failed');
    expect(await pendingStates(t, tenant.storeId)).toEqual([]);

    // Another merchant's store is not found, for connect and for disconnect.
    await storePage(session, tenant.storeId); // this session's CSRF token, from its own store
    expectErrorPage(await connect(session, other.storeId, SHOP, false), 404, 'not_found');
    expect(await pendingStates(t, other.storeId)).toEqual([]);

    const otherSession = await signUp(t, other);
    expectRedirect(await callback(otherSession, await approved(otherSession, other.storeId)), `/console/stores/${other.storeId}`);
    await storePage(session, tenant.storeId);
    const disconnect = await seen(session.post(`/console/stores/${other.storeId}/platform/disconnect`));
    expectErrorPage(disconnect, 404, 'not_found');
    expect(await connections(t, other.storeId)).toHaveLength(1);
  });

  it('never wrote the client secret, an access token or the token key to the log', async () => {
    expect(platform.tokens.length).toBeGreaterThan(0);
    expect(checkedResponses).toBeGreaterThan(0);
    const log = captured.join('');
    expect(log).toContain('"req"'); // request lines were captured at all
    expect(forbidden().filter((secret) => log.includes(secret))).toEqual([]);
  });
});

describe('console: platform connection not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ publicUrl: PUBLIC_URL, platform: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('offers no connect form, and answers connect and callback with 409 platform_not_configured', async () => {
    const tenant = await createTenant(t);
    const session = await signUp(t, tenant);
    const page = await storePage(session, tenant.storeId);
    const section = platformSection(page.text);
    expect(section.connected).toBe('false');
    expect(section.markup).not.toContain('/platform/connect');

    expectErrorPage(await connect(session, tenant.storeId, SHOP, false), 409, 'platform_not_configured');
    const params = { code: 'abc', shop: SHOP, state: randomBytes(32).toString('base64url'), timestamp: String(nowSeconds()) };
    expectErrorPage(await callback(session, { ...params, hmac: signCallback(params, 'any') }), 409, 'platform_not_configured');
    expect(await connections(t, tenant.storeId)).toEqual([]);
  });
});

describe('console: platform down', () => {
  let t: TestApp;
  let platform: StandinPlatform;
  let port: number;
  const tokenKey = randomBytes(32);
  tokenKeys.push(tokenKey);

  beforeAll(async () => {
    platform = await startPlatform(); // only to sign the callback; the service is pointed at a closed port
    platforms.push(platform);
    port = await closedPort();
    t = await startApp({
      publicUrl: PUBLIC_URL,
      platform: {
        baseUrl: `http://127.0.0.1:${port}/shops/{shop}`,
        clientId: platform.clientId,
        clientSecret: platform.clientSecret,
        scopes: SCOPES,
        timeoutMs: TIMEOUT_MS,
        tokenKey,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await platform?.close();
  });

  it('answers 502 token_exchange_failed when the token endpoint cannot be reached, storing nothing', async () => {
    const tenant = await createTenant(t);
    const session = await signUp(t, tenant);
    const { location, state } = await startConnect(session, tenant.storeId);
    expect(new URL(location).origin).toBe(`http://127.0.0.1:${port}`);
    const started = Date.now();
    expectErrorPage(await callback(session, platform.approve(SHOP, state)), 502, 'token_exchange_failed');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await connections(t, tenant.storeId)).toEqual([]);
    expect(await pendingStates(t, tenant.storeId)).toEqual([]);
  });
});

describe('console: platform secrets, over the whole file', () => {
  it('showed no client secret, access token or token key in any answer a console client received', () => {
    expect(transcript.length).toBeGreaterThan(0);
    expect(platforms.flatMap((platform) => platform.tokens).length).toBeGreaterThan(0);
    const secrets = forbidden();
    const leaks = transcript
      .map((answer) => ({
        request: `${answer.method} ${answer.path.split('?')[0]}`,
        leaked: secrets.filter((secret) =>
          [answer.text, ...Object.values(answer.headers).map(String)].some((part) => part.includes(secret)),
        ),
      }))
      .filter((answer) => answer.leaked.length > 0);
    expect(leaks).toEqual([]);
  });
});
