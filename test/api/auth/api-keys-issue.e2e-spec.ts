/**
 * API keys e2e: POST /v1/api-keys — what a new key is, how its name, scopes, store_id and expires_at are checked,
 * and who may issue one.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { apiKeyRequests, KEY_RECORD_FIELDS, oneYearAhead, SECRET_PATTERN } from '../../support/api-key-fixtures.js';
import { bearer, useApp } from '../../support/app.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Key, TIMESTAMP, UUID } from '../../support/fixtures.js';

describe('API keys', () => {
  const t = useApp();
  const { post, allKeys, keyRecord } = apiKeyRequests(t);

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
      it('answers `required` on name when it is left out, and `must_be_string` when it is not a string', async () => {
        const tenant = await createTenant(t);
        expectErrors(await post(tenant.admin.secret, { scopes: ['admin'] }), [{ field: 'name', code: 'required' }]);
        expectErrors(await post(tenant.admin.secret, { scopes: ['admin'], name: 42 }), [{ field: 'name', code: 'must_be_string' }]);
        expectErrors(await post(tenant.admin.secret, { scopes: ['admin'], name: null }), [{ field: 'name', code: 'must_be_string' }]);
      });

      it.each([
        ['missing', {}],
        ['empty', { name: '' }],
        ['not a string', { name: 42 }],
        ['longer than 200 characters', { name: 'x'.repeat(201) }],
      ])('answers 400 validation_failed on name when it is %s', async (_label, name) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { scopes: ['admin'], ...name });
        expectErrors(response, { name: undefined });
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
        expectErrors(response, { scopes: undefined });
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
          expectErrors(response, { store_id: undefined });
          expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
        },
      );

      it('answers 400 on store_id when store_id is null for a non-admin key', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'unbound', scopes: ['events'], store_id: null });
        expectErrors(response, { store_id: undefined });
      });

      const FOREIGN_STORES: Array<[string, () => Promise<string>]> = [
        ['a store of another merchant', async () => (await createTenant(t)).storeId],
        ['a uuid that names no store', async () => randomUUID()],
        ['not a uuid', async () => 'not-a-store-id'],
      ];

      it.each(FOREIGN_STORES)('answers 400 unknown_store on store_id when it is %s, and issues nothing', async (_label, storeId) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'foreign', scopes: ['events'], store_id: await storeId() });
        expectErrors(response, { store_id: 'unknown_store' });
        expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
      });

      it.each(FOREIGN_STORES)('answers 400 unknown_store for a store-bound admin key when store_id is %s', async (_label, storeId) => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'foreign', scopes: ['admin'], store_id: await storeId() });
        expectErrors(response, { store_id: 'unknown_store' });
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
        expectErrors(response, { expires_at: 'not_in_future' });
      });

      it('answers 400 too_far_in_future when expires_at is more than one year ahead', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'far', scopes: ['admin'], expires_at: oneYearAhead(60 * 60_000) });
        expectErrors(response, { expires_at: 'too_far_in_future' });
      });

      it('answers 400 too_far_in_future when expires_at is a minute over one year ahead', async () => {
        const tenant = await createTenant(t);
        const response = await post(tenant.admin.secret, { name: 'far', scopes: ['admin'], expires_at: oneYearAhead(60_000) });
        expectErrors(response, { expires_at: 'too_far_in_future' });
      });

      it('answers 400 too_precise to digits past the millisecond, as for an event, and takes trailing zeros', async () => {
        const tenant = await createTenant(t);
        const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19);
        const precise = await post(tenant.admin.secret, { name: 'precise', scopes: ['admin'], expires_at: `${day}.1234Z` });
        expectErrors(precise, { expires_at: 'too_precise' });
        const zeros = await post(tenant.admin.secret, { name: 'zeros', scopes: ['admin'], expires_at: `${day}.123000Z` });
        expect(zeros.status).toBe(201);
        expect(zeros.body.expires_at).toBe(`${day}.123Z`);
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
        expectErrors(response, { expires_at: undefined });
        expect((await allKeys(tenant.admin.secret)).map((k) => k.id)).toEqual([tenant.admin.id]);
      });
    });

    it('answers 400 validation_failed to an unknown field', async () => {
      const tenant = await createTenant(t);
      const response = await post(tenant.admin.secret, { name: 'typo', scopes: ['admin'], scope: ['events'] });
      expectErrors(response, { scope: 'unknown_field' });
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
});
