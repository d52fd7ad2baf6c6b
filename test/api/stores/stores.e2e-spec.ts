import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey } from '../../support/fixtures.js';

interface StoreBody {
  id: string;
  name: string;
  currency: string;
  unit_system: string;
  platform: string | null;
  platform_shop: string | null;
  created_at: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NON_ADMIN_SCOPES = ['catalog', 'fit', 'events', 'analytics'];

describe('stores', () => {
  const t = useApp();

  const getStore = (secret: string, id: string) => t.http().get(`/v1/stores/${id}`).set(bearer(secret));
  const patchStore = (secret: string, id: string, body: object) => t.http().patch(`/v1/stores/${id}`).set(bearer(secret)).send(body);
  const listStores = (secret: string, query = '') => t.http().get(`/v1/stores${query}`).set(bearer(secret));

  describe('POST /v1/stores', () => {
    it('creates a store with currency USD and metric units by default', async () => {
      const { admin } = await createTenant(t);
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Acme EU' });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        id: expect.any(String),
        name: 'Acme EU',
        currency: 'USD',
        unit_system: 'metric',
        platform: null,
        platform_shop: null,
        created_at: expect.stringMatching(TIMESTAMP),
      });
      const read = await getStore(admin.secret, response.body.id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it('keeps the currency and unit system it is given', async () => {
      const { admin } = await createTenant(t);
      const response = await t
        .http()
        .post('/v1/stores')
        .set(bearer(admin.secret))
        .send({ name: 'Acme UK', currency: 'GBP', unit_system: 'imperial' });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ name: 'Acme UK', currency: 'GBP', unit_system: 'imperial', platform: null });
    });

    it.each([
      ['a lower-case currency', { name: 'S', currency: 'eur' }, 'currency'],
      ['a two-letter currency', { name: 'S', currency: 'EU' }, 'currency'],
      ['a currency symbol', { name: 'S', currency: '€' }, 'currency'],
      ['a numeric currency', { name: 'S', currency: 978 }, 'currency'],
      ['a well-formed code that is no currency', { name: 'S', currency: 'ZZZ' }, 'currency'],
      ['the code for no currency', { name: 'S', currency: 'XXX' }, 'currency'],
      ['an unknown unit system', { name: 'S', unit_system: 'cubits' }, 'unit_system'],
      ['an upper-case unit system', { name: 'S', unit_system: 'METRIC' }, 'unit_system'],
      ['no name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
      ['a blank name', { name: ' \t ' }, 'name'],
      ['a platform', { name: 'S', platform: 'shopify' }, 'platform'],
      ['a platform_shop', { name: 'S', platform_shop: 'acme.myshopify.com' }, 'platform_shop'],
      ['an id', { name: 'S', id: '01a200fa-2ffc-76ba-af25-46c685a280e9' }, 'id'],
    ])('refuses %s with 400 and creates nothing', async (_, body, field) => {
      const { admin } = await createTenant(t);
      const before = (await listStores(admin.secret)).body.data.length;
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send(body);
      expectErrors(response, { [field]: undefined });
      expect((await listStores(admin.secret)).body.data).toHaveLength(before);
    });

    it('names the rule a bad currency or unit system breaks', async () => {
      const { admin } = await createTenant(t);
      expectErrors(await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'S', currency: 'eur' }), {
        currency: 'invalid_format',
      });
      const unknown = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'S', currency: 'ZZZ' });
      expectErrors(unknown, { currency: 'not_allowed_value' });
      expect(unknown.body.errors[0].message).toBe('currency must be an ISO 4217 code such as EUR');
      expectErrors(await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'S', unit_system: 'cubits' }), {
        unit_system: 'not_allowed_value',
      });
    });

    it.each(['EUR', 'JPY', 'CHF', 'XOF', 'SEK'])('accepts the ISO 4217 currency %s', async (currency) => {
      const { admin } = await createTenant(t);
      const response = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'S', currency });
      expect({ status: response.status, currency: response.body.currency }).toEqual({ status: 201, currency });
    });

    it('accepts a name of exactly 200 characters', async () => {
      const { admin } = await createTenant(t);
      const response = await t
        .http()
        .post('/v1/stores')
        .set(bearer(admin.secret))
        .send({ name: 'n'.repeat(200) });
      expect(response.status).toBe(201);
      expect(response.body.name).toHaveLength(200);
    });

    it('refuses a store-bound admin key with 403 insufficient_scope', async () => {
      const { admin, storeId } = await createTenant(t);
      const bound = await issueKey(t, admin.secret, { scopes: ['admin'], store_id: storeId });
      const response = await t.http().post('/v1/stores').set(bearer(bound.secret)).send({ name: 'Sneaky' });
      expectProblem(response, 403, 'insufficient_scope');
      const names = (await listStores(admin.secret)).body.data.map((s: StoreBody) => s.name);
      expect(names).not.toContain('Sneaky');
    });

    it.each(NON_ADMIN_SCOPES)('refuses a store-scoped %s key with 403 insufficient_scope', async (scope) => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: [scope], store_id: storeId });
      expectProblem(await t.http().post('/v1/stores').set(bearer(key.secret)).send({ name: 'Nope' }), 403, 'insufficient_scope');
    });

    it('refuses a call without a key with 401', async () => {
      const response = await t.http().post('/v1/stores').send({ name: 'Anonymous' });
      expectProblem(response, 401, 'unauthenticated');
    });
  });

  describe('GET /v1/stores', () => {
    it('lists the merchant’s stores newest first, in pages that follow next_cursor', async () => {
      const { admin, storeId } = await createTenant(t);
      const created = [storeId];
      for (let i = 1; i <= 5; i++) created.push(await createStore(t, admin.secret, `Paged ${i}`));
      const newestFirst = [...created].reverse();

      const seen: string[] = [];
      const pages: { count: number; has_more: boolean }[] = [];
      let cursor: string | null = null;
      do {
        const response = await listStores(admin.secret, `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
        const ids = (response.body.data as StoreBody[]).map((s) => s.id);
        seen.push(...ids);
        pages.push({ count: ids.length, has_more: response.body.has_more });
        if (response.body.has_more) expect(response.body.next_cursor).toBe(ids[ids.length - 1]);
        else expect(response.body.next_cursor).toBeNull();
        cursor = response.body.next_cursor;
        expect(pages.length).toBeLessThanOrEqual(4);
      } while (cursor !== null);

      expect(pages).toEqual([
        { count: 2, has_more: true },
        { count: 2, has_more: true },
        { count: 2, has_more: false },
      ]);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(newestFirst);
    });

    it('returns everything in one page by default, newest first by creation time', async () => {
      const { admin } = await createTenant(t);
      for (let i = 1; i <= 3; i++) await createStore(t, admin.secret, `Ordered ${i}`);
      const response = await listStores(admin.secret);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
      const data = response.body.data as StoreBody[];
      expect(data).toHaveLength(4);
      expect(data.slice(0, 3).map((s) => s.name)).toEqual(['Ordered 3', 'Ordered 2', 'Ordered 1']);
      const times = data.map((s) => Date.parse(s.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('stops at a page that ends exactly at the last store', async () => {
      const { admin, storeId } = await createTenant(t);
      const second = await createStore(t, admin.secret);
      const response = await listStores(admin.secret, '?limit=2');
      expect(response.body.data.map((s: StoreBody) => s.id)).toEqual([second, storeId]);
      expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
    });

    it('never shows another merchant’s stores', async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const response = await listStores(mine.admin.secret, '?limit=100');
      const ids = (response.body.data as StoreBody[]).map((s) => s.id);
      expect(ids).toEqual([mine.storeId]);
      expect(ids).not.toContain(theirs.storeId);
    });

    it.each([
      ['limit=0', 'limit', 'too_small'],
      ['limit=101', 'limit', 'too_large'],
      ['limit=-1', 'limit', 'too_small'],
      ['limit=abc', 'limit', 'must_be_integer'],
      ['limit=2.5', 'limit', 'must_be_integer'],
      // only digits are a number: not hexadecimal, an exponent, padding or nothing
      ['limit=0x10', 'limit', 'must_be_integer'],
      ['limit=1e1', 'limit', 'must_be_integer'],
      ['limit=%205', 'limit', 'must_be_integer'],
      ['limit=', 'limit', 'must_be_integer'],
      ['starting_after=not-an-id', 'starting_after', 'must_be_id'],
      ['sort=name', 'sort', 'unknown_field'],
    ])('refuses ?%s with 400 naming the parameter', async (query, field, code) => {
      const { admin } = await createTenant(t);
      expectErrors(await listStores(admin.secret, `?${query}`), { [field]: code });
    });

    it('accepts the limit bounds 1 and 100', async () => {
      const { admin } = await createTenant(t);
      expect((await listStores(admin.secret, '?limit=1')).status).toBe(200);
      expect((await listStores(admin.secret, '?limit=100')).status).toBe(200);
    });

    it('shows a store-bound admin key only its own store', async () => {
      const { admin, storeId } = await createTenant(t);
      await createStore(t, admin.secret, 'Other store');
      const bound = await issueKey(t, admin.secret, { scopes: ['admin'], store_id: storeId });
      const response = await listStores(bound.secret);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(response.body.data.map((s: StoreBody) => s.id)).toEqual([storeId]);
    });

    it.each(NON_ADMIN_SCOPES)('refuses a store-scoped %s key with 403 insufficient_scope', async (scope) => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: [scope], store_id: storeId });
      expectProblem(await listStores(key.secret), 403, 'insufficient_scope');
    });

    it('refuses a key holding every non-admin scope with 403 insufficient_scope', async () => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: NON_ADMIN_SCOPES, store_id: storeId });
      expectProblem(await listStores(key.secret), 403, 'insufficient_scope');
      expectProblem(await getStore(key.secret, storeId), 403, 'insufficient_scope');
    });
  });

  describe('GET /v1/stores/{store_id}', () => {
    it('answers with the store', async () => {
      const { admin } = await createTenant(t);
      const created = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Read me', currency: 'SEK' });
      const response = await getStore(admin.secret, created.body.id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(created.body);
    });

    it('answers another merchant’s store with 404, as if it did not exist', async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const foreign = await getStore(mine.admin.secret, theirs.storeId);
      const missing = await getStore(mine.admin.secret, '01a200fa-2ffc-76ba-af25-46c685a280e9');
      expectProblem(foreign, 404, 'not_found');
      expectProblem(missing, 404, 'not_found');
      expect(foreign.body.detail).toBe(missing.body.detail);
      expect(foreign.text).not.toContain(theirs.storeId);
    });

    it('answers an id that is not an id with 404', async () => {
      const { admin } = await createTenant(t);
      expectProblem(await getStore(admin.secret, 'not-a-store'), 404, 'not_found');
    });

    it('lets a store-bound admin key read its store and refuses any other with 403 store_forbidden', async () => {
      const mine = await createTenant(t);
      const sibling = await createStore(t, mine.admin.secret);
      const theirs = await createTenant(t);
      const bound = await issueKey(t, mine.admin.secret, { scopes: ['admin'], store_id: mine.storeId });

      const own = await getStore(bound.secret, mine.storeId);
      expect(own.status).toBe(200);
      expect(own.body.id).toBe(mine.storeId);

      // Another store of the same merchant, another merchant's store, and no store at all look the same.
      for (const id of [sibling, theirs.storeId, '01a200fa-2ffc-76ba-af25-46c685a280e9', 'not-a-store']) {
        expectProblem(await getStore(bound.secret, id), 403, 'store_forbidden');
      }
    });

    it.each(NON_ADMIN_SCOPES)('refuses a store-scoped %s key on its own store with 403 insufficient_scope', async (scope) => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: [scope], store_id: storeId });
      expectProblem(await getStore(key.secret, storeId), 403, 'insufficient_scope');
    });
  });

  describe('PATCH /v1/stores/{store_id}', () => {
    it('changes only the fields sent', async () => {
      const { admin } = await createTenant(t);
      const created = (await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Before', currency: 'EUR' }))
        .body as StoreBody;

      const renamed = await patchStore(admin.secret, created.id, { name: 'After' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...created, name: 'After' });

      const imperial = await patchStore(admin.secret, created.id, { unit_system: 'imperial' });
      expect(imperial.body).toEqual({ ...created, name: 'After', unit_system: 'imperial' });

      const currency = await patchStore(admin.secret, created.id, { currency: 'CHF' });
      expect(currency.body).toEqual({ ...created, name: 'After', unit_system: 'imperial', currency: 'CHF' });

      expect((await getStore(admin.secret, created.id)).body).toEqual(currency.body);
    });

    it('changes several fields at once', async () => {
      const { admin, storeId } = await createTenant(t);
      const before = (await getStore(admin.secret, storeId)).body as StoreBody;
      const response = await patchStore(admin.secret, storeId, { name: 'Both', currency: 'JPY', unit_system: 'imperial' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...before, name: 'Both', currency: 'JPY', unit_system: 'imperial' });
    });

    it('answers an empty patch with the unchanged store', async () => {
      const { admin, storeId } = await createTenant(t);
      const before = (await getStore(admin.secret, storeId)).body;
      const response = await patchStore(admin.secret, storeId, {});
      expect(response.status).toBe(200);
      expect(response.body).toEqual(before);
    });

    it('leaves other stores alone', async () => {
      const { admin, storeId } = await createTenant(t);
      const other = await createStore(t, admin.secret, 'Untouched');
      await patchStore(admin.secret, storeId, { name: 'Touched' });
      expect((await getStore(admin.secret, other)).body.name).toBe('Untouched');
    });

    it.each([
      ['an unknown field', { colour: 'red' }, 'colour', 'unknown_field'],
      ['platform', { platform: 'shopify' }, 'platform', 'unknown_field'],
      ['platform_shop', { platform_shop: 'acme.myshopify.com' }, 'platform_shop', 'unknown_field'],
      ['id', { id: '01a200fa-2ffc-76ba-af25-46c685a280e9' }, 'id', 'unknown_field'],
      ['created_at', { created_at: '2020-01-01T00:00:00.000Z' }, 'created_at', 'unknown_field'],
      ['a lower-case currency', { currency: 'eur' }, 'currency', 'invalid_format'],
      ['a code that is no currency', { currency: 'ZZZ' }, 'currency', 'not_allowed_value'],
      ['an unknown unit system', { unit_system: 'cubits' }, 'unit_system', 'not_allowed_value'],
      ['an empty name', { name: '' }, 'name', undefined],
      ['a numeric name', { name: 7 }, 'name', 'must_be_string'],
      ['a valid change next to an unknown field', { name: 'Half', colour: 'red' }, 'colour', 'unknown_field'],
    ])('refuses %s with 400 and changes nothing', async (_, body, field, code) => {
      const { admin, storeId } = await createTenant(t);
      const before = (await getStore(admin.secret, storeId)).body;
      expectErrors(await patchStore(admin.secret, storeId, body), { [field]: code });
      expect((await getStore(admin.secret, storeId)).body).toEqual(before);
    });

    it.each(['name', 'currency', 'unit_system'])('refuses %s: null with 400 and changes nothing', async (field) => {
      const { admin, storeId } = await createTenant(t);
      const before = (await getStore(admin.secret, storeId)).body;
      expectErrors(await patchStore(admin.secret, storeId, { [field]: null }), { [field]: undefined });
      expect((await getStore(admin.secret, storeId)).body).toEqual(before);
    });

    it('answers another merchant’s store with 404 and leaves it alone', async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const before = (await getStore(theirs.admin.secret, theirs.storeId)).body;
      expectProblem(await patchStore(mine.admin.secret, theirs.storeId, { name: 'Hijacked' }), 404, 'not_found');
      expect((await getStore(theirs.admin.secret, theirs.storeId)).body).toEqual(before);
    });

    it('lets a store-bound admin key change its store and refuses any other with 403 store_forbidden', async () => {
      const { admin, storeId } = await createTenant(t);
      const sibling = await createStore(t, admin.secret, 'Sibling');
      const bound = await issueKey(t, admin.secret, { scopes: ['admin'], store_id: storeId });

      const own = await patchStore(bound.secret, storeId, { name: 'Mine now' });
      expect(own.status).toBe(200);
      expect(own.body.name).toBe('Mine now');

      expectProblem(await patchStore(bound.secret, sibling, { name: 'Not yours' }), 403, 'store_forbidden');
      expect((await getStore(admin.secret, sibling)).body.name).toBe('Sibling');
      expectProblem(await patchStore(bound.secret, '01a200fa-2ffc-76ba-af25-46c685a280e9', { name: 'x' }), 403, 'store_forbidden');
    });

    it.each(NON_ADMIN_SCOPES)('refuses a store-scoped %s key with 403 insufficient_scope and changes nothing', async (scope) => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: [scope], store_id: storeId });
      const before = (await getStore(admin.secret, storeId)).body;
      expectProblem(await patchStore(key.secret, storeId, { name: 'Scoped' }), 403, 'insufficient_scope');
      expect((await getStore(admin.secret, storeId)).body).toEqual(before);
    });

    it('refuses a revoked key with 401', async () => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: ['admin'], store_id: storeId });
      expect((await t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(admin.secret))).status).toBe(200);
      expectProblem(await patchStore(key.secret, storeId, { name: 'Revoked' }), 401, 'unauthenticated');
    });
  });
});
