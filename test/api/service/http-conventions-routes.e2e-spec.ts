/**
 * HTTP conventions e2e: unknown routes and ids, keys outside the Authorization header, browser-facing headers, and
 * the 500 that reveals nothing.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { generateSecret } from '../../../src/common/crypto/key-secret.js';
import { StoresService } from '../../../src/stores/stores.service.js';
import { bearer, useApp } from '../../support/app.js';
import { createTenant } from '../../support/fixtures.js';
import { checkProblemPagesAfterAll, httpConventionRequests, problem } from '../../support/http-conventions.js';

describe('HTTP conventions', () => {
  // Before useApp(): afterAll hooks run in the order they are declared, and this one needs the app up.
  checkProblemPagesAfterAll(() => t);
  const t = useApp();
  const { storeNames } = httpConventionRequests(t);

  describe('routes', () => {
    it('answers an unknown route with a 404 not_found problem', async () => {
      const { admin } = await createTenant(t);
      for (const request of [
        t.http().get('/nope'),
        t.http().get('/v1/nope').set(bearer(admin.secret)),
        t.http().post('/v1/nope').set(bearer(admin.secret)).send({}),
        t.http().delete('/v1/stores').set(bearer(admin.secret)),
        t.http().put('/v1/stores').set(bearer(admin.secret)).send({ name: 'x' }),
        t.http().get('/v2/stores').set(bearer(admin.secret)),
      ]) {
        problem(await request, 404, 'not_found');
      }
    });

    it('takes paths exactly as the API spells them: another case is no route', async () => {
      const { admin, storeId } = await createTenant(t);
      for (const path of ['/V1/STORES', '/v1/Stores', `/v1/stores/${storeId}/Events`, '/V1/API-KEYS']) {
        problem(await t.http().get(path).set(bearer(admin.secret)), 404, 'not_found');
      }
      expect((await t.http().get('/v1/stores').set(bearer(admin.secret))).status).toBe(200);
    });

    it('forgives one trailing slash, and no more', async () => {
      const { admin, storeId } = await createTenant(t);
      const stores = await t.http().get('/v1/stores/').set(bearer(admin.secret));
      expect(stores.status).toBe(200);
      expect((stores.body.data as { id: string }[]).map((store) => store.id)).toEqual([storeId]);
      const events = await t.http().get(`/v1/stores/${storeId}/events/`).set(bearer(admin.secret));
      expect([events.status, events.body]).toEqual([200, { data: [], has_more: false, next_cursor: null }]);
      problem(await t.http().get('/v1/stores//').set(bearer(admin.secret)), 404, 'not_found');
    });

    it('answers an unknown resource id with a 404 not_found problem', async () => {
      const { admin } = await createTenant(t);
      for (const id of ['not-an-id', '01a200fa-2ffc-76ba-af25-46c685a280e9', "1' OR '1'='1"]) {
        problem(
          await t
            .http()
            .get(`/v1/stores/${encodeURIComponent(id)}`)
            .set(bearer(admin.secret)),
          404,
          'not_found',
        );
      }
    });

    it('never echoes a secret sent as the name of an unknown field', async () => {
      const { admin } = await createTenant(t);
      const secret = generateSecret();
      const response = await t
        .http()
        .post('/v1/stores')
        .set(bearer(admin.secret))
        .send({ name: 'S', [secret]: 1 });
      problem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: '[REDACTED]', code: 'unknown_field' })]);
      expect(JSON.stringify(response.body)).not.toContain(secret.slice(4));
    });

    it('answers a path that is not valid percent-encoding with a 400, without echoing it', async () => {
      const { admin } = await createTenant(t);
      const secret = generateSecret();
      for (const path of ['/v1/stores/%E0%A4%A', `/v1/stores/${secret}%FF`, `/problems/${secret}%E0`]) {
        const response = await t.http().get(path).set(bearer(admin.secret));
        problem(response, 400, 'validation_failed');
        expect(response.body.detail).toBe('The URL is not valid percent-encoded UTF-8');
        expect(JSON.stringify(response.body)).not.toContain(secret.slice(4));
      }
    });
  });

  describe('keys outside the Authorization header', () => {
    it.each([
      ['access_token', (secret: string) => `access_token=${secret}`],
      ['api_key', (secret: string) => `api_key=${secret}`],
      ['apikey', (secret: string) => `apikey=${secret}`],
      ['token', (secret: string) => `token=${secret}`],
      ['q', (secret: string) => `q=${secret}`],
      ['q', (secret: string) => `limit=2&q=${secret}`],
      ['x', (secret: string) => `x=1&x=${secret}`],
      ['q', (secret: string) => `q=${encodeURIComponent(secret)}`],
    ])('refuses a key in the query string (%s) with 400, even with a valid header', async (field, query) => {
      const { admin } = await createTenant(t);
      const response = await t
        .http()
        .get(`/v1/stores?${query(admin.secret)}`)
        .set(bearer(admin.secret));
      problem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field })]);
      expect(response.text).not.toContain(admin.secret);
    });

    it('refuses a key in the query string without a header with 400, not 401', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().get(`/v1/stores?access_token=${admin.secret}`);
      problem(response, 400, 'validation_failed');
      expect(response.text).not.toContain(admin.secret);
    });

    it('refuses a write carrying a key in the query string, and does not perform it', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().post(`/v1/stores?api_key=${admin.secret}`).set(bearer(admin.secret)).send({ name: 'Leaky' });
      problem(response, 400, 'validation_failed');
      expect(await storeNames(admin.secret)).not.toContain('Leaky');
    });

    it('refuses a key in a body field access_token with 400, and does not perform the write', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Body key', access_token: admin.secret });
      problem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'access_token' })]);
      expect(response.text).not.toContain(admin.secret);
      expect(await storeNames(admin.secret)).not.toContain('Body key');
    });
  });

  describe('browser-facing headers', () => {
    it('forbids caching of every /v1 answer, above all the one carrying a new secret', async () => {
      const { admin, storeId } = await createTenant(t);
      const created = await t
        .http()
        .post('/v1/api-keys')
        .set(bearer(admin.secret))
        .send({ name: 'k', store_id: storeId, scopes: ['fit'] });
      expect(created.status).toBe(201);
      expect(created.headers['cache-control']).toBe('no-store');
      expect((await t.http().get('/v1/stores').set(bearer(admin.secret))).headers['cache-control']).toBe('no-store');
      expect((await t.http().get('/v1/stores')).headers['cache-control']).toBe('no-store');
    });

    it('sends no CORS headers on /v1: not to a preflight, not to a GET with Origin', async () => {
      const { admin } = await createTenant(t);
      const preflight = await t
        .http()
        .options('/v1/stores')
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type');
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      const get = await t.http().get('/v1/stores').set(bearer(admin.secret)).set('Origin', 'https://shop.example');
      expect(get.status).toBe(200);
      for (const response of [preflight, get]) {
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        expect(response.headers['access-control-allow-credentials']).toBeUndefined();
        expect(response.headers['access-control-allow-headers']).toBeUndefined();
        expect(response.headers['access-control-allow-methods']).toBeUndefined();
      }
    });

    it('sends helmet security headers and hides the framework', async () => {
      const { admin } = await createTenant(t);
      for (const response of [
        await t.http().get('/healthz'),
        await t.http().get('/v1/stores').set(bearer(admin.secret)),
        await t.http().get('/nope'),
      ]) {
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['x-frame-options']).toBeDefined();
        expect(response.headers['content-security-policy']).toBeDefined();
        expect(response.headers['x-powered-by']).toBeUndefined();
      }
    });

    it("gives /v1 answers an API's security headers, and pages a page's", async () => {
      const { admin } = await createTenant(t);
      for (const response of [
        await t.http().get('/v1/stores').set(bearer(admin.secret)),
        await t.http().get('/v1/stores'),
        await t.http().get('/v1/nope').set(bearer(admin.secret)),
      ]) {
        expect(response.headers).toMatchObject({
          'cache-control': 'no-store',
          'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
          'x-content-type-options': 'nosniff',
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
        });
        expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
      }
      const page = await t.http().get('/console/login');
      expect(page.headers['content-security-policy']).toMatch(/script-src/);
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
    });
  });

  describe('internal errors', () => {
    it('answers an unexpected failure with a 500 that reveals nothing', async () => {
      const { admin } = await createTenant(t);
      const secret = generateSecret();
      const failure = Object.assign(new Error(`relation "stores" does not exist: SELECT * FROM stores WHERE secret_digest = '${secret}'`), {
        query: 'SELECT * FROM stores',
        parameters: [secret],
        code: '42P01',
      });
      const spy = jest.spyOn(t.app.get(StoresService), 'list').mockRejectedValueOnce(failure);
      try {
        const response = await t.http().get('/v1/stores').set(bearer(admin.secret));
        problem(response, 500, 'internal_error');
        // Only the problem fields; a `detail`, if any, is generic.
        for (const key of Object.keys(response.body)) {
          expect(['type', 'title', 'status', 'detail', 'code', 'request_id']).toContain(key);
        }
        for (const leak of [
          'SELECT',
          'relation',
          'stores',
          'secret_digest',
          secret,
          '42P01',
          'Error',
          ' at ',
          '.ts',
          '.js',
          'node_modules',
          'stack',
        ]) {
          expect(response.text).not.toContain(leak);
        }
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      expect((await t.http().get('/v1/stores').set(bearer(admin.secret))).status).toBe(200);
    });
  });
});
