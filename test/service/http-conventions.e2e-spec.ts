import { describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { generateSecret } from '../../src/auth/key-secret.js';
import { PROBLEMS } from '../../src/common/problems/problem-catalog.js';
import { StoresService } from '../../src/stores/stores.service.js';
import { bearer, useApp } from '../support/app.js';
import { createTenant, expectProblem } from '../support/fixtures.js';

/** Every problem `type` this file has seen; the last test checks that each one resolves to a page. */
const seenTypes = new Set<string>();

function problem(response: Response, status: number, code: string): void {
  expectProblem(response, status, code);
  seenTypes.add(response.body.type);
}

/** A problem answer with `status` and one of `codes` (where the contract leaves the exact code open). */
function problemOneOf(response: Response, status: number, codes: string[]): void {
  expect(response.status).toBe(status);
  expect(codes).toContain(response.body.code);
  problem(response, status, response.body.code);
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

describe('HTTP conventions', () => {
  const t = useApp();

  /** POSTs `text` verbatim, with the given Content-Type (none when null). */
  const postRaw = (path: string, secret: string, text: string | Buffer, contentType: string | null = 'application/json') => {
    const req = t.http().post(path).set(bearer(secret));
    if (contentType !== null) req.set('Content-Type', contentType);
    // Sent byte for byte: no serializer may turn the text (or a Buffer) into other JSON.
    return req.serialize((data: unknown) => data as string).send(text as string);
  };

  const storeNames = async (secret: string): Promise<string[]> => {
    const response = await t.http().get('/v1/stores?limit=100').set(bearer(secret));
    expect(response.status).toBe(200);
    return (response.body.data as { name: string }[]).map((s) => s.name);
  };

  describe('JSON bodies', () => {
    it('answers malformed JSON with 400 invalid_json', async () => {
      const { admin } = await createTenant(t);
      for (const text of ['{"name":', '{name: "x"}', "{'name': 'x'}", '{"name":"x",}', '{"name":"x"} trailing', '\u0000']) {
        const response = await postRaw('/v1/stores', admin.secret, text);
        problem(response, 400, 'invalid_json');
      }
    });

    it.each([
      ['an array', '[{"name":"x"}]'],
      ['an empty array', '[]'],
      ['a string', '"Acme"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ])('answers %s where an object is expected with 400 invalid_json', async (_, text) => {
      const { admin } = await createTenant(t);
      problem(await postRaw('/v1/stores', admin.secret, text), 400, 'invalid_json');
      problem(await postRaw('/v1/api-keys', admin.secret, text), 400, 'invalid_json');
    });

    it('reports each wrongly typed field in errors[] with field, code and message', async () => {
      const { admin } = await createTenant(t);
      const cases: [string, Record<string, unknown>, string, string][] = [
        ['/v1/stores', { name: 123 }, 'name', 'must_be_string'],
        ['/v1/stores', { name: null }, 'name', 'must_be_string'],
        ['/v1/stores', { name: true }, 'name', 'must_be_string'],
        ['/v1/api-keys', { name: 'k', scopes: 'admin' }, 'scopes', 'must_be_array'],
        ['/v1/api-keys', { name: 123, scopes: ['admin'] }, 'name', 'must_be_string'],
      ];
      for (const [path, body, field, code] of cases) {
        const response = await t.http().post(path).set(bearer(admin.secret)).send(body);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([{ field, code, message: expect.any(String) }]);
        expect(response.body.errors[0].message).toContain(field);
      }
    });

    it('refuses an unknown field and names it', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Typo', colour: 'red' });
      problem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([{ field: 'colour', code: 'unknown_field', message: expect.stringContaining('colour') }]);
      expect(await storeNames(admin.secret)).not.toContain('Typo');
    });

    it('lists every unknown field, on every body', async () => {
      const { admin } = await createTenant(t);
      const stores = await t
        .http()
        .post('/v1/stores')
        .set(bearer(admin.secret))
        .send({ name: 'x', curency: 'EUR', unitSystem: 'imperial' });
      problem(stores, 400, 'validation_failed');
      expect(stores.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'curency', code: 'unknown_field' }),
          expect.objectContaining({ field: 'unitSystem', code: 'unknown_field' }),
        ]),
      );
      const keys = await t
        .http()
        .post('/v1/api-keys')
        .set(bearer(admin.secret))
        .send({ name: 'k', scopes: ['admin'], scope: 'fit' });
      problem(keys, 400, 'validation_failed');
      expect(keys.body.errors).toEqual([expect.objectContaining({ field: 'scope', code: 'unknown_field' })]);
    });

    it('refuses the unknown fields constructor, __proto__ and prototype like any other', async () => {
      const { admin } = await createTenant(t);
      for (const field of ['constructor', '__proto__', 'prototype']) {
        const name = `Proto ${field}`;
        const response = await postRaw('/v1/stores', admin.secret, `{"name":${JSON.stringify(name)},"${field}":{"admin":true}}`);
        expect({ field, status: response.status }).toEqual({ field, status: 400 });
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([expect.objectContaining({ field, code: 'unknown_field' })]);
        expect(await storeNames(admin.secret)).not.toContain(name);
      }
    });

    it('refuses nested garbage in a field with 400 validation_failed', async () => {
      const { admin } = await createTenant(t);
      const cases: [string, Record<string, unknown>, string][] = [
        ['/v1/stores', { name: { a: [1, { b: null }] } }, 'name'],
        ['/v1/stores', { name: 'x', currency: { $gt: '' } }, 'currency'],
        ['/v1/stores', { name: 'x', unit_system: ['metric'] }, 'unit_system'],
        ['/v1/stores', { name: ['x'] }, 'name'],
        ['/v1/api-keys', { name: 'k', scopes: [['admin'], { a: 1 }, null] }, 'scopes'],
        ['/v1/api-keys', { name: 'k', scopes: ['admin'], expires_at: { date: '2030-01-01T00:00:00Z' } }, 'expires_at'],
        ['/v1/api-keys', { name: 'k', scopes: ['fit'], store_id: { id: 1 } }, 'store_id'],
      ];
      for (const [path, body, field] of cases) {
        const response = await t.http().post(path).set(bearer(admin.secret)).send(body);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
        for (const error of response.body.errors) {
          expect(error).toEqual({ field: expect.any(String), code: expect.stringMatching(/^[a-z0-9_]+$/), message: expect.any(String) });
        }
      }
    });

    it('answers deeply nested JSON with a 400, never a 500', async () => {
      const { admin } = await createTenant(t);
      const depth = 5000;
      const bodies = [
        `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        `{"name":"x","currency":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
        `{"name":"x","extra":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
      ];
      for (const text of bodies) {
        expect(Buffer.byteLength(text)).toBeLessThan(64 * 1024);
        problemOneOf(await postRaw('/v1/stores', admin.secret, text), 400, ['invalid_json', 'validation_failed']);
      }
    });

    it('answers a NUL character in a text field with a 400, never a 500', async () => {
      const { admin } = await createTenant(t);
      const stores = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Nul\u0000Store' });
      problemOneOf(stores, 400, ['invalid_json', 'validation_failed']);
      const keys = await t
        .http()
        .post('/v1/api-keys')
        .set(bearer(admin.secret))
        .send({ name: 'nul\u0000key', scopes: ['admin'] });
      problemOneOf(keys, 400, ['invalid_json', 'validation_failed']);
    });

    it('refuses text that is not valid Unicode (a lone surrogate) instead of storing it altered', async () => {
      const { admin } = await createTenant(t);
      for (const name of ['\\ud800 store', 'store \\udc00', '\\udc00\\ud800']) {
        const response = await postRaw('/v1/stores', admin.secret, `{"name":"${name}"}`);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_character' })]);
      }
      const paired = await postRaw('/v1/stores', admin.secret, '{"name":"\\ud83d\\udc55 Tees"}');
      expect(paired.status).toBe(201);
      expect(paired.body.name).toBe('\u{1F455} Tees');
    });

    it('refuses a body over 64 KiB with 413 payload_too_large and creates nothing', async () => {
      const { admin } = await createTenant(t);
      const name = `Huge ${'x'.repeat(70 * 1024)}`;
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name });
      problem(response, 413, 'payload_too_large');
      expect(response.headers['request-id']).toMatch(SANE_REQUEST_ID);
      expect((await storeNames(admin.secret)).some((n) => n.startsWith('Huge'))).toBe(false);
    });

    it('reads a body just under 64 KiB (and judges it on its fields)', async () => {
      const { admin } = await createTenant(t);
      const response = await t
        .http()
        .post('/v1/stores')
        .set(bearer(admin.secret))
        .send({ name: 'x'.repeat(60 * 1024) });
      problem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    });

    it.each([
      ['text/plain', 'text/plain'],
      ['form-urlencoded', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=xyz'],
      ['XML', 'application/xml'],
      ['missing', null],
    ])('refuses a body whose Content-Type is %s with 415 and creates nothing', async (_, contentType) => {
      const { admin } = await createTenant(t);
      const name = `Typed ${contentType ?? 'none'}`;
      const response = await postRaw('/v1/stores', admin.secret, JSON.stringify({ name }), contentType);
      problem(response, 415, 'unsupported_media_type');
      expect(response.headers['request-id']).toMatch(SANE_REQUEST_ID);
      expect(await storeNames(admin.secret)).not.toContain(name);
    });

    it('refuses a form-encoded body the way a browser form would send it', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).type('form').send({ name: 'Form' });
      problem(response, 415, 'unsupported_media_type');
    });

    it.each(['iso-8859-1', 'latin1', 'windows-1252', 'us-ascii'])('refuses JSON declared as charset=%s with 415', async (charset) => {
      const { admin } = await createTenant(t);
      const response = await postRaw('/v1/stores', admin.secret, '{"name":"Charset"}', `application/json; charset=${charset}`);
      problem(response, 415, 'unsupported_media_type');
      expect(await storeNames(admin.secret)).not.toContain('Charset');
    });

    it('refuses UTF-16 JSON with 415: bodies are UTF-8', async () => {
      const { admin } = await createTenant(t);
      const body = Buffer.from('{"name":"Sixteen"}', 'utf16le');
      const response = await postRaw('/v1/stores', admin.secret, body, 'application/json; charset=utf-16le');
      problem(response, 415, 'unsupported_media_type');
      expect(await storeNames(admin.secret)).not.toContain('Sixteen');
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'Application/JSON'])(
      'accepts Content-Type: %s',
      async (contentType) => {
        const { admin } = await createTenant(t);
        const name = `Accepted ${contentType} ü€`;
        const response = await postRaw('/v1/stores', admin.secret, JSON.stringify({ name }), contentType);
        expect(response.status).toBe(201);
        expect(response.body.name).toBe(name);
      },
    );

    it('never answers random JSON bodies with a 500', async () => {
      const { admin } = await createTenant(t);
      const fieldName = fc.oneof(
        fc.constantFrom('name', 'currency', 'unit_system', 'scopes', 'store_id', 'expires_at', 'platform', 'id'),
        fc.string({ maxLength: 12 }),
      );
      const body = fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.object({ maxDepth: 2, maxKeys: 5 }),
        fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('/v1/stores', '/v1/api-keys'), body, async (path, value) => {
          const text = JSON.stringify(value) ?? 'null';
          const response = await postRaw(path, admin.secret, text);
          if (response.status === 201) return;
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(Object.keys(PROBLEMS)).toContain(response.body.code);
          problem(response, response.status, response.body.code);
        }),
        { numRuns: 60 },
      );
    });

    it('never answers random bytes sent as JSON with a 500', async () => {
      const { admin } = await createTenant(t);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('/v1/stores', '/v1/api-keys'), fc.string({ maxLength: 40 }), async (path, text) => {
          const response = await postRaw(path, admin.secret, text);
          if (response.status === 201) return;
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          problem(response, response.status, response.body.code);
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('Request-Id', () => {
    it('is on every response: success, 401, 404, 400, 413 and 415', async () => {
      const { admin } = await createTenant(t);
      const responses = [
        await t.http().get('/healthz'),
        await t.http().get('/v1/stores').set(bearer(admin.secret)),
        await t.http().get('/v1/stores'),
        await t.http().get('/no/such/route'),
        await postRaw('/v1/stores', admin.secret, '{"name":'),
        await t
          .http()
          .post('/v1/stores')
          .set(bearer(admin.secret))
          .send({ name: 'x'.repeat(70 * 1024) }),
        await postRaw('/v1/stores', admin.secret, '{"name":"x"}', 'text/plain'),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 404, 400, 413, 415]);
      for (const response of responses) {
        expect(response.headers['request-id']).toMatch(SANE_REQUEST_ID);
        if (response.status >= 400) expect(response.body.request_id).toBe(response.headers['request-id']);
      }
      expect(new Set(responses.map((r) => r.headers['request-id'])).size).toBe(responses.length);
    });

    it('answers 401 with WWW-Authenticate: Bearer and the request id in the body', async () => {
      for (const request of [
        t.http().get('/v1/stores'),
        t.http().get('/v1/stores').set(bearer(generateSecret())),
        t.http().get('/v1/stores').set('Authorization', 'Basic dXNlcjpwYXNz'),
      ]) {
        const response = await request;
        problem(response, 401, 'unauthenticated');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it('echoes a sane Request-Id sent by the caller, in the header and in an error body', async () => {
      const ok = await t.http().get('/healthz').set('Request-Id', 'checkout-7f3a.retry:2_B');
      expect(ok.headers['request-id']).toBe('checkout-7f3a.retry:2_B');
      const missing = await t.http().get('/no/such/route').set('Request-Id', 'trace-123');
      problem(missing, 404, 'not_found');
      expect(missing.body.request_id).toBe('trace-123');
      expect(missing.headers['request-id']).toBe('trace-123');
      const longest = 'a'.repeat(128);
      expect((await t.http().get('/healthz').set('Request-Id', longest)).headers['request-id']).toBe(longest);
    });

    it.each([
      ['too long', 'a'.repeat(129)],
      ['with spaces', 'abc def'],
      ['with a slash', 'a/b'],
      ['with markup', '<script>'],
      ['with a quote', 'a"b'],
    ])('replaces a caller Request-Id that is %s', async (_, sent) => {
      const response = await t.http().get('/no/such/route').set('Request-Id', sent);
      problem(response, 404, 'not_found');
      expect(response.headers['request-id']).not.toBe(sent);
      expect(response.headers['request-id']).toMatch(SANE_REQUEST_ID);
      expect(response.body.request_id).toBe(response.headers['request-id']);
    });
  });

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
  });

  describe('public routes', () => {
    it('answers GET /healthz and GET /readyz with 200 and no key', async () => {
      const live = await t.http().get('/healthz');
      expect(live.status).toBe(200);
      expect(live.body.status).toBe('ok');
      const ready = await t.http().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
    });

    it('serves an HTML page for every problem code', async () => {
      const codes = Object.keys(PROBLEMS) as (keyof typeof PROBLEMS)[];
      expect(codes.length).toBeGreaterThan(10);
      for (const code of codes) {
        const response = await t.http().get(`/problems/${code}`);
        expect({ code, status: response.status }).toEqual({ code, status: 200 });
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.text).toContain(code);
        expect(response.text).toContain(PROBLEMS[code].title);
        expect(response.text).toContain(String(PROBLEMS[code].status));
      }
    });

    it('lists every problem code on /problems', async () => {
      const response = await t.http().get('/problems');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      for (const code of Object.keys(PROBLEMS)) expect(response.text).toContain(`/problems/${code}`);
    });

    it('answers an unknown problem code with a 404 problem', async () => {
      problem(await t.http().get('/problems/no_such_code'), 404, 'not_found');
      problem(await t.http().get('/problems/__proto__'), 404, 'not_found');
      problem(await t.http().get('/problems/toString'), 404, 'not_found');
    });

    it('describes every /v1 route in GET /openapi.json, each with a security requirement and x-credential', async () => {
      const response = await t.http().get('/openapi.json');
      expect(response.status).toBe(200);
      const paths = response.body.paths as Record<string, Record<string, { security?: unknown[]; 'x-credential'?: unknown }>>;
      const documented = Object.entries(paths)
        .filter(([path]) => path.startsWith('/v1/'))
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
      const expected = [
        'POST /v1/merchants',
        'GET /v1/merchant',
        'POST /v1/api-keys',
        'GET /v1/api-keys',
        'DELETE /v1/api-keys/{key_id}',
        'POST /v1/stores',
        'GET /v1/stores',
        'GET /v1/stores/{store_id}',
        'PATCH /v1/stores/{store_id}',
      ];
      expect(documented).toEqual(expect.arrayContaining(expected));

      // Every route the application actually serves under /v1 is in the document.
      const router = (
        t.app.getHttpAdapter().getInstance() as { router?: { stack?: { route?: { path: unknown; methods: Record<string, boolean> } }[] } }
      ).router;
      const served = (router?.stack ?? [])
        // `/v1/*path` is the API gate, middleware that Nest mounts as a route for every method: not an operation
        .filter((layer) => typeof layer.route?.path === 'string' && layer.route.path.startsWith('/v1/') && !layer.route.path.includes('*'))
        .flatMap((layer) =>
          Object.keys(layer.route!.methods).map(
            (m) => `${m.toUpperCase()} ${(layer.route!.path as string).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`,
          ),
        );
      expect(served).toEqual(expect.arrayContaining(expected));
      expect(documented.sort()).toEqual(expect.arrayContaining(served.sort()));

      for (const [path, operations] of Object.entries(paths).filter(([p]) => p.startsWith('/v1/'))) {
        for (const [method, operation] of Object.entries(operations)) {
          const where = `${method.toUpperCase()} ${path}`;
          expect({ where, security: Array.isArray(operation.security) && operation.security.length > 0 }).toEqual({
            where,
            security: true,
          });
          expect({ where, credential: typeof operation['x-credential'] }).toEqual({ where, credential: 'string' });
        }
      }
      expect(paths['/v1/merchants'].post.security).toEqual([{ operator: [] }]);
      expect(paths['/v1/stores'].get.security).toEqual([{ api_key: [] }]);
      expect(Object.keys(response.body.components.securitySchemes).sort()).toEqual(['api_key', 'operator']);
    });

    it('documents every error answer of every /v1 operation as problem details', async () => {
      const { paths, components } = (await t.http().get('/openapi.json')).body;
      expect(components.schemas.ProblemDetails.properties.code.enum.sort()).toEqual(Object.keys(PROBLEMS).sort());
      for (const [path, item] of Object.entries(
        paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>,
      )) {
        for (const [method, operation] of Object.entries(item)) {
          const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
          expect({ path, method, statuses: errors.map(([status]) => status) }).toMatchObject({
            statuses: expect.arrayContaining(['400', '401', '403', '429', '503']),
          });
          for (const [, response] of errors) {
            expect(response.content?.['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
          }
        }
      }
    });

    it('types whole-number parameters and fields as integers, so generated clients do too', async () => {
      const { paths, components } = (await t.http().get('/openapi.json')).body as {
        paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: { type?: string } }[] }>>;
        components: { schemas: Record<string, { properties: Record<string, { type?: string }> }> };
      };
      const parameters = Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? []));
      const named = (name: string) => parameters.filter((p) => p.in === 'query' && p.name === name);
      expect(named('limit').length).toBeGreaterThan(5);
      expect(named('version').length).toBeGreaterThan(0);
      for (const p of [...named('limit'), ...named('version')])
        expect({ name: p.name, type: p.schema.type }).toEqual({ name: p.name, type: 'integer' });
      expect(components.schemas.QuestionnaireResponse.properties.version.type).toBe('integer');
    });

    it('keeps health, docs and problem pages out of the API description', async () => {
      const response = await t.http().get('/openapi.json');
      expect(Object.keys(response.body.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
    });

    it('serves the API documentation at /docs as HTML, with no key', async () => {
      const response = await t.http().get('/docs');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toMatch(/<html/i);
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

  // Runs last: it checks the problems collected by every test above.
  it('points every error type answered in this file at a page that exists', async () => {
    expect(seenTypes.size).toBeGreaterThanOrEqual(6);
    for (const type of seenTypes) {
      expect(type).toMatch(/^\/problems\/[a-z_]+$/);
      const response = await t.http().get(type);
      expect({ type, status: response.status }).toEqual({ type, status: 200 });
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});
