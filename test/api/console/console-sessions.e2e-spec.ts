import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  expectNeverShown,
  expectPage,
  expectSeeOther,
  find,
  findAll,
  formError,
  keyRows,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  storeIds,
  uniqueEmail,
} from '../../support/console-client.js';
import { db, keyIds, PLATFORM, sessionOf, sessionsOfEmail } from '../../support/console-fixtures.js';
import { createTenant, issueKey } from '../../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: login and logout, and the sessions they open and end.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
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

    it('says the session ended and returns to the page after signing in again, for a page and for a form', async () => {
      const tenant = await createTenant(t);
      const account = await signUp(t, tenant);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      const metrics = `/console/stores/${tenant.storeId}/metrics?from=2026-01-01&to=2026-01-31`;
      const storePage = `/console/stores/${tenant.storeId}`;

      for (const [what, go, back] of [
        ['a page', (c: ConsoleClient) => c.get(metrics), metrics],
        // a form returns to the page it was on, never to its POST: signing in does not send it again
        ['a form', (c: ConsoleClient) => c.post(`${storePage}/keys/${key.id}/revoke`), storePage],
        [
          'another form',
          (c: ConsoleClient) => c.post('/console/password', { current_password: 'x', new_password: 'y' }),
          '/console/password',
        ],
      ] as const) {
        // signed out in another browser sharing the session (or expired): this one still sends the old cookie
        const browser = await logIn(t, account);
        const elsewhere = new ConsoleClient(t);
        elsewhere.setCookie('sf_console', browser.cookie('sf_console') as string);
        await elsewhere.page('/console');
        await elsewhere.logOut();

        const sent = await go(browser);
        const location = new URL(sent.headers.location as string, 'http://console.invalid');
        expect({ what, status: sent.status, path: location.pathname, ended: location.searchParams.get('ended') }).toEqual({
          what,
          status: 303,
          path: '/console/login',
          ended: '1',
        });
        expect({ what, back: location.searchParams.get('return') }).toEqual({ what, back });
        const form = await browser.page(`${location.pathname}${location.search}`);
        expect(find(form.text, 'p', { 'data-status': 'signed_out' }).text).toBe('You were signed out; sign in again.');
        expect(find(form.text, 'input', { name: 'return' }).attrs.value).toBe(back);

        const signedIn = await browser.post('/console/login', { email: account.email, password: PASSWORD, return: back });
        expect({ what, status: signedIn.status, location: signedIn.headers.location }).toEqual({ what, status: 303, location: back });
        await browser.page(back);
      }
      expect((await keyRows((await account.page(storePage)).text)).find((row) => row.id === key.id)?.status).toBe('active');
    });

    it('sends a browser that never signed in to the bare sign-in page, and a signed-in one on to the page asked for', async () => {
      const tenant = await createTenant(t);
      const account = await signUp(t, tenant);
      const stranger = new ConsoleClient(t);
      const sent = await stranger.get(`/console/stores/${tenant.storeId}`);
      expect({ status: sent.status, location: sent.headers.location }).toEqual({ status: 303, location: '/console/login' });
      const form = await stranger.page('/console/login');
      expect(findAll(form.text, 'p', { 'data-status': 'signed_out' })).toEqual([]);
      expect(findAll(form.text, 'input', { name: 'return' })).toEqual([]);
      const signedIn = await stranger.post('/console/login', { email: account.email, password: PASSWORD });
      expect(signedIn.headers.location).toBe('/console');
      // already signed in: the login address goes straight to the page asked for, when it is safe
      expect((await stranger.get(`/console/login?return=${encodeURIComponent('/console/access')}`)).headers.location).toBe(
        '/console/access',
      );
      expect((await stranger.get(`/console/login?return=${encodeURIComponent('//evil.example/')}`)).headers.location).toBe('/console');
    });

    it.each(
      [
        ['//evil.example/console/'],
        ['https://evil.example/console/'],
        ['http:/console/stores'],
        ['/\\evil.example/console/'],
        ['/console\\@evil.example'],
        ['/console//evil.example/'],
        ['/console/../v1/stores'],
        ['/console/%2e%2e/v1/stores'],
        ['/console/%2F%2Fevil.example'],
        ['/console/stores/x\r\nSet-Cookie: a=b'],
        ['/consolex'],
        ['/console/login'],
        ['javascript:alert(1)'],
        [' /console/access'],
        [`/console/${'a'.repeat(3000)}`],
      ].map(([unsafe]) => [unsafe.length > 60 ? `${unsafe.slice(0, 20)}… (${unsafe.length} characters)` : JSON.stringify(unsafe), unsafe]),
    )('refuses %s as a place to return to: signing in leads to /console, the form carries no such return', async (_, unsafe) => {
      const account = await signUp(t, await createTenant(t));
      const browser = new ConsoleClient(t);
      const form = await browser.page(`/console/login?ended=1&return=${encodeURIComponent(unsafe)}`);
      expect(findAll(form.text, 'input', { name: 'return' })).toEqual([]);
      const signedIn = await browser.post('/console/login', { email: account.email, password: PASSWORD, return: unsafe });
      expect({ status: signedIn.status, location: signedIn.headers.location }).toEqual({ status: 303, location: '/console' });
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
