/** Credentials e2e: a key sent anywhere — unknown, mistyped, revoked, refused, in the query or body — is never echoed. */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { generateSecret, MERCHANT_KEY_PREFIX } from '../../../src/common/crypto/key-secret.js';
import { apiKeyRequests } from '../../support/api-key-fixtures.js';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import { createTenant, expectProblem, expectUnauthenticated, issueKey } from '../../support/fixtures.js';

describe('credentials', () => {
  const t = useApp();
  const { getMerchant } = apiKeyRequests(t);

  describe('secrets in error bodies', () => {
    function expectNoSecret(response: Response, secret: string): void {
      expect(response.text).not.toContain(secret);
      expect(response.text).not.toContain(secret.slice(8));
      expect(JSON.stringify(response.headers)).not.toContain(secret.slice(8));
    }

    it('never echoes an unknown key', async () => {
      const secret = generateSecret(MERCHANT_KEY_PREFIX);
      const response = await getMerchant(secret);
      expectUnauthenticated(response);
      expectNoSecret(response, secret);
    });

    it('never echoes a mistyped key', async () => {
      const tenant = await createTenant(t);
      const wrong = `${tenant.admin.secret.slice(0, -1)}${tenant.admin.secret.endsWith('x') ? 'y' : 'x'}`;
      const response = await getMerchant(wrong);
      expectUnauthenticated(response);
      expectNoSecret(response, wrong);
      expectNoSecret(response, tenant.admin.secret);
    });

    it('never echoes a revoked key', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      expect((await t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      const response = await getMerchant(key.secret);
      expectUnauthenticated(response);
      expectNoSecret(response, key.secret);
    });

    it('never echoes a valid key that is refused for its scope or its store', async () => {
      const tenant = await createTenant(t);
      const events = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const scope = await t.http().get('/v1/api-keys').set(bearer(events.secret));
      const store = await t.http().get(`/v1/stores/${randomUUID()}`).set(bearer(bound.secret));
      const operator = await t.http().get('/v1/merchant').set(bearer(OPERATOR_KEY));

      expectProblem(scope, 403, 'insufficient_scope');
      expectProblem(store, 403, 'store_forbidden');
      expectProblem(operator, 403, 'insufficient_scope');
      expectNoSecret(scope, events.secret);
      expectNoSecret(store, bound.secret);
      expectNoSecret(operator, OPERATOR_KEY);
    });

    it('refuses a key in the query string with 400 and does not echo it', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      for (const query of [`api_key=${secret}`, `access_token=${secret}`, `q=${secret}`]) {
        const response = await t.http().get(`/v1/merchant?${query}`).set(bearer(secret));
        expectProblem(response, 400, 'validation_failed');
        expectNoSecret(response, secret);
      }
    });

    it('refuses a key in the request body with 400 and does not echo it', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      const inBody = await t.http().post('/v1/stores').set(bearer(secret)).send({ name: 'Store', access_token: secret });
      const asUnknownField = await t.http().post('/v1/stores').set(bearer(secret)).send({ name: 'Store', api_key: secret });

      expectProblem(inBody, 400, 'validation_failed');
      expectProblem(asUnknownField, 400, 'validation_failed');
      expectNoSecret(inBody, secret);
      expectNoSecret(asUnknownField, secret);
    });

    it('does not echo a key sent as a key id in the path', async () => {
      const tenant = await createTenant(t);
      const other = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const response = await t.http().delete(`/v1/api-keys/${other.secret}`).set(bearer(tenant.admin.secret));
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expectNoSecret(response, other.secret);
    });
  });
});
