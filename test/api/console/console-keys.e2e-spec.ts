import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { bearer, type TestApp, useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  ConsoleClient,
  expectErrorPage,
  expectFieldErrors,
  expectPage,
  expectSeeOther,
  fieldErrors,
  findAll,
  type Form,
  keyRows,
  newSecret,
  SECRET_IN_TEXT,
  signUp,
} from '../../support/console-client.js';
import { db, type KeyRecord, keyIds, keysOf, PLATFORM } from '../../support/console-fixtures.js';
import { createStore, createTenant, expectProblem, issueKey } from '../../support/fixtures.js';
import { addDays, dateOf, today } from '../../support/metrics-fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: the store keys, issued, listed and revoked on the store page.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

const SECRET = /^sfk_[0-9A-Za-z]{46}$/;

/** A key's answer on a route its scopes allow (fit: the store's sessions). */
const listSessions = (t: TestApp, storeId: string, secret: string) => t.http().get(`/v1/stores/${storeId}/sessions`).set(bearer(secret));

// ———————————————————————————————————————— the console ————————————————————————————————————————

describe('seller console', () => {
  const t = useApp({ platform: PLATFORM });
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

  // ——— keys ———

  describe('store keys', () => {
    const issue = (client: ConsoleClient, storeId: string, form: Form) => client.post(`/console/stores/${storeId}/keys`, form);

    it('issues a key bound to the store: 201 showing its secret once, usable on the routes its scopes allow', async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const client = await signUp(t, tenant);
      const page = await client.page(`/console/stores/${tenant.storeId}`);
      expect(findAll(page.text, 'form', { action: `/console/stores/${tenant.storeId}/keys` })).toHaveLength(1);

      const response = await issue(client, tenant.storeId, { name: 'Checkout backend', scopes: ['fit', 'events'] });

      expectPage(response, 201);
      const secret = newSecret(response.text) as string;
      expect(secret).toMatch(SECRET);
      expect(response.text.match(SECRET_IN_TEXT)).toEqual([secret]);
      const record = (await keysOf(t, tenant)).find((key) => key.prefix === secret.slice(0, 8)) as KeyRecord;
      expect(record).toMatchObject({ name: 'Checkout backend', store_id: tenant.storeId, expires_at: null, revoked_at: null });
      expect([...record.scopes].sort()).toEqual(['events', 'fit']);
      const row = keyRows(response.text).find((r) => r.id === record.id);
      expect(row).toMatchObject({ status: 'active' });

      // the scopes it has, on its store only
      expect((await listSessions(t, tenant.storeId, secret)).status).toBe(200);
      expect((await t.http().get(`/v1/stores/${tenant.storeId}/events`).set(bearer(secret))).status).toBe(200);
      expectProblem(await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(secret)), 403, 'insufficient_scope');
      expectProblem(await t.http().get(`/v1/stores/${tenant.storeId}/metrics`).set(bearer(secret)), 403, 'insufficient_scope');
      expectProblem(await listSessions(t, sibling, secret), 403, 'store_forbidden');
      expectProblem(await t.http().get('/v1/api-keys').set(bearer(secret)), 403, 'insufficient_scope');

      // shown once: the store page lists it by its prefix, without the secret
      const reloaded = await client.page(`/console/stores/${tenant.storeId}`);
      expect(newSecret(reloaded.text)).toBeUndefined();
      expect(reloaded.text).not.toContain(secret);
      expect(reloaded.text.match(SECRET_IN_TEXT)).toBeNull();
      const listed = keyRows(reloaded.text).find((r) => r.id === record.id);
      expect(listed).toMatchObject({ status: 'active', revokeAction: `/console/stores/${tenant.storeId}/keys/${record.id}/revoke` });
      expect(listed?.text).toContain(record.prefix);
      expect(listed?.text).toContain('Checkout backend');
    });

    it('issues a key that expires at 00:00 UTC of the date given', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      const date = addDays(today(), 10);

      const response = await issue(client, tenant.storeId, { name: 'Expiring', scopes: ['analytics'], expires_at: date });

      expectPage(response, 201);
      const secret = newSecret(response.text) as string;
      const record = (await keysOf(t, tenant)).find((key) => key.prefix === secret.slice(0, 8));
      expect(record).toMatchObject({
        name: 'Expiring',
        store_id: tenant.storeId,
        scopes: ['analytics'],
        expires_at: `${date}T00:00:00.000Z`,
      });
      expect((await t.http().get(`/v1/stores/${tenant.storeId}/metrics`).set(bearer(secret))).status).toBe(200);
    });

    const yearAhead = (days: number) => {
      const at = new Date(`${today()}T00:00:00Z`);
      at.setUTCFullYear(at.getUTCFullYear() + 1);
      return addDays(dateOf(at.getTime()), days);
    };

    it.each([
      ['no scope', { name: 'No scope' }, 'scopes'],
      ['an unknown scope', { name: 'Owner', scopes: ['owner'] }, 'scopes'],
      ['an empty name', { name: '', scopes: ['fit'] }, 'name'],
      ['a name of spaces', { name: '   ', scopes: ['fit'] }, 'name'],
      ['a name of 201 characters', { name: 'n'.repeat(201), scopes: ['fit'] }, 'name'],
      ['an expiry yesterday', { name: 'Past', scopes: ['fit'], expires_at: () => addDays(today(), -1) }, 'expires_at'],
      ['an expiry today (00:00 UTC has passed)', { name: 'Today', scopes: ['fit'], expires_at: () => today() }, 'expires_at'],
      ['an expiry more than a year ahead', { name: 'Far', scopes: ['fit'], expires_at: () => yearAhead(2) }, 'expires_at'],
      ['an expiry that is not a date', { name: 'Bad', scopes: ['fit'], expires_at: 'next week' }, 'expires_at'],
      ['an expiry on a day that does not exist', { name: 'Bad', scopes: ['fit'], expires_at: '2031-02-30' }, 'expires_at'],
    ])('answers 422 on the field and issues nothing for %s', async (_label, input, field) => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);
      const before = await keyIds(t, tenant);
      const { expires_at, ...rest } = input as { expires_at?: string | (() => string) } & Record<string, string | string[]>;
      const form: Form = {
        ...rest,
        ...(expires_at === undefined ? {} : { expires_at: typeof expires_at === 'function' ? expires_at() : expires_at }),
      };

      const response = await issue(client, tenant.storeId, form);

      expectFieldErrors(response, [field]);
      // said in the form's words, not the API's field names
      expect(Object.values(fieldErrors(response.text)).join(' ')).not.toMatch(/expires_at|store_id/);
      expect(newSecret(response.text)).toBeUndefined();
      expect(response.text.match(SECRET_IN_TEXT)).toBeNull();
      expect(await keyIds(t, tenant)).toEqual(before);
      // the form is shown again for correction
      expect(findAll(response.text, 'form', { action: `/console/stores/${tenant.storeId}/keys` })).toHaveLength(1);
    });

    it('issues one key per rendering of the form: sent again (a reload of the answer), it issues nothing more', async () => {
      const tenant = await createTenant(t);
      const client = await signUp(t, tenant);
      const formId = (html: string) => findAll(html, 'input', { name: 'form_id' })[0]?.attrs.value ?? '';
      const page = await client.page(`/console/stores/${tenant.storeId}`);
      const form = { name: 'Reloaded', scopes: ['events'], form_id: formId(page.text) };
      expect(form.form_id).toMatch(/^[0-9a-f-]{36}$/);

      const first = await issue(client, tenant.storeId, form);
      expectPage(first, 201);
      const again = await issue(client, tenant.storeId, form);
      expectPage(again, 409);
      expect(findAll(again.text, 'section', { 'data-notice': 'already-issued' })).toHaveLength(1);
      expect(newSecret(again.text)).toBeUndefined();
      expect(again.text.match(SECRET_IN_TEXT)).toBeNull();
      expect((await keysOf(t, tenant)).filter((key) => key.name === 'Reloaded')).toHaveLength(1);

      // Sent twice at once (a double click), still one key.
      const next = { ...form, name: 'Double click', form_id: formId(first.text) };
      expect(next.form_id).not.toBe(form.form_id);
      const both = await Promise.all([issue(client, tenant.storeId, next), issue(client, tenant.storeId, next)]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      expect((await keysOf(t, tenant)).filter((key) => key.name === 'Double click')).toHaveLength(1);

      // A form refused for its values can be corrected and sent with the same id.
      const refused = { name: 'Corrected', scopes: [] as string[], form_id: formId(again.text) };
      expectPage(await issue(client, tenant.storeId, refused), 422);
      expectPage(await issue(client, tenant.storeId, { ...refused, scopes: ['fit'] }), 201);
      // Another account's browser holding the same page issues its own.
      const other = await signUp(t, tenant);
      expectPage(await issue(other, tenant.storeId, { ...next, name: 'Double click' }), 201);
      expect((await keysOf(t, tenant)).filter((key) => key.name === 'Double click')).toHaveLength(2);
    });

    it('revokes a key: 303 to the store page, the row marked revoked, and the key refused by the API', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { name: 'Old backend', scopes: ['fit'], store_id: tenant.storeId });
      expect((await listSessions(t, tenant.storeId, key.secret)).status).toBe(200);
      const client = await signUp(t, tenant);
      const page = await client.page(`/console/stores/${tenant.storeId}`);
      const row = keyRows(page.text).find((r) => r.id === key.id);
      expect(row).toMatchObject({ status: 'active', revokeAction: `/console/stores/${tenant.storeId}/keys/${key.id}/revoke` });

      const response = await client.post(row?.revokeAction as string);

      expectSeeOther(response, `/console/stores/${tenant.storeId}`);
      const after = await client.page(`/console/stores/${tenant.storeId}`);
      expect(keyRows(after.text).find((r) => r.id === key.id)).toMatchObject({ status: 'revoked', revokeAction: undefined });
      expect((await listSessions(t, tenant.storeId, key.secret)).status).toBe(401);
      expect((await keysOf(t, tenant)).find((k) => k.id === key.id)?.revoked_at).toEqual(expect.any(String));
    });

    it("lists this store's keys only, revoked and expired ones included, never the merchant admin key or another store's", async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const active = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      const revoked = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      expect((await t.http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      const expired = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: tenant.storeId });
      await db(t).query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
      const elsewhere = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: sibling });
      const client = await signUp(t, tenant);

      const page = await client.page(`/console/stores/${tenant.storeId}`);

      const rows = keyRows(page.text);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
        [active.id]: 'active',
        [revoked.id]: 'revoked',
        [expired.id]: 'expired',
      });
      expect(page.text).not.toContain(elsewhere.id);
      expect(page.text).not.toContain(tenant.admin.id);
      expect(rows.filter((r) => r.revokeAction !== undefined).map((r) => r.id)).toEqual([active.id]);
    });

    it("answers 404 to revoking, through this store's page, a key of another store of the merchant, and revokes nothing", async () => {
      const tenant = await createTenant(t);
      const sibling = await createStore(t, tenant.admin.secret);
      const theirs = await issueKey(t, tenant.admin.secret, { scopes: ['fit'], store_id: sibling });
      const client = await signUp(t, tenant);
      await client.page(`/console/stores/${tenant.storeId}`);

      for (const keyId of [theirs.id, tenant.admin.id, randomUUID(), 'not-a-key']) {
        const response = await client.post(`/console/stores/${tenant.storeId}/keys/${keyId}/revoke`);
        expectErrorPage(response, 404, 'not_found');
      }

      expect((await listSessions(t, sibling, theirs.secret)).status).toBe(200);
      expect((await t.http().get('/v1/merchant').set(bearer(tenant.admin.secret))).status).toBe(200);
      expect((await keysOf(t, tenant)).filter((key) => key.revoked_at !== null)).toEqual([]);
    });

    it("answers 404 for another merchant's store: its page, its key form and its keys, changing nothing", async () => {
      const mine = await createTenant(t);
      const theirs = await createTenant(t);
      const theirStore = (await t.http().get(`/v1/stores/${theirs.storeId}`).set(bearer(theirs.admin.secret))).body.name as string;
      const theirKey = await issueKey(t, theirs.admin.secret, { name: 'Their backend', scopes: ['fit'], store_id: theirs.storeId });
      const client = await signUp(t, mine);
      await client.page(`/console/stores/${mine.storeId}`);
      const before = await keyIds(t, theirs);

      const answers = [
        await client.get(`/console/stores/${theirs.storeId}`),
        await client.post(`/console/stores/${theirs.storeId}/keys`, { name: 'Intruder', scopes: ['admin'] }),
        await client.post(`/console/stores/${theirs.storeId}/keys/${theirKey.id}/revoke`),
        await client.post(`/console/stores/${mine.storeId}/keys/${theirKey.id}/revoke`),
        await client.get(`/console/stores/${randomUUID()}`),
        await client.get('/console/stores/not-a-store'),
      ];

      for (const response of answers) {
        expectErrorPage(response, 404, 'not_found');
        expect(response.text).not.toContain('Their backend');
        expect(response.text).not.toContain(`>${theirStore}<`);
      }
      expect(await keyIds(t, theirs)).toEqual(before);
      expect((await listSessions(t, theirs.storeId, theirKey.secret)).status).toBe(200);
    });
  });
});
