import { beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import type { TestApp } from '../../support/app.js';
import {
  errorCode,
  expectErrorPage,
  expectSeeOther as expectRedirect,
  logIn as logInClient,
  signUp,
} from '../../support/console-client.js';
import { db, SHOP } from '../../support/console-fixtures.js';
import { createTenant } from '../../support/fixtures.js';
import {
  callback,
  connections,
  type ConsoleSession,
  nowSeconds,
  openSealed,
  pendingStates,
  PUBLIC_URL,
  startConnect,
  usePlatformConnection,
} from '../../support/platform-console.js';
import { type CallbackParams, callbackQuery, signCallback, type StandinPlatform } from '../../support/platform-standin.js';

/**
 * The console's platform connection (docs/decisions/005-seller-console.md, "Platform connection"): Shopify-style
 * authorization-code OAuth against a stand-in platform on 127.0.0.1 (test/support/platform-standin.ts), driven through
 * test/support/platform-console.ts. This file: the callback's checks (signature, parameters, state, shop, timestamp) and
 * their order. Connecting and the failures have their own files beside this one
 * (test/api/console/console-platform-*.e2e-spec.ts).
 */

/** Another browser of an existing account: its own console session. */
const logIn = async (t: TestApp, email: string): Promise<ConsoleSession> => Object.assign(await logInClient(t, { email }), { email });

describe('console: platform connection', () => {
  const connection = usePlatformConnection();
  const { tokenKey, fresh, exchangesFrom, approved, expectNotConnected } = connection;
  let platform: StandinPlatform;
  let t: TestApp;
  beforeAll(() => {
    ({ platform, t } = connection);
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
});
