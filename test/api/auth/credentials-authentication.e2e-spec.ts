/** Credentials e2e: authentication — every way a key can fail gets the same 401 and Bearer challenge. */
import { describe, expect, it } from '@jest/globals';
import { generateSecret, MERCHANT_KEY_PREFIX, OPERATOR_KEY_PREFIX } from '../../../src/common/crypto/key-secret.js';
import { apiKeyRequests } from '../../support/api-key-fixtures.js';
import { bearer, useApp } from '../../support/app.js';
import { createTenant, expectUnauthenticated, issueKey, problemShape } from '../../support/fixtures.js';

describe('credentials', () => {
  const t = useApp();
  const { getMerchant } = apiKeyRequests(t);

  describe('authentication', () => {
    it('answers 401 unauthenticated with a Bearer challenge when no key is sent', async () => {
      const response = await t.http().get('/v1/merchant');
      expectUnauthenticated(response);
    });

    it('answers 401 to a well-formed key that the service never issued', async () => {
      const response = await getMerchant(generateSecret(MERCHANT_KEY_PREFIX));
      expectUnauthenticated(response);
    });

    it('answers 401 to a real key with one character changed', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      const last = secret.at(-1) === 'a' ? 'b' : 'a';
      const response = await getMerchant(secret.slice(0, -1) + last);
      expectUnauthenticated(response);
    });

    it('answers 401 to an operator-shaped key that is not the operator key', async () => {
      const response = await t
        .http()
        .post('/v1/merchants')
        .set(bearer(generateSecret(OPERATOR_KEY_PREFIX)))
        .send({ name: 'Nobody' });
      expectUnauthenticated(response);
    });

    it.each([
      ['a Basic scheme', (secret: string) => `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`],
      ['the scheme alone', () => 'Bearer'],
      ['an empty token', () => 'Bearer '],
      ['two tokens', (secret: string) => `Bearer ${secret} ${secret}`],
      ['no scheme', (secret: string) => secret],
      ['a token of garbage', () => 'Bearer not-a-key'],
    ])('answers 401 to a malformed Authorization header: %s', async (_label, header) => {
      const tenant = await createTenant(t);
      const response = await t.http().get('/v1/merchant').set('Authorization', header(tenant.admin.secret));
      expectUnauthenticated(response);
    });

    it('gives one and the same 401 body for no key, an unknown key, a malformed header and a revoked key', async () => {
      const tenant = await createTenant(t);
      const revoked = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const revocation = await t.http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(tenant.admin.secret));
      expect(revocation.status).toBe(200);

      const answers = [
        await t.http().get('/v1/merchant'),
        await getMerchant(generateSecret(MERCHANT_KEY_PREFIX)),
        await t.http().get('/v1/merchant').set('Authorization', 'Bearer'),
        await getMerchant(revoked.secret),
      ];
      for (const answer of answers) expectUnauthenticated(answer);
      const shapes = answers.map(problemShape);
      for (const shape of shapes.slice(1)) expect(shape).toEqual(shapes[0]);
      expect(new Set(answers.map((a) => a.headers['www-authenticate'])).size).toBe(1);
    });
  });
});
