/**
 * Credentials e2e: the merchant routes — POST /v1/merchants with the operator key only, GET /v1/merchant for the
 * caller's own.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { generateSecret, MERCHANT_KEY_PREFIX } from '../../../src/common/crypto/key-secret.js';
import { apiKeyRequests, KEY_RECORD_FIELDS, SECRET_PATTERN } from '../../support/api-key-fixtures.js';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import { createTenant, expectProblem, expectUnauthenticated, issueKey, TIMESTAMP, UUID } from '../../support/fixtures.js';

describe('credentials', () => {
  const t = useApp();
  const { getMerchant } = apiKeyRequests(t);

  async function merchantsNamed(name: string): Promise<number> {
    const rows: unknown[] = await t.app.get(DataSource).query('SELECT id FROM merchants WHERE name = $1', [name]);
    return rows.length;
  }

  describe('POST /v1/merchants', () => {
    it('creates a merchant and its first unrestricted admin key with the operator bootstrap key', async () => {
      const name = `Acme ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name });

      expect(response.status).toBe(201);
      const { merchant, api_key: key } = response.body as { merchant: Record<string, unknown>; api_key: Record<string, unknown> };
      expect(Object.keys(response.body as object).sort()).toEqual(['api_key', 'merchant']);
      expect(Object.keys(merchant).sort()).toEqual(['created_at', 'id', 'name']);
      expect(merchant).toEqual({ id: expect.stringMatching(UUID), name, created_at: expect.stringMatching(TIMESTAMP) });

      expect(Object.keys(key).sort()).toEqual([...KEY_RECORD_FIELDS, 'secret'].sort());
      expect(key).toEqual({
        id: expect.stringMatching(UUID),
        name: expect.any(String),
        store_id: null,
        scopes: ['admin'],
        prefix: expect.any(String),
        created_at: expect.stringMatching(TIMESTAMP),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        secret: expect.stringMatching(SECRET_PATTERN),
      });
      expect(key.prefix).toBe((key.secret as string).slice(0, 8));

      const own = await getMerchant(key.secret as string);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(merchant);
    });

    it('gives every merchant a different secret', async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      expect(a.admin.secret).not.toBe(b.admin.secret);
      expect(a.admin.id).not.toBe(b.admin.id);
      expect(a.merchantId).not.toBe(b.merchantId);
    });

    it('refuses a merchant admin key with 403 insufficient_scope and creates nothing', async () => {
      const tenant = await createTenant(t);
      const name = `Refused ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(bearer(tenant.admin.secret)).send({ name });
      expectProblem(response, 403, 'insufficient_scope');
      expect(await merchantsNamed(name)).toBe(0);
    });

    it.each([
      ['no key', {}],
      ['an unknown key', bearer(generateSecret(MERCHANT_KEY_PREFIX))],
      ['a malformed Bearer header', { Authorization: `Bearer ${OPERATOR_KEY} extra` }],
      ['the operator key under another scheme', { Authorization: `Token ${OPERATOR_KEY}` }],
      ['a truncated operator key', bearer(OPERATOR_KEY.slice(0, -1))],
    ])('answers 401 unauthenticated to %s and creates nothing', async (_label, headers: Record<string, string>) => {
      const name = `Refused ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(headers).send({ name });
      expectUnauthenticated(response);
      expect(await merchantsNamed(name)).toBe(0);
    });

    it('answers 400 validation_failed when the name is missing', async () => {
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({});
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));
    });

    it('answers 400 validation_failed to an unknown field', async () => {
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name: 'Acme', plan: 'gold' });
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'plan', code: 'unknown_field' })]);
    });
  });

  describe('GET /v1/merchant', () => {
    it("returns the caller's own merchant, never another one", async () => {
      const nameA = `Alpha ${randomUUID()}`;
      const nameB = `Beta ${randomUUID()}`;
      const a = await createTenant(t, nameA);
      const b = await createTenant(t, nameB);

      const forA = await getMerchant(a.admin.secret);
      const forB = await getMerchant(b.admin.secret);

      expect(forA.status).toBe(200);
      expect(forA.body).toEqual({ id: a.merchantId, name: nameA, created_at: expect.stringMatching(TIMESTAMP) });
      expect(forB.status).toBe(200);
      expect(forB.body).toEqual({ id: b.merchantId, name: nameB, created_at: expect.stringMatching(TIMESTAMP) });
    });

    it("returns the merchant of a store-bound admin key's store", async () => {
      const tenant = await createTenant(t);
      const storeAdmin = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await getMerchant(storeAdmin.secret);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: tenant.merchantId });
    });
  });
});
