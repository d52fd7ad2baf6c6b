import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  errorCode,
  expectErrorPage,
  fieldErrors,
  type Form,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  uniqueEmail,
} from '../../support/console-client.js';
import { accountRows, db, keyIds, keysOf, PLATFORM, sessionOf, sessionsOfEmail, SHOP } from '../../support/console-fixtures.js';
import { createTenant, issueKey, type Tenant } from '../../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: CSRF on every form, and the media types forms are accepted in.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

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

    // A sibling subdomain (`same-site`) is another origin too: one careless page there must not post here.
    it.each(ATTEMPTS.flatMap(([route, prepare]) => ['cross-site', 'same-site'].map((site) => [route, site, prepare] as const)))(
      '%s marked Sec-Fetch-Site: %s is refused with 403 csrf_failed even with the right token',
      async (_route, site, prepare) => {
        const attempt = await prepare();
        const before = await attempt.state();
        const response = await attempt.client.post(attempt.path, attempt.form, { headers: { 'Sec-Fetch-Site': site } });
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
});
