/**
 * HTTP conventions e2e: JSON bodies — malformed, wrongly typed, unknown fields, size, Content-Type and charset —
 * and the Request-Id on every answer. Ends with the check that every problem type answered here has a page.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { generateSecret } from '../../../src/common/crypto/key-secret.js';
import { PROBLEMS } from '../../../src/common/problems/problem-catalog.js';
import { bearer, useApp } from '../../support/app.js';
import { createStore, createTenant } from '../../support/fixtures.js';
import { httpConventionRequests, problem, problemOneOf, SANE_REQUEST_ID, seenTypes } from '../../support/http-conventions.js';

describe('HTTP conventions', () => {
  const t = useApp();
  const { postRaw, storeNames } = httpConventionRequests(t);

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
      for (const path of ['/v1/stores', '/v1/api-keys']) {
        const response = await postRaw(path, admin.secret, text);
        problem(response, 400, 'invalid_json');
        // valid JSON, just not an object: the detail must not call it malformed
        expect(response.body.detail).toBe('The request body must be a JSON object');
      }
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

    it('answers a NUL character in a query filter, and a timestamp of year 0, with a 400, never a 500', async () => {
      const { admin } = await createTenant(t);
      const storeId = await createStore(t, admin.secret);
      const get = (path: string) => t.http().get(`/v1/stores/${storeId}${path}`).set(bearer(admin.secret));
      for (const [path, field] of [
        ['/products?external_id=%00', 'external_id'],
        ['/events?order_id=a%00b', 'order_id'],
        ['/events?source=%00', 'source'],
      ]) {
        const response = await get(path);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([expect.objectContaining({ field, code: 'invalid_character' })]);
      }
      for (const route of ['metrics', 'metrics/daily']) {
        const response = await get(`/${route}?from=0000-06-01T00:00:00Z&to=0001-01-01T00:00:00Z`);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'from' })]);
      }
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

    it('refuses bytes that are not UTF-8 instead of storing them altered (as U+FFFD), in a batch too', async () => {
      const tenant = await createTenant(t);
      const invalid = [Buffer.from([0xff, 0xfe]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82])];
      for (const bytes of invalid) {
        const body = Buffer.concat([Buffer.from('{"name":"Outlet '), bytes, Buffer.from('"}')]);
        const response = await postRaw('/v1/stores', tenant.admin.secret, body);
        problem(response, 400, 'validation_failed');
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'body', code: 'invalid_character' })]);
      }
      const event = (id: string) =>
        Buffer.from(`{"source":"shop","external_id":"${id}","type":"fit_viewed","occurred_at":"${new Date().toISOString()}"}`);
      const batch = Buffer.concat([
        Buffer.from('{"events":['),
        event(`utf8-${randomUUID()}`),
        Buffer.from(',{"source":"'),
        Buffer.from([0xff]),
        Buffer.from('"}]}'),
      ]);
      problem(await postRaw(`/v1/stores/${tenant.storeId}/events/batch`, tenant.admin.secret, batch), 400, 'validation_failed');
      expect((await storeNames(tenant.admin.secret)).some((name) => name.startsWith('Outlet'))).toBe(false);
      const valid = await postRaw('/v1/stores', tenant.admin.secret, Buffer.from('{"name":"Outlet \u00e9t\u00e9 \ud83d\udc55 é"}'));
      expect(valid.status).toBe(201);
      expect(valid.body.name).toBe('Outlet été 👕 é');
    });

    it('refuses a body over 64 KiB with 413 payload_too_large and creates nothing', async () => {
      const { admin } = await createTenant(t);
      const name = `Huge ${'x'.repeat(70 * 1024)}`;
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name });
      problem(response, 413, 'payload_too_large');
      expect(response.body.detail).toBe('The body is over 64 KiB, the limit of one request: shorten its fields');
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
