import { describe, expect, it } from '@jest/globals';
import { randomBytes, scryptSync } from 'node:crypto';
import { generateSecret, MERCHANT_KEY_PREFIX } from '../../../src/common/crypto/key-secret.js';
import { bearer, OPERATOR_KEY, testConfig, useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  csrfFrom,
  expectFieldErrors,
  expectNeverShown,
  expectPage,
  expectSeeOther,
  fieldErrors,
  find,
  findAll,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  storeIds,
  uniqueEmail,
} from '../../support/console-client.js';
import { accountRows, db, PLATFORM, sessionOf } from '../../support/console-fixtures.js';
import { createStore, createTenant, issueKey } from '../../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: sign-up, and the cookies it sets behind https.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

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

      // scrypt$N$r$p$salt$hash with N = 2^PASSWORD_HASH_COST (14 unless set; the tests' apps take the lowest, 10),
      // r = 8, p = 5, and the hash is scrypt of the password under that salt
      const N = 2 ** testConfig().passwordHashCost;
      const parts = row.password_hash.split('$');
      expect(parts.slice(0, 4)).toEqual(['scrypt', String(N), '8', '5']);
      expect(parts).toHaveLength(6);
      const decode = (text: string) =>
        /^[0-9a-f]+$/.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
      const [salt, hash] = [decode(parts[4]), decode(parts[5])];
      expect(salt.length).toBeGreaterThanOrEqual(16);
      expect(hash.length).toBeGreaterThanOrEqual(32);
      const derived = scryptSync(password.normalize('NFC'), salt, hash.length, { N, r: 8, p: 5, maxmem: 256 * N * 8 });
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
