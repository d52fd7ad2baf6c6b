import { describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, OPERATOR_KEY, useApp } from '../support/app.js';
import { createStore, createTenant, expectProblem, issueKey, type Key } from '../support/fixtures.js';

/** The fields of an API key record, exactly: the create response adds `secret`, nothing else ever does. */
const KEY_RECORD_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes', 'store_id'].sort();
const SECRET_PATTERN = /^sfk_[0-9A-Za-z]{46}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type KeyRecord = Record<string, unknown> & { id: string; revoked_at: string | null; last_used_at: string | null };

describe('API keys', () => {
  const t = useApp();

  const post = (secret: string, body: object) => t.http().post('/v1/api-keys').set(bearer(secret)).send(body);
  const list = (secret: string, query = '') => t.http().get(`/v1/api-keys${query}`).set(bearer(secret));
  const revoke = (secret: string, keyId: string) => t.http().delete(`/v1/api-keys/${keyId}`).set(bearer(secret));
  const getMerchant = (secret: string) => t.http().get('/v1/merchant').set(bearer(secret));

  /** Every key of the merchant, newest first, walked through all pages. */
  async function allKeys(adminSecret: string): Promise<KeyRecord[]> {
    const response = await list(adminSecret, '?limit=100');
    expect(response.status).toBe(200);
    expect(response.body.has_more).toBe(false);
    return response.body.data as KeyRecord[];
  }

  async function keyRecord(adminSecret: string, keyId: string): Promise<KeyRecord | undefined> {
    return (await allKeys(adminSecret)).find((key) => key.id === keyId);
  }

  function expectFieldError(response: Response, field: string, code?: string): void {
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field, ...(code === undefined ? {} : { code }) })]),
    );
  }

  /** now + one calendar year + `deltaMs`, as the service counts a year. */
  function oneYearAhead(deltaMs: number): string {
    const at = new Date();
    at.setUTCFullYear(at.getUTCFullYear() + 1);
    return new Date(at.getTime() + deltaMs).toISOString();
  }

  describe('POST /v1/api-keys', () => {
    it('issues a store-scoped key: 201 with the record and its secret, once', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, {
        name: 'Checkout backend',
        scopes: ['events', 'analytics'],
        store_id: tenant.storeId,
      });

      expect(response.status).toBe(201);
      expect(Object.keys(response.body as object).sort()).toEqual([...KEY_RECORD_FIELDS, 'secret'].sort());
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Checkout backend',
        store_id: tenant.storeId,
        scopes: ['events', 'analytics'],
        prefix: (response.body.secret as string).slice(0, 8),
        created_at: expect.stringMatching(TIMESTAMP),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        secret: expect.stringMatching(SECRET_PATTERN),
      });

      const listed = await keyRecord(tenant.admin.secret, response.body.id);
      const { secret: _secret, ...record } = response.body as Record<string, unknown>;
      expect(listed).toEqual(record);
    });

    it('issues an unrestricted admin key when scopes are exactly ["admin"] and no store_id is given', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, { name: 'Second admin', scopes: ['admin'] });

      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ store_id: null, scopes: ['admin'] });
      const issued = await post(response.body.secret, { name: 'Issued by the second admin', scopes: ['admin'] });
      expect(issued.status).toBe(201);
    });

    it('issues a store-bound admin key when a store_id is given with ["admin"]', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, { name: 'Store admin', scopes: ['admin'], store_id: tenant.storeId });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ store_id: tenant.storeId, scopes: ['admin'] });
    });

    it('gives every key a different secret and a different id', async () => {
      const tenant = await createTenant(t);
      const keys: Key[] = [];
      for (let i = 0; i < 5; i++) keys.push(await issueKey(t, tenant.admin.secret, { scopes: ['admin'] }));
      expect(new Set(keys.map((k) => k.secret)).size).toBe(5);
      expect(new Set(keys.map((k) => k.id)).size).toBe(5);
    });

    describe('name', () => {
      it.each([
        ['missing', {}],
        ['empty', { name: '' }],
        ['not a string', { name: 42 }],
        ['longer than 200 characters', { name: 'x'.repeat(201) }],
      ])('answers 400 validation_failed on name when it is %s', async (_label, name) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { scopes: ['admin'], ...name });
        expectFieldError(response, 'name');
      });
    });

    describe('scopes', () => {
      it.each([
        ['missing', {}],
        ['empty', { scopes: [] }],
        ['repeated', { scopes: ['events', 'events'] }],
        ['repeated admin', { scopes: ['admin', 'admin'] }],
        ['an unknown scope', { scopes: ['events', 'owner'] }],
        ['a string instead of an array', { scopes: 'events' }],
        ['a differently cased scope', { scopes: ['Events'] }],
      ])('answers 400 validation_failed on scopes when they are %s, and issues nothing', async (_label, scopes) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'bad scopes', store_id: tenant.storeId, ...scopes });
        expectFieldError(response, 'scopes');
        expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
      });

      it.each(['admin', 'catalog', 'fit', 'events', 'analytics'])('accepts the %s scope', async (scope) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: scope, scopes: [scope], store_id: tenant.storeId });
        expect(response.status).toBe(201);
        expect(response.body.scopes).toEqual([scope]);
      });

      it('accepts all five scopes together on a store-bound key', async () => {
        const tenant = await createTenant(t);
        const scopes = ['admin', 'catalog', 'fit', 'events', 'analytics'];
        const response = await post(tenant.admin.secret, { name: 'all', scopes, store_id: tenant.storeId });
        expect(response.status).toBe(201);
        expect([...response.body.scopes].sort()).toEqual([...scopes].sort());
      });
    });

    describe('store_id', () => {
      it.each([[['events']], [['catalog', 'fit']], [['admin', 'catalog']], [['analytics', 'admin']]])(
        'answers 400 validation_failed on store_id when scopes %j come without one, and issues nothing',
        async (scopes) => {
          const tenant = await createTenant(t);
          const response = await post(tenant.admin.secret, { name: 'unbound', scopes });
          expectFieldError(response, 'store_id');
          expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
        },
      );

      it('answers 400 on store_id when store_id is null for a non-admin key', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'unbound', scopes: ['events'], store_id: null });
        expectFieldError(response, 'store_id');
      });

      const FOREIGN_STORES: Array<[string, () => Promise<string>]> = [
        ['a store of another merchant', async () => (await createTenant(t)).storeId],
        ['a uuid that names no store', async () => randomUUID()],
        ['not a uuid', async () => 'not-a-store-id'],
      ];

      it.each(FOREIGN_STORES)('answers 400 unknown_store on store_id when it is %s, and issues nothing', async (_label, storeId) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'foreign', scopes: ['events'], store_id: await storeId() });
        expectFieldError(response, 'store_id', 'unknown_store');
        expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
      });

      it.each(FOREIGN_STORES)('answers 400 unknown_store for a store-bound admin key when store_id is %s', async (_label, storeId) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'foreign', scopes: ['admin'], store_id: await storeId() });
        expectFieldError(response, 'store_id', 'unknown_store');
      });

      it('binds a key to any store of the merchant, not only the first', async () => {
        const tenant = await createTenant(t);
        const second = await createStore(t, tenant.admin.secret);
        const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: second });
        expect(key.store_id).toBe(second);
        const own = await t.http().get(`/v1/stores/${second}`).set(bearer(key.secret));
        expect(own.status).toBe(200);
        const first = await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret));
        expectProblem(first, 403, 'store_forbidden');
      });
    });

    describe('expires_at', () => {
      it('answers 400 not_in_future when expires_at is in the past', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, {
          name: 'past',
          scopes: ['admin'],
          expires_at: new Date(Date.now() - 60_000).toISOString(),
        });
        expectFieldError(response, 'expires_at', 'not_in_future');
      });

      it('answers 400 too_far_in_future when expires_at is more than one year ahead', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'far', scopes: ['admin'], expires_at: oneYearAhead(60 * 60_000) });
        expectFieldError(response, 'expires_at', 'too_far_in_future');
      });

      it('answers 400 too_far_in_future when expires_at is a minute over one year ahead', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'far', scopes: ['admin'], expires_at: oneYearAhead(60_000) });
        expectFieldError(response, 'expires_at', 'too_far_in_future');
      });

      it('accepts expires_at just under one year ahead', async () => {
        const tenant = await createTenant(t);
        const expiresAt = oneYearAhead(-60_000);
        const response = await post(tenant.admin.secret, { name: 'long', scopes: ['admin'], expires_at: expiresAt });
        expect(response.status).toBe(201);
        expect(response.body.expires_at).toBe(expiresAt);
      });

      it('accepts a timestamp with a zone offset and answers it in UTC', async () => {
        const tenant = await createTenant(t);
        const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000);
        const withOffset = `${new Date(at.getTime() + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
        const response = await post(tenant.admin.secret, { name: 'offset', scopes: ['admin'], expires_at: withOffset });
        expect(response.status).toBe(201);
        expect(response.body.expires_at).toBe(at.toISOString());
      });

      it.each([
        ['without a time zone', () => new Date(Date.now() + 86_400_000).toISOString().replace('Z', '')],
        ['a date without a time', () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)],
        ['a number', () => Date.now() + 86_400_000],
        ['garbage', () => 'next week'],
        ['an impossible date', () => `${new Date().getUTCFullYear() + 1}-02-30T00:00:00Z`],
      ])('answers 400 validation_failed on expires_at when it is %s', async (_label, value) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'bad expiry', scopes: ['admin'], expires_at: value() });
        expectFieldError(response, 'expires_at');
        expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
      });
    });

    it('answers 400 validation_failed to an unknown field', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, { name: 'typo', scopes: ['admin'], scope: ['events'] });
      expectFieldError(response, 'scope', 'unknown_field');
    });

    it('refuses a store-bound admin key with 403 insufficient_scope, even for its own store', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const forOwnStore = await post(bound.secret, { name: 'own store', scopes: ['events'], store_id: tenant.storeId });
      const unrestricted = await post(bound.secret, { name: 'escalation', scopes: ['admin'] });
      expectProblem(forOwnStore, 403, 'insufficient_scope');
      expectProblem(unrestricted, 403, 'insufficient_scope');
      expect((await allKeys(tenant.admin.secret)).map((k) => k.id).sort()).toEqual([tenant.admin.id, bound.id].sort());
    });

    it.each([[['catalog']], [['fit']], [['events']], [['analytics']], [['catalog', 'fit', 'events', 'analytics']]])(
      'refuses a non-admin key with scopes %j with 403 insufficient_scope',
      async (scopes) => {
        const tenant = await createTenant(t);
        const key = await issueKey(t, tenant.admin.secret, { scopes, store_id: tenant.storeId });
        const response = await post(key.secret, { name: 'escalation', scopes: ['events'], store_id: tenant.storeId });
        expectProblem(response, 403, 'insufficient_scope');
      },
    );
  });

  describe('GET /v1/api-keys', () => {
    it('lists every key newest first, revoked ones included with revoked_at, and never a secret', async () => {
      const tenant = await createTenant(t);
      const a = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId, name: 'a' });
      const b = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: 'b' });
      const c = await issueKey(t, tenant.admin.secret, { scopes: ['catalog'], store_id: tenant.storeId, name: 'c' });
      const revoked = await revoke(tenant.admin.secret, b.id);
      expect(revoked.status).toBe(200);

      const response = await list(tenant.admin.secret);

      expect(response.status).toBe(200);
      expect(Object.keys(response.body as object).sort()).toEqual(['data', 'has_more', 'next_cursor']);
      expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
      const data = response.body.data as KeyRecord[];
      expect(data.map((k) => k.id)).toEqual([c.id, b.id, a.id, tenant.admin.id]);
      for (const item of data) expect(Object.keys(item).sort()).toEqual(KEY_RECORD_FIELDS);
      expect(data.find((k) => k.id === b.id)).toMatchObject({ revoked_at: revoked.body.revoked_at });
      expect(revoked.body.revoked_at).toMatch(TIMESTAMP);
      expect(data.filter((k) => k.id !== b.id).map((k) => k.revoked_at)).toEqual([null, null, null]);
      for (const secret of [tenant.admin.secret, a.secret, b.secret, c.secret]) {
        expect(response.text).not.toContain(secret);
        expect(response.text).not.toContain(secret.slice(8));
      }
      expect(response.text).not.toMatch(/digest|secret/i);
    });

    it("never lists another merchant's keys", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      await issueKey(t, other.admin.secret, { scopes: ['events'], store_id: other.storeId });
      const data = await allKeys(tenant.admin.secret);
      expect(data.map((k) => k.id)).toEqual([tenant.admin.id]);
    });

    it("lists only the keys bound to one store with ?store_id=, and nothing for another merchant's store", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const secondStore = await createStore(t, tenant.admin.secret);
      const first = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const second = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: secondStore });
      await issueKey(t, other.admin.secret, { scopes: ['fit'], store_id: other.storeId });

      const mine = await t.http().get(`/v1/api-keys?store_id=${secondStore}`).set(bearer(tenant.admin.secret));
      expect(mine.status).toBe(200);
      expect(mine.body.data.map((k: KeyRecord) => k.id)).toEqual([second.id]);
      const firstOnly = await t.http().get(`/v1/api-keys?store_id=${tenant.storeId}`).set(bearer(tenant.admin.secret));
      expect(firstOnly.body.data.map((k: KeyRecord) => k.id)).toEqual([first.id]);
      const foreign = await t.http().get(`/v1/api-keys?store_id=${other.storeId}`).set(bearer(tenant.admin.secret));
      expect(foreign.body.data).toEqual([]);
      expectProblem(await t.http().get('/v1/api-keys?store_id=nope').set(bearer(tenant.admin.secret)), 400, 'validation_failed');
    });

    it('walks all keys page by page with limit, starting_after, has_more and next_cursor, without repeats', async () => {
      const tenant = await createTenant(t);
      for (let i = 0; i < 7; i++) await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: `key ${i}` });
      const everything = await allKeys(tenant.admin.secret);
      expect(everything).toHaveLength(8);

      const pages: KeyRecord[][] = [];
      let cursor: string | null = null;
      do {
        const response = await list(tenant.admin.secret, `?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(response.status).toBe(200);
        const data = response.body.data as KeyRecord[];
        pages.push(data);
        expect(response.body.has_more).toBe(response.body.next_cursor !== null);
        if (response.body.has_more) expect(response.body.next_cursor).toBe(data[data.length - 1].id);
        cursor = response.body.next_cursor as string | null;
        expect(pages.length).toBeLessThanOrEqual(3);
      } while (cursor !== null);

      expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
      const walked = pages.flat();
      expect(new Set(walked.map((k) => k.id)).size).toBe(walked.length);
      expect(walked).toEqual(everything);
    });

    it('ends with has_more false and next_cursor null when the last page is exactly full', async () => {
      const tenant = await createTenant(t);
      await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const first = await list(tenant.admin.secret, '?limit=1');
      expect(first.body).toMatchObject({ has_more: true, next_cursor: first.body.data[0].id });
      const second = await list(tenant.admin.secret, `?limit=1&starting_after=${first.body.next_cursor}`);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(second.body.data.map((k: KeyRecord) => k.id)).toEqual([tenant.admin.id]);
    });

    it('answers 20 keys by default', async () => {
      const tenant = await createTenant(t);
      for (let i = 0; i < 20; i++) await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const response = await list(tenant.admin.secret);
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(20);
      expect(response.body.has_more).toBe(true);
    });

    it('accepts limit 1 and limit 100', async () => {
      const tenant = await createTenant(t);
      expect((await list(tenant.admin.secret, '?limit=1')).status).toBe(200);
      expect((await list(tenant.admin.secret, '?limit=100')).status).toBe(200);
    });

    it.each(['0', '101', '-1', 'ten', '2.5'])('answers 400 validation_failed on limit=%s', async (limit) => {
      const tenant = await createTenant(t);
      const response = await list(tenant.admin.secret, `?limit=${limit}`);
      expectFieldError(response, 'limit');
    });

    it('answers 400 validation_failed when starting_after is not an id', async () => {
      const tenant = await createTenant(t);
      const response = await list(tenant.admin.secret, '?starting_after=nope');
      expectFieldError(response, 'starting_after');
    });

    it('refuses a store-bound admin key with 403 insufficient_scope', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await list(bound.secret);
      expectProblem(response, 403, 'insufficient_scope');
      expect(response.text).not.toContain(tenant.admin.id);
    });

    it('refuses a non-admin key with 403 insufficient_scope', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['catalog', 'fit', 'events', 'analytics'], store_id: tenant.storeId });
      const response = await list(key.secret);
      expectProblem(response, 403, 'insufficient_scope');
    });
  });

  describe('storage', () => {
    it('keeps only the SHA-256 digest of each secret: no column holds the secret', async () => {
      const tenant = await createTenant(t);
      const keys = [
        tenant.admin,
        await issueKey(t, tenant.admin.secret, { scopes: ['admin'] }),
        await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId }),
        await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId, expires_at: oneYearAhead(-3_600_000) }),
      ];
      await getMerchant(tenant.admin.secret);

      const rows: Array<Record<string, unknown>> = await t.app
        .get(DataSource)
        .query('SELECT * FROM api_keys WHERE merchant_id = $1', [tenant.merchantId]);

      expect(rows.map((row) => row.id).sort()).toEqual(keys.map((k) => k.id).sort());
      for (const row of rows) {
        const values = Object.values(row).map((value) => (value instanceof Date ? value.toISOString() : JSON.stringify(value)));
        for (const key of keys) {
          for (const value of values) {
            expect(value).not.toContain(key.secret);
            expect(value).not.toContain(key.secret.slice(4));
            expect(value).not.toContain(key.secret.slice(8));
          }
        }
        const key = keys.find((k) => k.id === row.id) as Key;
        expect(row.secret_digest).toBe(createHash('sha256').update(key.secret, 'utf8').digest('hex'));
        expect(row.prefix).toBe(key.secret.slice(0, 8));
      }
    });
  });

  describe('DELETE /v1/api-keys/{key_id}', () => {
    it('revokes a key: 200 with the record and revoked_at set, and the key gets 401 on the very next request', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: 'doomed' });
      expect((await getMerchant(key.secret)).status).toBe(200);

      const response = await revoke(tenant.admin.secret, key.id);

      expect(response.status).toBe(200);
      expect(Object.keys(response.body as object).sort()).toEqual(KEY_RECORD_FIELDS);
      expect(response.body).toMatchObject({
        id: key.id,
        name: 'doomed',
        store_id: null,
        scopes: ['admin'],
        revoked_at: expect.stringMatching(TIMESTAMP),
      });
      const next = await getMerchant(key.secret);
      expectProblem(next, 401, 'unauthenticated');
      expect(next.headers['www-authenticate']).toMatch(/^Bearer\b/);
    });

    it('refuses a revoked store-scoped key on its own store', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret))).status).toBe(200);
      expect((await revoke(tenant.admin.secret, key.id)).status).toBe(200);
      const response = await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret));
      expectProblem(response, 401, 'unauthenticated');
    });

    it('answers 200 again to a second revocation and leaves revoked_at unchanged', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const first = await revoke(tenant.admin.secret, key.id);
      expect(first.status).toBe(200);
      await sleep(20);

      const second = await revoke(tenant.admin.secret, key.id);

      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect((await keyRecord(tenant.admin.secret, key.id))?.revoked_at).toBe(first.body.revoked_at);
    });

    it('refuses self-revocation with 403 cannot_revoke_self, and the key still works', async () => {
      const tenant = await createTenant(t);
      const response = await revoke(tenant.admin.secret, tenant.admin.id);

      expectProblem(response, 403, 'cannot_revoke_self');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it('refuses self-revocation by a store-bound admin key, and the key still works', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await revoke(bound.secret, bound.id);

      expectProblem(response, 403, 'cannot_revoke_self');
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(bound.secret))).status).toBe(200);
    });

    it('never revokes the calling key through another spelling of its id (ids are exact strings)', async () => {
      const tenant = await createTenant(t);
      const response = await revoke(tenant.admin.secret, tenant.admin.id.toUpperCase());

      expectProblem(response, 404, 'not_found');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it('rotates: a new unrestricted admin key revokes the old one; the old gets 401, the new works', async () => {
      const tenant = await createTenant(t);
      const replacement = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: 'replacement' });

      const response = await revoke(replacement.secret, tenant.admin.id);

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: tenant.admin.id, revoked_at: expect.stringMatching(TIMESTAMP) });
      expectProblem(await getMerchant(tenant.admin.secret), 401, 'unauthenticated');
      const merchant = await getMerchant(replacement.secret);
      expect(merchant.status).toBe(200);
      expect(merchant.body.id).toBe(tenant.merchantId);
      expect((await post(replacement.secret, { name: 'after rotation', scopes: ['admin'] })).status).toBe(201);
    });

    it('lets a store-bound admin key revoke a key of its own store', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const target = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });

      const response = await revoke(bound.secret, target.id);

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: target.id, store_id: tenant.storeId, revoked_at: expect.stringMatching(TIMESTAMP) });
    });

    it('answers 404 when a store-bound admin key revokes a key of another store of the same merchant, which still works', async () => {
      const tenant = await createTenant(t);
      const otherStore = await createStore(t, tenant.admin.secret);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const target = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: otherStore });

      const response = await revoke(bound.secret, target.id);

      expectProblem(response, 404, 'not_found');
      expect((await t.http().get(`/v1/stores/${otherStore}`).set(bearer(target.secret))).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, target.id))?.revoked_at).toBeNull();
    });

    it('answers 404 when a store-bound admin key revokes an unrestricted key, which still works', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const response = await revoke(bound.secret, tenant.admin.id);

      expectProblem(response, 404, 'not_found');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it("answers 404 to another merchant's key id, and that key still works", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const foreign = await issueKey(t, other.admin.secret, { scopes: ['admin'], store_id: other.storeId });

      const forKey = await revoke(tenant.admin.secret, foreign.id);
      const forAdmin = await revoke(tenant.admin.secret, other.admin.id);
      const missing = await revoke(tenant.admin.secret, randomUUID());

      expectProblem(forKey, 404, 'not_found');
      expectProblem(forAdmin, 404, 'not_found');
      expectProblem(missing, 404, 'not_found');
      expect(forKey.body.detail).toBe(missing.body.detail);
      expect((await t.http().get(`/v1/stores/${other.storeId}`).set(bearer(foreign.secret))).status).toBe(200);
      expect((await getMerchant(other.admin.secret)).status).toBe(200);
      expect((await keyRecord(other.admin.secret, foreign.id))?.revoked_at).toBeNull();
    });

    it('answers 404 to a key id that is not a uuid', async () => {
      const tenant = await createTenant(t);
      expectProblem(await revoke(tenant.admin.secret, 'not-a-key-id'), 404, 'not_found');
    });

    it.each([[['events']], [['catalog', 'fit', 'events', 'analytics']]])(
      'refuses a non-admin key with scopes %j with 403 insufficient_scope, and the target still works',
      async (scopes) => {
        const tenant = await createTenant(t);
        const caller = await issueKey(t, tenant.admin.secret, { scopes, store_id: tenant.storeId });
        const target = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

        expectProblem(await revoke(caller.secret, target.id), 403, 'insufficient_scope');
        expectProblem(await revoke(caller.secret, caller.id), 403, 'insufficient_scope');
        expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(target.secret))).status).toBe(200);
      },
    );

    it('refuses the operator key with 403 insufficient_scope', async () => {
      const tenant = await createTenant(t);
      expectProblem(await revoke(OPERATOR_KEY, tenant.admin.id), 403, 'insufficient_scope');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
    });
  });

  describe('revocation racing requests', () => {
    const DELETE_DELAY_MS = 2;

    interface Outcome {
      readonly status: number;
      readonly sentAfterRevocation: boolean;
    }

    /**
     * Sends `before` requests, then the DELETE, then `during` more while it is in flight (a few per millisecond), and
     * `after` more once it has answered. Records, for each request, whether the DELETE had already answered when the
     * request was sent.
     */
    async function race(send: () => Promise<Response>, revocation: () => Promise<Response>, before = 10, during = 10, after = 10) {
      let revoked = false;
      const one = async (): Promise<Outcome> => {
        const sentAfterRevocation = revoked;
        const response = await send();
        return { status: response.status, sentAfterRevocation };
      };
      const early = Array.from({ length: before }, one);
      // Let the first requests reach the service before the DELETE does.
      await sleep(DELETE_DELAY_MS);
      const deletion = revocation().then((response) => {
        revoked = true;
        return response;
      });
      const inFlight = Array.from({ length: during }, async (_, i) => {
        await sleep(Math.floor(i / 3));
        return one();
      });
      const late = deletion.then(() => Promise.all(Array.from({ length: after }, one)));
      const [deleted, outcomes, lateOutcomes] = await Promise.all([deletion, Promise.all([...early, ...inFlight]), late]);
      return { deleted, outcomes: [...outcomes, ...lateOutcomes] };
    }

    function expectRaceOutcome(deleted: Response, outcomes: Outcome[]): void {
      expect(deleted.status).toBe(200);
      expect(outcomes).toHaveLength(30);
      for (const outcome of outcomes) expect([200, 401]).toContain(outcome.status);
      const late = outcomes.filter((o) => o.sentAfterRevocation);
      expect(late.length).toBeGreaterThanOrEqual(10);
      expect(late.map((o) => o.status)).toEqual(late.map(() => 401));
    }

    it('answers 200 or 401 (never 500) to an admin key revoked mid-flight, and 401 to everything sent after', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });

      const { deleted, outcomes } = await race(
        () => getMerchant(key.secret),
        () => revoke(tenant.admin.secret, key.id),
      );

      expectRaceOutcome(deleted, outcomes);
      expectProblem(await getMerchant(key.secret), 401, 'unauthenticated');
    });

    it('answers 200 or 401 (never 500) to a store-bound key revoked mid-flight on its store, and 401 to everything sent after', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const { deleted, outcomes } = await race(
        () => t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret)),
        () => revoke(tenant.admin.secret, key.id),
      );

      expectRaceOutcome(deleted, outcomes);
    });

    it('answers 200 with the same revoked_at to 20 concurrent revocations of one key', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });

      const responses = await Promise.all(Array.from({ length: 20 }, () => revoke(tenant.admin.secret, key.id)));

      expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
      const revokedAt = responses[0].body.revoked_at as string;
      expect(revokedAt).toMatch(TIMESTAMP);
      for (const response of responses) expect(response.body).toEqual(responses[0].body);
      expect((await keyRecord(tenant.admin.secret, key.id))?.revoked_at).toBe(revokedAt);
    });
  });

  describe('expiry', () => {
    it('accepts a key until its expires_at and answers 401 once it has passed', async () => {
      const tenant = await createTenant(t);
      const expiresAt = new Date(Date.now() + 2_000).toISOString();
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], expires_at: expiresAt });
      expect(key).toMatchObject({ expires_at: expiresAt });

      expect((await getMerchant(key.secret)).status).toBe(200);

      await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 500);
      const late = await getMerchant(key.secret);
      expectProblem(late, 401, 'unauthenticated');
      expect(late.headers['www-authenticate']).toMatch(/^Bearer\b/);
      const unknown = await t.http().get('/v1/merchant');
      expect({ ...late.body, request_id: null }).toEqual({ ...unknown.body, request_id: null });

      // An expired key is still listed, not revoked.
      expect(await keyRecord(tenant.admin.secret, key.id)).toMatchObject({ expires_at: expiresAt, revoked_at: null });
    });
  });

  describe('last_used_at', () => {
    it('is null before the first use, set by the first use, and not rewritten by a second use within a minute', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      expect(key).toMatchObject({ last_used_at: null });
      expect((await keyRecord(tenant.admin.secret, key.id))?.last_used_at).toBeNull();

      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret))).status).toBe(200);
      const first = (await keyRecord(tenant.admin.secret, key.id))?.last_used_at;
      expect(first).toMatch(TIMESTAMP);

      await sleep(20);
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret))).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, key.id))?.last_used_at).toBe(first);
    });

    it('is not set by a failed attempt with a revoked key', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      expect((await revoke(tenant.admin.secret, key.id)).status).toBe(200);
      expectProblem(await getMerchant(key.secret), 401, 'unauthenticated');
      expect((await keyRecord(tenant.admin.secret, key.id))?.last_used_at).toBeNull();
    });
  });
});
