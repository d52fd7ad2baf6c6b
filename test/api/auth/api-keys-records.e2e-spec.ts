/**
 * API keys e2e: the records — GET /v1/api-keys (order, pages, store filter, who may list), what the database
 * stores of a secret, expiry, and last_used_at.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { apiKeyRequests, KEY_RECORD_FIELDS, type KeyRecord, oneYearAhead } from '../../support/api-key-fixtures.js';
import { bearer, useApp } from '../../support/app.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Key, TIMESTAMP } from '../../support/fixtures.js';

describe('API keys', () => {
  const t = useApp();
  const { list, revoke, getMerchant, allKeys, keyRecord } = apiKeyRequests(t);

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
      expectErrors(response, { limit: undefined });
    });

    it('answers 400 validation_failed when starting_after is not an id', async () => {
      const tenant = await createTenant(t);
      const response = await list(tenant.admin.secret, '?starting_after=nope');
      expectErrors(response, { starting_after: undefined });
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
