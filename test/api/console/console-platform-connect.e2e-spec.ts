import { beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, type TestApp } from '../../support/app.js';
import { expectErrorPage, expectSeeOther as expectRedirect, fieldErrors, signUp } from '../../support/console-client.js';
import { db, sha256, SHOP } from '../../support/console-fixtures.js';
import { createTenant } from '../../support/fixtures.js';
import {
  CALLBACK,
  callback,
  checkedResponses,
  connect,
  connections,
  forbidden,
  openSealed,
  pendingStates,
  platformSection,
  PUBLIC_URL,
  seen,
  startConnect,
  storePage,
  usePlatformConnection,
} from '../../support/platform-console.js';
import type { StandinPlatform } from '../../support/platform-standin.js';

/**
 * The console's platform connection (docs/decisions/005-seller-console.md, "Platform connection"): Shopify-style
 * authorization-code OAuth against a stand-in platform on 127.0.0.1 (test/support/platform-standin.ts), driven through
 * test/support/platform-console.ts. This file: connecting and disconnecting a store, the shop domain at connect, who may
 * connect, and nothing secret in the log. The callback's checks and the failures have their own files beside this one
 * (test/api/console/console-platform-*.e2e-spec.ts).
 */

describe('console: platform connection', () => {
  const connection = usePlatformConnection();
  const { tokenKey, captured, fresh, exchangesFrom, approved, expectNotConnected } = connection;
  let platform: StandinPlatform;
  let t: TestApp;
  beforeAll(() => {
    ({ platform, t } = connection);
  });

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
