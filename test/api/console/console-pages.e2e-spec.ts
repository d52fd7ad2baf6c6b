import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  errorCode,
  expectErrorPage,
  expectPage,
  expectSeeOther,
  find,
  findAll,
  keyRows,
  newSecret,
  PASSWORD,
  SECRET_IN_TEXT,
  signUp,
  transcript,
  uniqueEmail,
} from '../../support/console-client.js';
import { db, keysOf, PLATFORM, SHOP } from '../../support/console-fixtures.js';
import { createStore, createTenant, issueKey } from '../../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: pages and answers without a session, caching, the content security policy,
 * escaping, and where a key secret may be shown.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

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

    it('tells a merchant without stores to create one here, with the form open, the API only as a hint for developers', async () => {
      const merchant = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name: 'No stores yet' });
      expect(merchant.status).toBe(201);
      const client = await signUp(t, merchant.body.api_key.secret as string);
      const empty = find((await client.page('/console')).text, 'section', { 'data-empty': 'stores' });
      const [first, ...rest] = findAll(empty.inner, 'p');
      expect(first.text).toMatch(/no stores yet/i);
      expect(first.text).toMatch(/Create your first store below/);
      const page = (await client.page('/console')).text;
      expect(find(page, 'details', { id: 'new-store' }).attrs.open).toBe('');
      expect(findAll(page, 'form', { action: '/console/stores' })).toHaveLength(1);
      expect(first.text).not.toMatch(/POST|\/v1\//);
      expect(rest.map((p) => ({ class: p.attrs.class, api: p.text.includes('POST /v1/stores') }))).toEqual([
        { class: 'muted small', api: true },
      ]);
    });

    it('takes a signed-in browser from /console/login to /console, and shows the form again once it signed out', async () => {
      const client = await signUp(t, await createTenant(t));
      expectSeeOther(await client.get('/console/login'), '/console');
      await client.logOut();
      const form = await client.get('/console/login');
      expectPage(form, 200);
      expect(findAll(form.text, 'form', { action: '/console/login' })).toHaveLength(1);
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

    it.each([['/console/nope'], ['/console/stores/{store}/nope'], ['/console/stores/{unknown}']])(
      'keeps the signed-in header on the not-found page of %s, titled "Page not found"',
      async (template) => {
        const tenant = await createTenant(t);
        const client = await signUp(t, tenant);
        const path = template.replace('{store}', tenant.storeId).replace('{unknown}', randomUUID());

        const missing = await client.get(path);
        expectErrorPage(missing, 404, 'not_found');
        expect(find(missing.text, 'title').text).toMatch(/^Page not found ·/);
        expect(find(missing.text, 'h1').text).toBe('Page not found');
        expect(find(missing.text, 'main').text).not.toMatch(/route/i);
        expect(find(missing.text, 'span', { id: 'account-email' }).text).toBe(client.email);
        expect(findAll(missing.text, 'a', { href: '/console/access' })).toHaveLength(1);
        expect(findAll(missing.text, 'a', { href: '/console/password' })).toHaveLength(1);
        // its Log out form carries this session's token and works
        expect(findAll(missing.text, 'form', { action: '/console/logout' })).toHaveLength(1);
        expectSeeOther(await client.logOut(), '/console/login');
        expectSeeOther(await client.get('/console'), '/console/login');

        // without a valid session the same address shows no account
        const anonymous = await new ConsoleClient(t).get('/console/nope');
        expectErrorPage(anonymous, 404, 'not_found');
        expect(findAll(anonymous.text, 'span', { id: 'account-email' })).toHaveLength(0);
        const ended = new ConsoleClient(t);
        ended.setCookie('sf_console', randomBytes(32).toString('base64url'));
        expect(findAll((await ended.get('/console/nope')).text, 'span', { id: 'account-email' })).toHaveLength(0);
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
