import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  expectNeverShown,
  expectPage,
  expectSeeOther,
  find,
  findAll,
  formError,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  storeIds,
  uniqueEmail,
} from '../support/console-client.js';
import { db, keyIds, PLATFORM, sessionOf, sessionsOfEmail } from '../support/console-fixtures.js';
import { createTenant } from '../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: login and logout, and the sessions they open and end.
 * Its other parts have files of their own beside this one (test/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/console/console-platform-*.e2e-spec.ts).
 */

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

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
});
