import { describe, expect, it } from '@jest/globals';
import { createHash, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { generateSecret, MERCHANT_KEY_PREFIX } from '../../src/auth/key-secret.js';
import { FIRST_EMAIL_DELAY_SECONDS } from '../../src/auth/login-throttle.js';
import type { PlatformConfig } from '../../src/config/app.config.js';
import { bearer, OPERATOR_KEY, type TestApp, useApp } from '../support/app.js';
import {
  ConsoleClient,
  csrfFrom,
  errorCode,
  expectSeeOther,
  fieldErrors,
  find,
  findAll,
  type Form,
  formError,
  keyRows,
  logIn,
  newSecret,
  PASSWORD,
  SECRET_IN_TEXT,
  setCookies,
  signUp,
  storeIds,
  transcript,
  uniqueEmail,
} from '../support/console-client.js';
import { createStore, createTenant, expectProblem, issueKey, type Tenant } from '../support/fixtures.js';
import {
  DAY,
  HOUR,
  iso,
  kept,
  type MetricsBody,
  type DailyBody,
  metricsRaw,
  newMetricsShop,
  placeSession,
  purchase,
  sendEvents,
  sizeExchange,
  sizeReturn,
  utcDay,
} from '../support/metrics-fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8): accounts, sessions, CSRF, login throttling,
 * store keys and the metrics page, driven like a browser through test/support/console-client.ts. The platform
 * connection has its own file (test/console/console-platform.e2e-spec.ts).
 */

const SECRET = /^sfk_[0-9A-Za-z]{46}$/;
const SHOP = 'demo-shop.myshopify.com';

/** A configured platform, so that connect/disconnect have something to refuse or do (no request ever reaches it). */
const PLATFORM: PlatformConfig = {
  baseUrl: 'http://127.0.0.1:9/shops/{shop}',
  clientId: 'console-test-client',
  clientSecret: randomBytes(16).toString('hex'),
  scopes: ['read_products'],
  timeoutMs: 500,
  tokenKey: randomBytes(32),
};

/** The seven rates and the counts each divides (docs/decisions/004-events-and-metrics.md). */
const RATE_PARTS = {
  quiz_completion: ['recommended_sessions', 'started_sessions'],
  recommendation_acceptance: ['accepted_sessions', 'recommended_sessions'],
  recommendation_override: ['overridden_sessions', 'recommended_sessions'],
  fit_assisted_conversion: ['converted_sessions', 'recommended_sessions'],
  size_related_return: ['size_returned_lines', 'purchased_lines'],
  kept_after_recommendation: ['kept_lines', 'purchased_lines'],
  exchange_for_size: ['size_exchanged_lines', 'purchased_lines'],
} as const;

// ———————————————————————————————————————— helpers ————————————————————————————————————————

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const db = (t: TestApp) => t.app.get(DataSource);
/** The UTC date (YYYY-MM-DD) of an instant. */
const dateOf = (ms: number) => iso(ms).slice(0, 10);
const today = () => dateOf(Date.now());
const addDays = (date: string, days: number) => dateOf(Date.parse(`${date}T00:00:00Z`) + days * DAY);

/** An HTML page with this status, never cached; the failure shows the page's error code and field errors. */
function expectPage(response: Response, status: number): void {
  expect({ status: response.status, code: errorCode(response.text), fields: fieldErrors(response.text) }).toEqual(
    expect.objectContaining({ status }),
  );
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.headers['cache-control']).toMatch(/\bno-store\b/);
}

/** An error page: `<main data-error-code>` with this code and status. */
function expectErrorPage(response: Response, status: number, code: string): void {
  expect({ status: response.status, code: errorCode(response.text) }).toEqual({ status, code });
  expectPage(response, status);
}

/** A 422 form page whose field errors name exactly these fields. */
function expectFieldErrors(response: Response, fields: string[]): void {
  expect({ status: response.status, fields: Object.keys(fieldErrors(response.text)).sort() }).toEqual({
    status: 422,
    fields: [...fields].sort(),
  });
  expectPage(response, 422);
}

/** Nothing the client was answered — bodies, Location or any other header — contains one of these strings. */
function expectNeverShown(client: ConsoleClient, ...secrets: string[]): void {
  expect(client.seen.length).toBeGreaterThan(0);
  const leaks = client.seen.flatMap((seen) => {
    const visible = [seen.text, ...Object.values(seen.headers).map(String)].join('\n');
    return secrets.filter((secret) => visible.includes(secret)).map((secret) => `${seen.method} ${seen.path} shows ${secret.slice(0, 8)}…`);
  });
  expect(leaks).toEqual([]);
}

async function accountRows(t: TestApp, where: { merchantId?: string; email?: string }): Promise<Record<string, unknown>[]> {
  if (where.email !== undefined) return db(t).query('SELECT * FROM console_accounts WHERE email = $1', [where.email]);
  return db(t).query('SELECT * FROM console_accounts WHERE merchant_id = $1', [where.merchantId]);
}

interface SessionRow {
  id: string;
  account_id: string;
  token_digest: string;
  created_at: Date;
  refreshed_at: Date;
  expires_at: Date;
}

/** The console_sessions row of the client's session cookie, if there is one. */
async function sessionOf(t: TestApp, client: ConsoleClient): Promise<SessionRow | undefined> {
  const token = client.cookie('sf_console');
  if (token === undefined) return undefined;
  const rows: SessionRow[] = await db(t).query('SELECT * FROM console_sessions WHERE token_digest = $1', [sha256(token)]);
  return rows[0];
}

async function sessionsOfEmail(t: TestApp, email: string): Promise<number> {
  const rows: { n: string | number }[] = await db(t).query(
    'SELECT count(*) AS n FROM console_sessions s JOIN console_accounts a ON a.id = s.account_id WHERE a.email = $1',
    [email],
  );
  return Number(rows[0].n);
}

interface KeyRecord {
  id: string;
  name: string;
  store_id: string | null;
  scopes: string[];
  prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Every key of the merchant, through the API. */
async function keysOf(t: TestApp, tenant: Tenant): Promise<KeyRecord[]> {
  const response = await t.http().get('/v1/api-keys?limit=100').set(bearer(tenant.admin.secret));
  expect(response.status).toBe(200);
  expect(response.body.has_more).toBe(false);
  return response.body.data as KeyRecord[];
}

const keyIds = async (t: TestApp, tenant: Tenant) => (await keysOf(t, tenant)).map((key) => key.id).sort();

/** A key's answer on a route its scopes allow (fit: the store's sessions). */
const listSessions = (t: TestApp, storeId: string, secret: string) => t.http().get(`/v1/stores/${storeId}/sessions`).set(bearer(secret));

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });

  // ——— sign-up ———

  describe('sign-up', () => {
    it('creates an account of the merchant, sets an HttpOnly SameSite=Lax session cookie on /console and redirects to /console', async () => {
      const tenant = await createTenant(t);
      const secondStore = await createStore(t, tenant.admin.secret);
      const other = await createTenant(t);
      const email = uniqueEmail();
      const client = new ConsoleClient(t);

      const form = await client.get('/console/signup');
      expectPage(form, 200);
      expect(findAll(form.text, 'form', { action: '/console/signup' })).toHaveLength(1);
      const response = await client.submitSignUp({ admin_key: tenant.admin.secret, email, password: PASSWORD });

      expectSeeOther(response, '/console');
      expect(response.headers['cache-control']).toMatch(/\bno-store\b/);
      const [cookie] = setCookies(response, 'sf_console');
      expect(cookie).toBeDefined();
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43,}$/); // 256 random bits at least
      expect(cookie.attributes).toEqual(expect.objectContaining({ httponly: '', path: '/console' }));
      expect(cookie.attributes.samesite?.toLowerCase()).toBe('lax');
      expect('secure' in cookie.attributes).toBe(false); // PUBLIC_URL is http here

      const stores = await client.get('/console');
      expectPage(stores, 200);
      expect(find(stores.text, 'span', { id: 'account-email' }).text).toBe(email);
      expect(storeIds(stores.text).sort()).toEqual([tenant.storeId, secondStore].sort());
      expect(stores.text).not.toContain(other.storeId);
      const link = find(stores.text, 'a', { 'data-store-id': tenant.storeId });
      expect(link.attrs.href).toBe(`/console/stores/${tenant.storeId}`);

      const [account] = await accountRows(t, { email });
      expect(account).toMatchObject({ merchant_id: tenant.merchantId, email });
    });

    it('stores the email trimmed and lower-cased and only a scrypt hash: neither the password nor the key is kept or shown', async () => {
      const tenant = await createTenant(t);
      const email = uniqueEmail('Mixed.Case');
      const password = `pw ${randomBytes(12).toString('hex')} äé`;
      const client = new ConsoleClient(t);

      const response = await client.submitSignUp({ admin_key: tenant.admin.secret, email: `  ${email.toUpperCase()} `, password });
      expectSeeOther(response, '/console');
      await client.page('/console');

      const rows = await accountRows(t, { merchantId: tenant.merchantId });
      expect(rows).toHaveLength(1);
      const row = rows[0] as { email: string; password_hash: string };
      expect(row.email).toBe(email.toLowerCase());
      const stored = JSON.stringify(rows);
      for (const secret of [password, tenant.admin.secret, tenant.admin.secret.slice(0, 8)]) expect(stored).not.toContain(secret);
      // the key is referred to by its id, the way every key is named in the API, never by its secret
      expect(rows[0].api_key_id).toBe(tenant.admin.id);

      // scrypt$N$r$p$salt$hash with N = 2^14, r = 8, p = 5, and the hash is scrypt of the password under that salt
      const parts = row.password_hash.split('$');
      expect(parts.slice(0, 4)).toEqual(['scrypt', '16384', '8', '5']);
      expect(parts).toHaveLength(6);
      const decode = (text: string) =>
        /^[0-9a-f]+$/.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
      const [salt, hash] = [decode(parts[4]), decode(parts[5])];
      expect(salt.length).toBeGreaterThanOrEqual(16);
      expect(hash.length).toBeGreaterThanOrEqual(32);
      const derived = scryptSync(password.normalize('NFC'), salt, hash.length, { N: 16384, r: 8, p: 5, maxmem: 64 * 1024 * 1024 });
      expect(derived.equals(hash)).toBe(true);

      expectNeverShown(client, password, tenant.admin.secret);
      // the account answers to the email in any case
      await logIn(t, { email: email.toUpperCase(), password });
    });

    it('refuses every key that is not an active, unrestricted admin key with one and the same answer on admin_key, storing nothing', async () => {
      const tenant = await createTenant(t);
      const revoked = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      expect((await t.http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      const expired = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      await db(t).query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
      const storeAdmin = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const allScopesOfStore = await issueKey(t, tenant.admin.secret, {
        scopes: ['admin', 'catalog', 'fit', 'events', 'analytics'],
        store_id: tenant.storeId,
      });
      const events = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const refused: Array<[string, string]> = [
        ['an unknown key', generateSecret(MERCHANT_KEY_PREFIX)],
        ['a revoked admin key', revoked.secret],
        ['an expired admin key', expired.secret],
        ['a store-bound admin key', storeAdmin.secret],
        ['a store-bound key with every scope', allScopesOfStore.secret],
        ['a key without the admin scope', events.secret],
        ['the operator key', OPERATOR_KEY],
        ['garbage', 'not a key at all'],
        ['nothing', ''],
      ];
      const email = uniqueEmail();
      const client = new ConsoleClient(t);
      await client.page('/console/signup');

      const answers: string[] = [];
      for (const [label, key] of refused) {
        const response = await client.post('/console/signup', { admin_key: key, email, password: PASSWORD });
        expect({ label, status: response.status, fields: fieldErrors(response.text) }).toEqual({
          label,
          status: 422,
          fields: { admin_key: expect.any(String) },
        });
        expectPage(response, 422);
        expect(setCookies(response, 'sf_console')).toEqual([]);
        answers.push(response.text);
      }
      // byte for byte the same page, whatever was wrong with the key
      for (const [k, answer] of answers.entries())
        expect({ label: refused[k][0], answer }).toEqual({ label: refused[k][0], answer: answers[0] });
      expect(fieldErrors(answers[0]).admin_key.length).toBeGreaterThan(0);

      expect(await accountRows(t, { merchantId: tenant.merchantId })).toEqual([]);
      expect(await accountRows(t, { email })).toEqual([]);
      expectNeverShown(client, ...refused.map(([, key]) => key).filter((key) => key.startsWith('sf')), PASSWORD);
      // the refused keys were only read: the merchant's unrestricted admin key still signs up
      const ok = await client.post('/console/signup', { admin_key: tenant.admin.secret, email, password: PASSWORD });
      expectSeeOther(ok, '/console');
    });

    it('ends the account with the key that granted it: revoked, its session and its password no longer work', async () => {
      const tenant = await createTenant(t);
      const signUpKey = await issueKey(t, tenant.admin.secret, { name: 'for the console', scopes: ['admin'] });
      const account = await signUp(t, signUpKey.secret);
      expectPage(await account.get('/console'), 200);
      expect((await t.http().delete(`/v1/api-keys/${signUpKey.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);

      expectSeeOther(await account.get('/console'), '/console/login');
      expectPage(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }), 401);
      expect(await accountRows(t, { merchantId: tenant.merchantId })).toEqual([]);
    });

    it('refuses an email that already has an account in the same merchant, in any case, with 422 on email', async () => {
      const first = await createTenant(t);
      const email = uniqueEmail();
      await signUp(t, first, { email });

      for (const typed of [email, email.toUpperCase(), ` ${email.replace(/^./, (c) => c.toUpperCase())} `]) {
        const client = new ConsoleClient(t);
        const response = await client.submitSignUp({ admin_key: first.admin.secret, email: typed, password: `${PASSWORD} 2` });
        expectFieldErrors(response, ['email']);
        expect(setCookies(response, 'sf_console')).toEqual([]);
      }
      expect(await accountRows(t, { email })).toHaveLength(1);
    });

    it("never tells one merchant about another's people: the same email signs up separately in each", async () => {
      const first = await createTenant(t);
      const second = await createTenant(t);
      const email = uniqueEmail();
      await signUp(t, first, { email });
      await signUp(t, second, { email: ` ${email.toUpperCase()} `, password: `${PASSWORD} 2` });

      expect(await accountRows(t, { email })).toHaveLength(2);
      // each password opens its own merchant's console
      const one = await logIn(t, { email, password: PASSWORD });
      expect(storeIds((await one.page('/console')).text)).toEqual([first.storeId]);
      const two = await logIn(t, { email, password: `${PASSWORD} 2` });
      expect(storeIds((await two.page('/console')).text)).toEqual([second.storeId]);
    });

    it.each<[string, { email?: string; password?: string }, string]>([
      ['a password of 11 characters', { password: 'x'.repeat(11) }, 'password'],
      ['a password of 257 characters', { password: 'x'.repeat(257) }, 'password'],
      ['the email as password', { password: 'SAME-AS-EMAIL' }, 'password'],
      ['an email without @', { email: 'not-an-email' }, 'email'],
      ['an email without a domain', { email: 'someone@' }, 'email'],
      ['an email with a space', { email: 'two words@example.test' }, 'email'],
      ['an empty email', { email: '' }, 'email'],
    ])('answers 422 on the field and stores nothing for %s', async (_label, change, field) => {
      const tenant = await createTenant(t);
      const email = change.email ?? uniqueEmail();
      const password = change.password === 'SAME-AS-EMAIL' ? email : (change.password ?? PASSWORD);
      const client = new ConsoleClient(t);

      const response = await client.submitSignUp({ admin_key: tenant.admin.secret, email, password });

      expectFieldErrors(response, [field]);
      expect(setCookies(response, 'sf_console')).toEqual([]);
      expect(await accountRows(t, { merchantId: tenant.merchantId })).toEqual([]);
      expectNeverShown(client, tenant.admin.secret, ...(password.length >= 8 && password !== email ? [password] : []));
    });

    it('accepts passwords of 12 and of 256 characters', async () => {
      const tenant = await createTenant(t);
      for (const password of ['abcdefghijk1', 'p'.repeat(256)]) {
        const client = await signUp(t, tenant, { password });
        expect(await sessionOf(t, client)).toBeDefined();
      }
      expect(await accountRows(t, { merchantId: tenant.merchantId })).toHaveLength(2);
    });
  });

  // ——— login and logout ———

  describe('login and logout', () => {
    it('logs in with the right password: 303 to /console with a fresh session cookie', async () => {
      const tenant = await createTenant(t);
      const account = await signUp(t, tenant);
      const client = new ConsoleClient(t);

      const form = await client.get('/console/login');
      expectPage(form, 200);
      expect(findAll(form.text, 'form', { action: '/console/login' })).toHaveLength(1);
      const response = await client.submitLogIn({ email: account.email, password: PASSWORD });

      expectSeeOther(response, '/console');
      const [cookie] = setCookies(response, 'sf_console');
      expect(cookie.attributes).toEqual(expect.objectContaining({ httponly: '', path: '/console' }));
      expect(cookie.attributes.samesite?.toLowerCase()).toBe('lax');
      expect(cookie.value).not.toBe(account.cookie('sf_console'));
      const home = await client.get('/console');
      expectPage(home, 200);
      expect(find(home.text, 'span', { id: 'account-email' }).text).toBe(account.email);
      expect(storeIds(home.text)).toEqual([tenant.storeId]);
      expect(await sessionsOfEmail(t, account.email)).toBe(2); // the sign-up's browser and this one
      expectNeverShown(client, PASSWORD);
    });

    it('answers a wrong password and an unknown email with the same 401 page', async () => {
      const account = await signUp(t, await createTenant(t));
      const unknown = uniqueEmail();
      const wrong = new ConsoleClient(t);
      const nobody = new ConsoleClient(t);

      const a = await wrong.submitLogIn({ email: account.email, password: `${PASSWORD}!` });
      const b = await nobody.submitLogIn({ email: unknown, password: `${PASSWORD}!` });

      for (const response of [a, b]) {
        expectPage(response, 401);
        expect(setCookies(response, 'sf_console')).toEqual([]);
        expect(formError(response.text)?.code).toBe('invalid_credentials');
        expect(formError(response.text)?.text).toMatch(/email or password is incorrect/i);
      }
      expect(formError(a.text)).toEqual(formError(b.text));
      // the whole page, but for the form's token and the email typed
      const normalised = (response: Response, client: ConsoleClient, email: string) =>
        response.text
          .split(client.csrf as string)
          .join('{csrf}')
          .split(email)
          .join('{email}');
      expect(normalised(a, wrong, account.email)).toEqual(normalised(b, nobody, unknown));
      expect(await sessionsOfEmail(t, account.email)).toBe(1);
    });

    it('logs out: 303 to /console/login, the cookie cleared, the session row deleted, and the old cookie refused', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      const stolen = client.cookie('sf_console') as string;
      const oldCsrf = client.csrf as string;
      const row = await sessionOf(t, client);
      expect(row).toBeDefined();

      const response = await client.logOut();

      expectSeeOther(response, '/console/login');
      const [cleared] = setCookies(response, 'sf_console');
      expect(cleared).toBeDefined();
      expect(cleared.attributes.path).toBe('/console');
      const gone =
        cleared.value === '' || Date.parse(cleared.attributes.expires ?? '') <= Date.now() || Number(cleared.attributes['max-age']) <= 0;
      expect(gone).toBe(true);
      expect(await db(t).query('SELECT id FROM console_sessions WHERE id = $1', [row?.id])).toEqual([]);
      expectSeeOther(await client.get('/console'), '/console/login');

      // the cookie's value, kept by someone else, opens nothing any more
      const thief = new ConsoleClient(t);
      thief.setCookie('sf_console', stolen);
      expectSeeOther(await thief.get('/console'), '/console/login');
      expectSeeOther(await thief.get(`/console/stores/${tenant.storeId}`), '/console/login');
      const before = await keyIds(t, tenant);
      const post = await thief.post(`/console/stores/${tenant.storeId}/keys`, { name: 'stolen', scopes: ['admin'] }, { csrf: oldCsrf });
      expectSeeOther(post, '/console/login');
      expect(await keyIds(t, tenant)).toEqual(before);
    });

    it('ends only the session that logs out: another browser of the same account stays signed in', async () => {
      const tenant = await createTenant(t);
      const first = await signUp(t, tenant);
      const second = await logIn(t, first);

      expectSeeOther(await first.logOut(), '/console/login');

      expectPage(await second.get('/console'), 200);
      expect(await sessionsOfEmail(t, first.email)).toBe(1);
    });
  });

  // ——— CSRF ———

  describe('CSRF', () => {
    interface Attempt {
      /** The browser that posts, having read the page with the form. */
      client: ConsoleClient;
      path: string;
      form: Form;
      /** A valid token of another browser (anonymous or signed in, as the form's own). */
      otherToken: string;
      /** What the POST would change, read from the database or the API. */
      state(): Promise<unknown>;
      /** The status of the POST when it is accepted. */
      accepted: number;
    }

    const signedInAttempt = async (
      path: (tenant: Tenant) => Promise<string> | string,
      form: Form,
      state: (tenant: Tenant) => Promise<unknown>,
      accepted: number,
    ): Promise<Attempt> => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      const other = await logIn(t, client);
      await client.page(`/console/stores/${tenant.storeId}`);
      return { client, path: await path(tenant), form, otherToken: other.csrf as string, state: () => state(tenant), accepted };
    };

    const ATTEMPTS: Array<[string, () => Promise<Attempt>]> = [
      [
        'POST /console/login',
        async () => {
          const account = await signUp(t, await createTenant(t));
          const client = new ConsoleClient(t);
          await client.page('/console/login');
          const other = new ConsoleClient(t);
          await other.page('/console/login');
          return {
            client,
            path: '/console/login',
            form: { email: account.email, password: PASSWORD },
            otherToken: other.csrf as string,
            state: async () => ({ sessions: await sessionsOfEmail(t, account.email), cookie: client.cookie('sf_console') ?? null }),
            accepted: 303,
          };
        },
      ],
      [
        'POST /console/signup',
        async () => {
          const tenant = await createTenant(t);
          const email = uniqueEmail();
          const client = new ConsoleClient(t);
          await client.page('/console/signup');
          const other = new ConsoleClient(t);
          await other.page('/console/signup');
          return {
            client,
            path: '/console/signup',
            form: { admin_key: tenant.admin.secret, email, password: PASSWORD },
            otherToken: other.csrf as string,
            state: async () => (await accountRows(t, { merchantId: tenant.merchantId })).length,
            accepted: 303,
          };
        },
      ],
      [
        'POST /console/logout',
        async () => {
          const client = await signUp(t, await createTenant(t));
          const other = await logIn(t, client);
          return {
            client,
            path: '/console/logout',
            form: {},
            otherToken: other.csrf as string,
            state: async () => (await sessionOf(t, client))?.id ?? null,
            accepted: 303,
          };
        },
      ],
      [
        'POST /console/stores/{id}/keys',
        () =>
          signedInAttempt(
            (tenant) => `/console/stores/${tenant.storeId}/keys`,
            { name: 'Checkout backend', scopes: ['events'] },
            (tenant) => keyIds(t, tenant),
            201,
          ),
      ],
      [
        'POST /console/stores/{id}/keys/{key_id}/revoke',
        () => {
          let keyId = '';
          return signedInAttempt(
            async (tenant) => {
              keyId = (await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId })).id;
              return `/console/stores/${tenant.storeId}/keys/${keyId}/revoke`;
            },
            {},
            async (tenant) => (await keysOf(t, tenant)).find((key) => key.id === keyId)?.revoked_at ?? null,
            303,
          );
        },
      ],
      [
        'POST /console/stores/{id}/platform/connect',
        () =>
          signedInAttempt(
            (tenant) => `/console/stores/${tenant.storeId}/platform/connect`,
            { shop: SHOP },
            async (tenant) => db(t).query('SELECT state_digest FROM platform_oauth_states WHERE store_id = $1', [tenant.storeId]),
            303,
          ),
      ],
      [
        'POST /console/stores/{id}/platform/disconnect',
        () =>
          signedInAttempt(
            async (tenant) => {
              await db(t).query(
                `INSERT INTO platform_connections (store_id, shop, scopes, token_ciphertext) VALUES ($1, $2, 'read_products', decode($3, 'hex'))`,
                [tenant.storeId, SHOP, randomBytes(48).toString('hex')],
              );
              return `/console/stores/${tenant.storeId}/platform/disconnect`;
            },
            {},
            async (tenant) => db(t).query('SELECT shop FROM platform_connections WHERE store_id = $1', [tenant.storeId]),
            303,
          ),
      ],
    ];

    it.each(ATTEMPTS)('%s without _csrf is refused with 403 csrf_failed and changes nothing', async (_route, prepare) => {
      const attempt = await prepare();
      const before = await attempt.state();
      const response = await attempt.client.post(attempt.path, attempt.form, { csrf: null });
      expectErrorPage(response, 403, 'csrf_failed');
      expect(await attempt.state()).toEqual(before);
    });

    it.each(ATTEMPTS)("%s with another browser's token is refused with 403 csrf_failed and changes nothing", async (_route, prepare) => {
      const attempt = await prepare();
      expect(attempt.otherToken).not.toBe(attempt.client.csrf);
      const before = await attempt.state();
      const response = await attempt.client.post(attempt.path, attempt.form, { csrf: attempt.otherToken });
      expectErrorPage(response, 403, 'csrf_failed');
      expect(await attempt.state()).toEqual(before);
    });

    it.each(ATTEMPTS)('%s with a tampered token is refused with 403 csrf_failed and changes nothing', async (_route, prepare) => {
      const attempt = await prepare();
      const token = attempt.client.csrf as string;
      const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      const before = await attempt.state();
      for (const csrf of [tampered, '', `${token}x`]) {
        const response = await attempt.client.post(attempt.path, attempt.form, { csrf });
        expectErrorPage(response, 403, 'csrf_failed');
      }
      expect(await attempt.state()).toEqual(before);
    });

    it.each(ATTEMPTS)(
      '%s marked Sec-Fetch-Site: cross-site is refused with 403 csrf_failed even with the right token',
      async (_route, prepare) => {
        const attempt = await prepare();
        const before = await attempt.state();
        const response = await attempt.client.post(attempt.path, attempt.form, { headers: { 'Sec-Fetch-Site': 'cross-site' } });
        expectErrorPage(response, 403, 'csrf_failed');
        expect(await attempt.state()).toEqual(before);
      },
    );

    it.each(ATTEMPTS)(
      '%s with its page token from the same site is accepted (the refusals above are about the token)',
      async (_route, prepare) => {
        const attempt = await prepare();
        const before = await attempt.state();
        const response = await attempt.client.post(attempt.path, attempt.form, { headers: { 'Sec-Fetch-Site': 'same-origin' } });
        expect({ status: response.status, code: errorCode(response.text), fields: fieldErrors(response.text) }).toEqual({
          status: attempt.accepted,
          code: undefined,
          fields: {},
        });
        expect(await attempt.state()).not.toEqual(before);
      },
    );

    it('refuses a login form sent as JSON with 415 unsupported_media_type, signing nobody in', async () => {
      const account = await signUp(t, await createTenant(t));
      const client = new ConsoleClient(t);
      await client.page('/console/login');
      const body = JSON.stringify({ email: account.email, password: PASSWORD, _csrf: client.csrf });

      const response = await client.send('/console/login', 'application/json', body);

      expectErrorPage(response, 415, 'unsupported_media_type');
      expect(setCookies(response, 'sf_console')).toEqual([]);
      expect(await sessionsOfEmail(t, account.email)).toBe(1);
    });

    it.each([['application/json'], ['text/plain'], ['multipart/form-data; boundary=x']])(
      'refuses an issue-key form sent as %s with 415, issuing nothing',
      async (type) => {
        const tenant = await createTenant(t);
        const client = await signUp(t, tenant);
        const before = await keyIds(t, tenant);
        const body =
          type === 'application/json'
            ? JSON.stringify({ name: 'json', scopes: ['events'], _csrf: client.csrf })
            : type === 'text/plain'
              ? `name=plain&scopes=events&_csrf=${client.csrf}`
              : `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nmultipart\r\n--x\r\nContent-Disposition: form-data; name="scopes"\r\n\r\nevents\r\n--x\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${client.csrf}\r\n--x--\r\n`;

        const response = await client.send(`/console/stores/${tenant.storeId}/keys`, type, body);

        expectErrorPage(response, 415, 'unsupported_media_type');
        expect(await keyIds(t, tenant)).toEqual(before);
      },
    );
  });

  // ——— sessions ———

  describe('sessions', () => {
    it('keeps only the SHA-256 digest of the cookie token, with an idle expiry of 30 minutes', async () => {
      const client = await signUp(t, await createTenant(t));
      const token = client.cookie('sf_console') as string;

      const row = await sessionOf(t, client);

      expect(row).toBeDefined();
      const rows = await db(t).query(
        'SELECT s.* FROM console_sessions s JOIN console_accounts a ON a.id = s.account_id WHERE a.email = $1',
        [client.email],
      );
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(token);
      const idle = new Date(row!.expires_at).getTime() - new Date(row!.refreshed_at).getTime();
      expect(idle).toBeGreaterThan(29 * 60_000);
      expect(idle).toBeLessThanOrEqual(30 * 60_000 + 1000);
    });

    it('sends a browser whose session has expired to /console/login, on every page and form', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      const row = await sessionOf(t, client);
      await db(t).query(`UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [row?.id]);

      const token = client.cookie('sf_console') as string;

      // the browser may drop the cookie on the first redirect: send it again each time
      for (const path of ['/console', `/console/stores/${tenant.storeId}`, `/console/stores/${tenant.storeId}/metrics`]) {
        client.setCookie('sf_console', token);
        expectSeeOther(await client.get(path), '/console/login');
      }
      const before = await keyIds(t, tenant);
      client.setCookie('sf_console', token);
      expectSeeOther(await client.post(`/console/stores/${tenant.storeId}/keys`, { name: 'late', scopes: ['events'] }), '/console/login');
      expect(await keyIds(t, tenant)).toEqual(before);
    });

    it('slides: a request moves the idle expiry forward to 30 minutes from now', async () => {
      const client = await signUp(t, await createTenant(t));
      const row = await sessionOf(t, client);
      // as if the last request was 10 minutes ago
      await db(t).query(
        `UPDATE console_sessions SET refreshed_at = now() - interval '10 minutes', expires_at = now() + interval '20 minutes' WHERE id = $1`,
        [row?.id],
      );
      const [before] = await db(t).query('SELECT expires_at FROM console_sessions WHERE id = $1', [row?.id]);

      expectPage(await client.get('/console'), 200);

      const [after] = await db(t).query(
        `SELECT expires_at, extract(epoch FROM (now() + interval '30 minutes' - expires_at)) AS short_of_30_min FROM console_sessions WHERE id = $1`,
        [row?.id],
      );
      expect(new Date(after.expires_at).getTime()).toBeGreaterThan(new Date(before.expires_at).getTime() + 9 * 60_000);
      expect(Number(after.short_of_30_min)).toBeGreaterThanOrEqual(0);
      expect(Number(after.short_of_30_min)).toBeLessThan(5);
    });

    it('never slides beyond 12 hours after login', async () => {
      const client = await signUp(t, await createTenant(t));
      const row = await sessionOf(t, client);
      // signed in 12 h - 1 min ago, last request 29.5 minutes ago
      await db(t).query(
        `UPDATE console_sessions
            SET created_at = now() - interval '11 hours 59 minutes', refreshed_at = now() - interval '1770 seconds',
                expires_at = now() + interval '30 seconds'
          WHERE id = $1`,
        [row?.id],
      );

      expectPage(await client.get('/console'), 200);

      const [after] = await db(t).query(
        `SELECT extract(epoch FROM (created_at + interval '12 hours' - expires_at)) AS short_of_cap,
                extract(epoch FROM (expires_at - now())) AS left_seconds
           FROM console_sessions WHERE id = $1`,
        [row?.id],
      );
      expect(Number(after.short_of_cap)).toBeGreaterThanOrEqual(0); // not beyond created_at + 12 h
      expect(Number(after.short_of_cap)).toBeLessThan(1); // but slid up to it
      expect(Number(after.left_seconds)).toBeGreaterThan(30);
      expect(Number(after.left_seconds)).toBeLessThanOrEqual(60);

      // once 12 hours have passed, the session is over
      await db(t).query(
        `UPDATE console_sessions SET created_at = created_at - interval '2 minutes', expires_at = expires_at - interval '2 minutes' WHERE id = $1`,
        [row?.id],
      );
      expectSeeOther(await client.get('/console'), '/console/login');
    });
  });

  // ——— keys ———

  describe('store keys', () => {
    const issue = (client: ConsoleClient, storeId: string, form: Form) => client.post(`/console/stores/${storeId}/keys`, form);

    it('issues a key bound to the store: 201 showing its secret once, usable on the routes its scopes allow', async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const client = await signUp(t, tenant);
      const page = await client.page(`/console/stores/${tenant.storeId}`);
      expect(findAll(page.text, 'form', { action: `/console/stores/${tenant.storeId}/keys` })).toHaveLength(1);

      const response = await issue(client, tenant.storeId, { name: 'Checkout backend', scopes: ['fit', 'events'] });

      expectPage(response, 201);
      const secret = newSecret(response.text) as string;
      expect(secret).toMatch(SECRET);
      expect(response.text.match(SECRET_IN_TEXT)).toEqual([secret]);
      const record = (await keysOf(t, tenant)).find((key) => key.prefix === secret.slice(0, 8)) as KeyRecord;
      expect(record).toMatchObject({ name: 'Checkout backend', store_id: tenant.storeId, expires_at: null, revoked_at: null });
      expect([...record.scopes].sort()).toEqual(['events', 'fit']);
      const row = keyRows(response.text).find((r) => r.id === record.id);
      expect(row).toMatchObject({ status: 'active' });

      // the scopes it has, on its store only
      expect((await listSessions(t, tenant.storeId, secret)).status).toBe(200);
      expect((await t.http().get(`/v1/stores/${tenant.storeId}/events`).set(bearer(secret))).status).toBe(200);
      expectProblem(await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(secret)), 403, 'insufficient_scope');
      expectProblem(await t.http().get(`/v1/stores/${tenant.storeId}/metrics`).set(bearer(secret)), 403, 'insufficient_scope');
      expectProblem(await listSessions(t, sibling, secret), 403, 'store_forbidden');
      expectProblem(await t.http().get('/v1/api-keys').set(bearer(secret)), 403, 'insufficient_scope');

      // shown once: the store page lists it by its prefix, without the secret
      const reloaded = await client.page(`/console/stores/${tenant.storeId}`);
      expect(newSecret(reloaded.text)).toBeUndefined();
      expect(reloaded.text).not.toContain(secret);
      expect(reloaded.text.match(SECRET_IN_TEXT)).toBeNull();
      const listed = keyRows(reloaded.text).find((r) => r.id === record.id);
      expect(listed).toMatchObject({ status: 'active', revokeAction: `/console/stores/${tenant.storeId}/keys/${record.id}/revoke` });
      expect(listed?.text).toContain(record.prefix);
      expect(listed?.text).toContain('Checkout backend');
    });

    it('issues a key that expires at 00:00 UTC of the date given', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      const date = addDays(today(), 10);

      const response = await issue(client, tenant.storeId, { name: 'Expiring', scopes: ['analytics'], expires_at: date });

      expectPage(response, 201);
      const secret = newSecret(response.text) as string;
      const record = (await keysOf(t, tenant)).find((key) => key.prefix === secret.slice(0, 8));
      expect(record).toMatchObject({
        name: 'Expiring',
        store_id: tenant.storeId,
        scopes: ['analytics'],
        expires_at: `${date}T00:00:00.000Z`,
      });
      expect((await t.http().get(`/v1/stores/${tenant.storeId}/metrics`).set(bearer(secret))).status).toBe(200);
    });

    const yearAhead = (days: number) => {
      const at = new Date(`${today()}T00:00:00Z`);
      at.setUTCFullYear(at.getUTCFullYear() + 1);
      return addDays(dateOf(at.getTime()), days);
    };

    it.each([
      ['no scope', { name: 'No scope' }, 'scopes'],
      ['an unknown scope', { name: 'Owner', scopes: ['owner'] }, 'scopes'],
      ['an empty name', { name: '', scopes: ['fit'] }, 'name'],
      ['a name of spaces', { name: '   ', scopes: ['fit'] }, 'name'],
      ['a name of 201 characters', { name: 'n'.repeat(201), scopes: ['fit'] }, 'name'],
      ['an expiry yesterday', { name: 'Past', scopes: ['fit'], expires_at: () => addDays(today(), -1) }, 'expires_at'],
      ['an expiry today (00:00 UTC has passed)', { name: 'Today', scopes: ['fit'], expires_at: () => today() }, 'expires_at'],
      ['an expiry more than a year ahead', { name: 'Far', scopes: ['fit'], expires_at: () => yearAhead(2) }, 'expires_at'],
      ['an expiry that is not a date', { name: 'Bad', scopes: ['fit'], expires_at: 'next week' }, 'expires_at'],
      ['an expiry on a day that does not exist', { name: 'Bad', scopes: ['fit'], expires_at: '2031-02-30' }, 'expires_at'],
    ])('answers 422 on the field and issues nothing for %s', async (_label, input, field) => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      const before = await keyIds(t, tenant);
      const { expires_at, ...rest } = input as { expires_at?: string | (() => string) } & Record<string, string | string[]>;
      const form: Form = {
        ...rest,
        ...(expires_at === undefined ? {} : { expires_at: typeof expires_at === 'function' ? expires_at() : expires_at }),
      };

      const response = await issue(client, tenant.storeId, form);

      expectFieldErrors(response, [field]);
      expect(newSecret(response.text)).toBeUndefined();
      expect(response.text.match(SECRET_IN_TEXT)).toBeNull();
      expect(await keyIds(t, tenant)).toEqual(before);
      // the form is shown again for correction
      expect(findAll(response.text, 'form', { action: `/console/stores/${tenant.storeId}/keys` })).toHaveLength(1);
    });

    it('revokes a key: 303 to the store page, the row marked revoked, and the key refused by the API', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { name: 'Old backend', scopes: ['fit'], store_id: tenant.storeId });
      expect((await listSessions(t, tenant.storeId, key.secret)).status).toBe(200);
      const client = await signUp(t, tenant);
      const page = await client.page(`/console/stores/${tenant.storeId}`);
      const row = keyRows(page.text).find((r) => r.id === key.id);
      expect(row).toMatchObject({ status: 'active', revokeAction: `/console/stores/${tenant.storeId}/keys/${key.id}/revoke` });

      const response = await client.post(row?.revokeAction as string);

      expectSeeOther(response, `/console/stores/${tenant.storeId}`);
      const after = await client.page(`/console/stores/${tenant.storeId}`);
      expect(keyRows(after.text).find((r) => r.id === key.id)).toMatchObject({ status: 'revoked', revokeAction: undefined });
      expect((await listSessions(t, tenant.storeId, key.secret)).status).toBe(401);
      expect((await keysOf(t, tenant)).find((k) => k.id === key.id)?.revoked_at).toEqual(expect.any(String));
    });

    it("lists this store's keys only, revoked and expired ones included, never the merchant admin key or another store's", async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const active = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      const revoked = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      expect((await t.http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      const expired = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      await db(t).query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
      const elsewhere = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: sibling });
      const client = await signUp(t, tenant);

      const page = await client.page(`/console/stores/${tenant.storeId}`);

      const rows = keyRows(page.text);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
        [active.id]: 'active',
        [revoked.id]: 'revoked',
        [expired.id]: 'expired',
      });
      expect(page.text).not.toContain(elsewhere.id);
      expect(page.text).not.toContain(tenant.admin.id);
      expect(rows.filter((r) => r.revokeAction !== undefined).map((r) => r.id)).toEqual([active.id]);
    });

    it("answers 404 to revoking, through this store's page, a key of another store of the merchant, and revokes nothing", async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const theirs = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: sibling });
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);

      for (const keyId of [theirs.id, tenant.admin.id, randomUUID(), 'not-a-key']) {
        const response = await client.post(`/console/stores/${tenant.storeId}/keys/${keyId}/revoke`);
        expectErrorPage(response, 404, 'not_found');
      }

      expect((await listSessions(t, sibling, theirs.secret)).status).toBe(200);
      expect((await t.http().get('/v1/merchant').set(bearer(tenant.admin.secret))).status).toBe(200);
      expect((await keysOf(t, tenant)).filter((key) => key.revoked_at !== null)).toEqual([]);
    });

    it("answers 404 for another merchant's store: its page, its key form and its keys, changing nothing", async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const theirStore = (await t.http().get(`/v1/stores/${theirs.storeId}`).set(bearer(theirs.admin.secret))).body.name as string;
      const theirKey = await issueKey(t, theirs.admin.secret, { name: 'Their backend', scopes: ['fit'], store_id: theirs.storeId });
      const client = await signUp(t, mine);
      await client.page(`/console/stores/${mine.storeId}`);
      const before = await keyIds(t, theirs);

      const answers = [
        await client.get(`/console/stores/${theirs.storeId}`),
        await client.post(`/console/stores/${theirs.storeId}/keys`, { name: 'Intruder', scopes: ['admin'] }),
        await client.post(`/console/stores/${theirs.storeId}/keys/${theirKey.id}/revoke`),
        await client.post(`/console/stores/${mine.storeId}/keys/${theirKey.id}/revoke`),
        await client.get(`/console/stores/${randomUUID()}`),
        await client.get('/console/stores/not-a-store'),
      ];

      for (const response of answers) {
        expectErrorPage(response, 404, 'not_found');
        expect(response.text).not.toContain('Their backend');
        expect(response.text).not.toContain(`>${theirStore}<`);
      }
      expect(await keyIds(t, theirs)).toEqual(before);
      expect((await listSessions(t, theirs.storeId, theirKey.secret)).status).toBe(200);
    });
  });

  // ——— metrics ———

  describe('metrics page', () => {
    /** The rows of `#rates`: rate → its data-* values. */
    function ratesOnPage(html: string): Record<string, { value: string; numerator: string; denominator: string }> {
      const table = find(html, 'table', { id: 'rates' });
      return Object.fromEntries(
        findAll(table.inner, 'tr', { 'data-rate': true }).map((tr) => [
          tr.attrs['data-rate'],
          { value: tr.attrs['data-value'], numerator: tr.attrs['data-numerator'], denominator: tr.attrs['data-denominator'] },
        ]),
      );
    }

    /** `#daily` rows: date → the numbers in its cells. */
    function dailyOnPage(html: string): Array<{ date: string; numbers: number[] }> {
      const table = find(html, 'table', { id: 'daily' });
      return findAll(table.inner, 'tr', { 'data-date': true }).map((tr) => ({
        date: tr.attrs['data-date'],
        numbers: findAll(tr.inner, 'td').map((td) => Number(td.text)),
      }));
    }

    /** The page's figures equal the API's for the same range: from 00:00Z through the end of `to`. */
    async function expectSameAsApi(html: string, storeId: string, secret: string, from: string, to: string): Promise<MetricsBody> {
      const query = { from: `${from}T00:00:00Z`, to: `${addDays(to, 1)}T00:00:00Z` };
      const summary = await metricsRaw(t, storeId, secret, query);
      expect(summary.status).toBe(200);
      const api = summary.body as MetricsBody;
      const shown = ratesOnPage(html);
      expect(Object.keys(shown).sort()).toEqual(Object.keys(RATE_PARTS).sort());
      for (const [rate, [numerator, denominator]] of Object.entries(RATE_PARTS)) {
        const value = api.rates[rate as keyof typeof RATE_PARTS];
        expect({ rate, ...shown[rate] }).toEqual({
          rate,
          value: value === null ? '' : expect.any(String),
          numerator: String(api.counts[numerator]),
          denominator: String(api.counts[denominator]),
        });
        if (value !== null) expect(Number(shown[rate].value)).toBe(value);
      }
      const caveats = findAll(find(html, 'ul', { id: 'caveats' }).inner, 'li').map((li) => li.text);
      expect(caveats).toEqual(api.caveats);

      const daily = await metricsRaw(t, storeId, secret, query, true);
      expect(daily.status).toBe(200);
      const days = (daily.body as DailyBody).days;
      const rows = dailyOnPage(html);
      expect(rows.map((row) => row.date)).toEqual(days.map((day) => day.date));
      for (const [k, row] of rows.entries()) {
        const counts = Object.values(days[k].counts);
        expect({ date: row.date, numbers: row.numbers.filter((n) => !counts.includes(n)) }).toEqual({ date: row.date, numbers: [] });
        expect(row.numbers).toContain(days[k].counts.started_sessions);
      }
      return api;
    }

    it('shows the seven rates with their counts, the caveats and one row a day, as the API computes them', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const day0 = utcDay(Date.now()) - 10 * DAY;
      await placeSession(t, shop, day0 + 1 * HOUR, 'started');
      await placeSession(t, shop, day0 + 2 * HOUR, 'recommended');
      const a = await placeSession(t, shop, day0 + 3 * HOUR, 'accepted');
      const b = await placeSession(t, shop, day0 + 4 * HOUR, 'accepted');
      const c = await placeSession(t, shop, day0 + 5 * HOUR, 'overridden');
      const d = await placeSession(t, shop, day0 + DAY + HOUR, 'accepted');
      await placeSession(t, shop, day0 + DAY + 2 * HOUR, 'started');
      await placeSession(t, shop, day0 + 3 * DAY, 'accepted'); // after the range
      await sendEvents(t, shop, [
        purchase(shop, { order: 'A-1', line: '1', session: a.id, at: a.createdAt + HOUR }),
        purchase(shop, { order: 'A-2', line: '1', session: b.id, at: b.createdAt + HOUR }),
        purchase(shop, { order: 'C-1', line: '1', session: c.id, at: c.createdAt + HOUR }),
        purchase(shop, { order: 'D-1', line: '1', session: d.id, at: d.createdAt + HOUR }),
        sizeReturn(shop, { order: 'A-1', line: '1', at: a.createdAt + 2 * DAY }),
        kept(shop, { order: 'A-2', line: '1', at: b.createdAt + 2 * DAY }),
        sizeExchange(shop, { order: 'D-1', line: '1', at: d.createdAt + 2 * DAY }),
      ]);
      const from = dateOf(day0);
      const to = dateOf(day0 + 2 * DAY);

      const response = await client.get(`/console/stores/${shop.storeId}/metrics?from=${from}&to=${to}`);

      expectPage(response, 200);
      const api = await expectSameAsApi(response.text, shop.storeId, shop.secret, from, to);
      // the cohort is the one built above, so the comparison is not between two empty answers
      expect(api.counts).toMatchObject({ started_sessions: 7, recommended_sessions: 5, accepted_sessions: 3, purchased_lines: 4 });
      expect(ratesOnPage(response.text).quiz_completion).toEqual({ value: String(5 / 7), numerator: '5', denominator: '7' });
      expect(dailyOnPage(response.text).map((row) => row.date)).toEqual([from, addDays(from, 1), to]);
      expect(find(response.text, 'div', { id: 'daily-chart' })).toBeDefined();
      const data = find(response.text, 'script', { id: 'daily-data', type: 'application/json' });
      expect(() => JSON.parse(data.inner) as unknown).not.toThrow();
    });

    it('shows the last 30 days through today by default', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      await placeSession(t, shop, Date.now() - 5 * DAY, 'accepted');
      await placeSession(t, shop, utcDay(Date.now()) - 30 * DAY + HOUR, 'accepted'); // the 31st day back: outside
      const first = today();

      const response = await client.get(`/console/stores/${shop.storeId}/metrics`);

      expectPage(response, 200);
      const last = today();
      const dates = dailyOnPage(response.text).map((row) => row.date);
      expect(dates).toHaveLength(30);
      expect([first, last]).toContain(dates[29]);
      expect(dates[0]).toBe(addDays(dates[29], -29));
      for (const [k, date] of dates.entries()) expect(date).toBe(addDays(dates[0], k));
      await expectSameAsApi(response.text, shop.storeId, shop.secret, dates[0], dates[29]);
      expect(ratesOnPage(response.text).quiz_completion.denominator).toBe('1');
    });

    it('accepts a single day and a range of exactly 366 days', async () => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const to = addDays(today(), -1);

      const one = await client.get(`/console/stores/${shop.storeId}/metrics?from=${to}&to=${to}`);
      expectPage(one, 200);
      expect(dailyOnPage(one.text).map((row) => row.date)).toEqual([to]);

      const year = await client.get(`/console/stores/${shop.storeId}/metrics?from=${addDays(to, -365)}&to=${to}`);
      expectPage(year, 200);
      expect(dailyOnPage(year.text)).toHaveLength(366);
    });

    it.each([
      ['from is not a date', () => ({ from: 'last-week', to: today() }), ['from']],
      ['from has a time of day', () => ({ from: '2026-01-01T00:00:00Z', to: today() }), ['from']],
      ['to does not exist', () => ({ from: '2026-02-01', to: '2026-02-30' }), ['to']],
      ['to is not a date', () => ({ from: '2026-02-01', to: '20260210' }), ['to']],
      ['from is after to', () => ({ from: today(), to: addDays(today(), -1) }), ['from', 'to']],
      ['the range spans 367 days', () => ({ from: addDays(today(), -366), to: today() }), ['from', 'to']],
    ])('answers 422 with a field error when %s', async (_label, range, fields) => {
      const shop = await newMetricsShop(t);
      const client = await signUp(t, shop.tenant);
      const { from, to } = range();

      const response = await client.get(
        `/console/stores/${shop.storeId}/metrics?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      );

      expectPage(response, 422);
      const named = Object.keys(fieldErrors(response.text));
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((field) => !fields.includes(field))).toEqual([]);
      expect(findAll(response.text, 'table', { id: 'rates' })).toEqual([]);
    });

    it("answers 404 for the metrics of another merchant's store", async () => {
      const client = await signUp(t, await createTenant(t));
      const theirs = await createTenant(t);

      expectErrorPage(await client.get(`/console/stores/${theirs.storeId}/metrics`), 404, 'not_found');
      expectErrorPage(await client.get(`/console/stores/${randomUUID()}/metrics`), 404, 'not_found');
    });
  });

  // ——— pages without a session, caching, secrets ———

  describe('pages and answers', () => {
    it.each([
      ['/console'],
      ['/console/stores/{store}'],
      ['/console/stores/{store}/metrics'],
      ['/console/stores/{store}/metrics?from=2026-01-01&to=2026-01-31'],
      ['/console/stores/{unknown}'],
    ])('sends an anonymous GET of %s to /console/login', async (template) => {
      const tenant = await createTenant(t);
      const path = template.replace('{store}', tenant.storeId).replace('{unknown}', randomUUID());
      const anonymous = new ConsoleClient(t);
      expectSeeOther(await anonymous.get(path), '/console/login');
      const forged = new ConsoleClient(t);
      forged.setCookie('sf_console', randomBytes(32).toString('base64url'));
      expectSeeOther(await forged.get(path), '/console/login');
    });

    it('sends anonymous form posts to /console/login without doing anything', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      const anonymous = new ConsoleClient(t);
      await anonymous.page('/console/login'); // a valid anonymous token, for what it is worth
      const before = await keysOf(t, tenant);

      for (const [path, form] of [
        [`/console/stores/${tenant.storeId}/keys`, { name: 'anon', scopes: ['admin'] }],
        [`/console/stores/${tenant.storeId}/keys/${key.id}/revoke`, {}],
        [`/console/stores/${tenant.storeId}/platform/connect`, { shop: SHOP }],
        [`/console/stores/${tenant.storeId}/platform/disconnect`, {}],
        ['/console/logout', {}],
      ] as const) {
        expectSeeOther(await anonymous.post(path, form), '/console/login');
      }
      expect(await keysOf(t, tenant)).toEqual(before);
      expect(await db(t).query('SELECT 1 FROM platform_oauth_states WHERE store_id = $1', [tenant.storeId])).toEqual([]);
    });

    it('answers every console page, redirect and error with Cache-Control: no-store', async () => {
      const tenant = await createTenant(t);
      const anonymous = new ConsoleClient(t);
      const answers: Response[] = [
        await anonymous.get('/console/login'),
        await anonymous.get('/console/signup'),
        await anonymous.get('/console'),
        await anonymous.post('/console/login', { email: uniqueEmail(), password: 'wrong password!' }),
        await anonymous.post('/console/signup', { admin_key: tenant.admin.secret, email: 'nope', password: PASSWORD }),
        await anonymous.post('/console/login', {}, { csrf: null }),
      ];
      const client = await signUp(t, tenant);
      answers.push(
        await client.get('/console'),
        await client.get(`/console/stores/${tenant.storeId}`),
        await client.post(`/console/stores/${tenant.storeId}/keys`, { name: 'cached?', scopes: ['fit'] }),
        await client.post(`/console/stores/${tenant.storeId}/keys`, { name: 'cached?' }),
        await client.get(`/console/stores/${tenant.storeId}/metrics`),
        await client.get(`/console/stores/${tenant.storeId}/metrics?from=x`),
        await client.get(`/console/stores/${randomUUID()}`),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 303, 401, 422, 403, 200, 200, 201, 422, 200, 422, 404]);
      for (const [k, answer] of answers.entries()) {
        expect({ answer: k, cache: answer.headers['cache-control'] }).toEqual({ answer: k, cache: expect.stringMatching(/\bno-store\b/) });
      }
    });

    it('allows scripts and styles only from the service, and forms only to the service and the platform', async () => {
      const client = new ConsoleClient(t);
      const page = await client.page('/console/login');
      const policy = String(page.headers['content-security-policy'] ?? '');
      const directives = Object.fromEntries(
        policy
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .filter((d) => d[0])
          .map(([name, ...sources]) => [name, sources]),
      );
      expect(directives['script-src']).toEqual(["'self'"]);
      expect(directives['style-src']).toEqual(["'self'"]);
      expect(directives['form-action']?.[0]).toBe("'self'");
      expect(directives['form-action']?.slice(1)).toEqual(['http://127.0.0.1:9']);
    });

    it('shows what merchants typed — store names, key names, emails — as text, never as markup', async () => {
      const tenant = await createTenant(t);
      const storeName = '<img src=x onerror=alert(1)> & "Co"';
      const storeId = await createStore(t, tenant.admin.secret, storeName);
      const keyName = '"><script>alert(1)</script>';
      const email = `o'brien&co-${randomBytes(4).toString('hex')}@example.test`;
      const client = await signUp(t, tenant, { email });

      const home = await client.page('/console');
      expect(find(home.text, 'a', { 'data-store-id': storeId }).text).toBe(storeName);
      expect(find(home.text, 'span', { id: 'account-email' }).text).toBe(email);
      await client.page(`/console/stores/${storeId}`);
      const created = await client.post(`/console/stores/${storeId}/keys`, { name: keyName, scopes: ['fit'] });
      expectPage(created, 201);
      const row = keyRows(created.text).find((r) => r.status === 'active');
      expect(row?.text).toContain(keyName);

      for (const page of [home.text, created.text]) {
        expect(page).not.toContain('<img src=x');
        expect(page).not.toContain('<script>alert');
        expect(findAll(page, 'script').every((script) => script.attrs.src !== undefined || script.attrs.type === 'application/json')).toBe(
          true,
        );
      }
    });

    it.each([['/console/stores/{store}/keys'], ['/console/logout'], ['/console/no-such-page']])(
      'answers a signed-in GET of %s (a URL that has no page) with an HTML page, not the API’s JSON',
      async (template) => {
        // /console/stores/{id}/keys is in the address bar after issuing a key; pressing Enter there sends a GET
        const tenant = await createTenant(t);
        const client = await signUp(t, tenant);

        const response = await client.get(template.replace('{store}', tenant.storeId));

        expect({ status: response.status, type: response.headers['content-type'] }).toEqual({
          status: response.status === 303 ? 303 : 404,
          type: response.status === 303 ? expect.anything() : expect.stringMatching(/^text\/html/),
        });
        expect(response.headers['cache-control']).toMatch(/\bno-store\b/);
        if (response.status === 404) expect(errorCode(response.text)).toBe('not_found');
        else expect(response.headers.location).toMatch(/^\/console(\/|$)/);
      },
    );

    it('shows a key secret on the creation page and nowhere else', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      const created = await client.post(`/console/stores/${tenant.storeId}/keys`, { name: 'Once', scopes: ['events', 'analytics'] });
      expectPage(created, 201);
      const secret = newSecret(created.text) as string;
      const keyId = keyRows(created.text).find((row) => row.revokeAction !== undefined)?.id as string;

      await client.page('/console');
      await client.page(`/console/stores/${tenant.storeId}`);
      await client.page(`/console/stores/${tenant.storeId}/metrics`);
      await client.post(`/console/stores/${tenant.storeId}/keys`, { name: '', scopes: ['fit'] }); // 422 page
      expectSeeOther(await client.post(`/console/stores/${tenant.storeId}/keys/${keyId}/revoke`), `/console/stores/${tenant.storeId}`);
      await client.page(`/console/stores/${tenant.storeId}`);
      await client.get(`/console/stores/${randomUUID()}`);

      const showing = client.seen.filter((seen) => `${seen.text}${JSON.stringify(seen.headers)}`.includes(secret));
      expect(showing.map((seen) => `${seen.method} ${seen.path} ${seen.status}`)).toEqual([
        `POST /console/stores/${tenant.storeId}/keys 201`,
      ]);
      const anySecret = client.seen.filter((seen) => seen !== showing[0] && SECRET_IN_TEXT.test(seen.text));
      SECRET_IN_TEXT.lastIndex = 0;
      expect(anySecret.map((seen) => `${seen.method} ${seen.path}`)).toEqual([]);
    });

    it('never answered, anywhere in this file, with an sfk_ secret other than on a key-creation page, nor with a cacheable page', async () => {
      // runs last in this block: it audits every answer a ConsoleClient received so far, this test's own included
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      expectPage(await client.post(`/console/stores/${tenant.storeId}/keys`, { name: 'Audit', scopes: ['fit'] }), 201);
      await client.page(`/console/stores/${tenant.storeId}`);

      const creations = transcript.filter((seen) => seen.method === 'POST' && /\/keys$/.test(seen.path) && seen.status === 201);
      expect(creations.length).toBeGreaterThan(0);
      for (const seen of transcript) {
        const secrets = [...new Set(seen.text.match(SECRET_IN_TEXT) ?? [])];
        const where = `${seen.method} ${seen.path} ${seen.status}`;
        expect({ where, secrets: secrets.length }).toEqual({ where, secrets: creations.includes(seen) ? 1 : 0 });
        if (/^text\/html/.test(String(seen.headers['content-type'] ?? '')) || seen.status === 303) {
          expect({ where, cache: seen.headers['cache-control'] }).toEqual({ where, cache: expect.stringMatching(/\bno-store\b/) });
        }
      }
    });
  });
});

// ———————————————————————————————————————— throttling (one app each: the counters live in memory) ————————————————————————————————————————

/** 429 too_many_attempts with a Retry-After of at most the 15-minute window, and no session. */
function expectThrottled(response: Response): void {
  expectErrorPage(response, 429, 'too_many_attempts');
  const retryAfter = response.headers['retry-after'] as string | undefined;
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);
  expect(setCookies(response, 'sf_console')).toEqual([]);
}

const wrongPassword = `${PASSWORD} (wrong)`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('login throttling per email', () => {
  const t = useApp();

  it('makes the attempt after 5 wrong passwords wait, with 429 and Retry-After, even with the right password', async () => {
    const account = await signUp(t, await createTenant(t));
    const neighbour = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    const refused = await browser.submitLogIn({ email: account.email, password: PASSWORD });
    expectThrottled(refused);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(FIRST_EMAIL_DELAY_SECONDS);
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1); // the sign-up's only

    // other emails from the same address are judged on their own
    expectPage(await browser.submitLogIn({ email: uniqueEmail(), password: wrongPassword }), 401);
    await logIn(t, neighbour);
  });

  it('never locks the owner out: once the wait has passed the right password signs in, and each further failure doubles the wait', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);
    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await sleep(FIRST_EMAIL_DELAY_SECONDS * 1000 + 200);

    expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401); // the sixth failure
    const refused = await browser.submitLogIn({ email: account.email, password: PASSWORD });
    expectThrottled(refused);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(FIRST_EMAIL_DELAY_SECONDS);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2 * FIRST_EMAIL_DELAY_SECONDS);
    await sleep(Number(refused.headers['retry-after']) * 1000 + 200);
    await logIn(t, account);
  }, 30_000);

  it('counts failures for an email without an account too', async () => {
    const tenant = await createTenant(t);
    const email = uniqueEmail();
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email, password: PASSWORD }), 401);
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email, password: PASSWORD }));
    // the account created now cannot be logged in to until the wait has passed
    await signUp(t, tenant, { email });
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email, password: PASSWORD }));
  });
});

describe('login throttling per email: the email as stored, and successes', () => {
  const t = useApp();

  it('counts an email typed in other cases or with spaces as the same email', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);
    const variants = [
      account.email.toUpperCase(),
      ` ${account.email}`,
      `${account.email} `,
      account.email.replace(/^./, (c) => c.toUpperCase()),
      account.email,
    ];

    for (const email of variants) expectPage(await browser.submitLogIn({ email, password: wrongPassword }), 401);
    expectThrottled(await browser.submitLogIn({ email: account.email, password: PASSWORD }));
  });

  it("clears the email's count on a successful login", async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 4; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await logIn(t, account);
    for (let i = 0; i < 4; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await logIn(t, account);
  });
});

describe('login throttling per address', () => {
  const t = useApp();

  it('refuses every login from an address with 20 failures in the window, whatever the email, even a right password', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    // 20 failures, each for a different email: no email reaches its own limit
    for (let i = 0; i < 20; i++) expectPage(await browser.submitLogIn({ email: uniqueEmail(`guess${i}`), password: wrongPassword }), 401);

    expectThrottled(await browser.submitLogIn({ email: account.email, password: PASSWORD }));
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: uniqueEmail(), password: wrongPassword }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1);
  });
});

describe('login throttling: sign-ups with a bad key', () => {
  const t = useApp();

  it('counts each bad admin key against the address, up to the same 20', async () => {
    const tenant = await createTenant(t);
    const account = await signUp(t, tenant);
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 19; i++) {
      const response = await browser.submitSignUp({
        admin_key: generateSecret(MERCHANT_KEY_PREFIX),
        email: uniqueEmail(),
        password: PASSWORD,
      });
      expectFieldErrors(response, ['admin_key']);
    }
    // one more failure allowed: a login still goes through
    await logIn(t, account);
    expectFieldErrors(await browser.submitSignUp({ admin_key: 'sfk_guess', email: uniqueEmail(), password: PASSWORD }), ['admin_key']);

    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
  });
});

// ———————————————————————————————————————— https ————————————————————————————————————————

describe('console cookies behind https', () => {
  const t = useApp({ publicUrl: 'https://console.example.test' });

  it('marks the anonymous and the session cookies Secure when PUBLIC_URL is https', async () => {
    const tenant = await createTenant(t);
    const client = new ConsoleClient(t);

    const form = await client.get('/console/signup');
    const [anonymous] = setCookies(form, 'sf_csrf');
    expect(anonymous.attributes).toEqual(expect.objectContaining({ secure: '', httponly: '', path: '/console' }));
    // an https browser sends it back
    client.setCookie('sf_csrf', anonymous.value);
    const response = await client.post(
      '/console/signup',
      { admin_key: tenant.admin.secret, email: uniqueEmail(), password: PASSWORD },
      { csrf: csrfFrom(form.text) },
    );

    expectSeeOther(response, '/console');
    const [session] = setCookies(response, 'sf_console');
    expect(session.attributes).toEqual(expect.objectContaining({ secure: '', httponly: '', path: '/console' }));
    expect(session.attributes.samesite?.toLowerCase()).toBe('lax');
  });
});
