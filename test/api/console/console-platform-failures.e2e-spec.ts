import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { expectErrorPage, expectSeeOther as expectRedirect, find, signUp, textOf, transcript } from '../../support/console-client.js';
import { SHOP } from '../../support/console-fixtures.js';
import { createTenant } from '../../support/fixtures.js';
import {
  callback,
  connect,
  connections,
  forbidden,
  nowSeconds,
  pendingStates,
  platforms,
  platformSection,
  PUBLIC_URL,
  SCOPES,
  startConnect,
  storePage,
  TIMEOUT_MS,
  tokenKeys,
  usePlatformConnection,
} from '../../support/platform-console.js';
import { closedPort, signCallback, standinConfig, type StandinPlatform, startPlatform } from '../../support/platform-standin.js';

/**
 * The console's platform connection (docs/decisions/005-seller-console.md, "Platform connection"): Shopify-style
 * authorization-code OAuth against a stand-in platform on 127.0.0.1 (test/support/platform-standin.ts), driven through
 * test/support/platform-console.ts. This file: a failing code exchange, no platform configured, a platform that is down,
 * and no platform secret in any answer of the file. Connecting and the callback's checks have their own files beside
 * this one (test/api/console/console-platform-*.e2e-spec.ts).
 */

describe('console: platform connection', () => {
  const connection = usePlatformConnection();
  const { fresh, exchangesFrom, approved, expectNotConnected } = connection;
  let platform: StandinPlatform;
  let t: TestApp;
  beforeAll(() => {
    ({ platform, t } = connection);
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

  it('tells the merchant in plain words, not in settings, that connecting is unavailable and whom to ask', async () => {
    const tenant = await createTenant(t);
    const session = await signUp(t, tenant);
    const section = textOf(platformSection((await storePage(session, tenant.storeId)).text).markup);
    const refused = await connect(session, tenant.storeId, SHOP, false);
    const page = textOf(find(refused.text, 'main').inner);
    for (const text of [section, page]) {
      expect(text).toContain('ask whoever runs your Size-Fit service');
      expect(text).not.toMatch(/README|[A-Z]{2,}_[A-Z_]{2,}|configured/);
    }
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
      platform: standinConfig(platform, {
        baseUrl: `http://127.0.0.1:${port}/shops/{shop}`,
        scopes: SCOPES,
        timeoutMs: TIMEOUT_MS,
        tokenKey,
      }),
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
