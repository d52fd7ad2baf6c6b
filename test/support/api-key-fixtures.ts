import { expect } from '@jest/globals';
import { bearer, type TestApp } from './app.js';

/** The fields of an API key record, exactly: the create response adds `secret`, nothing else ever does. */
export const KEY_RECORD_FIELDS = [
  'created_at',
  'expires_at',
  'id',
  'last_used_at',
  'name',
  'prefix',
  'revoked_at',
  'scopes',
  'store_id',
].sort();

/** An API key secret, as the create response shows it once. */
export const SECRET_PATTERN = /^sfk_[0-9A-Za-z]{46}$/;

export type KeyRecord = Record<string, unknown> & { id: string; revoked_at: string | null; last_used_at: string | null };

/**
 * The API key tests' requests on the app `t`, each with a key: issue, list and revoke keys, read the merchant, and
 * read the merchant's key records. Call it in a `describe` block; use what it returns in tests.
 */
export function apiKeyRequests(t: TestApp) {
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

  return { post, list, revoke, getMerchant, allKeys, keyRecord };
}

/** now + one calendar year + `deltaMs`, as the service counts a year. */
export function oneYearAhead(deltaMs: number): string {
  const at = new Date();
  at.setUTCFullYear(at.getUTCFullYear() + 1);
  return new Date(at.getTime() + deltaMs).toISOString();
}
