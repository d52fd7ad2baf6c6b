import { expect } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { PlatformConfig } from '../../src/config/app.config.js';
import { bearer, type TestApp } from './app.js';
import type { ConsoleClient } from './console-client.js';
import type { Tenant } from './fixtures.js';
import { standinConfig } from './platform-standin.js';

/**
 * What the seller console tests (docs/decisions/005-seller-console.md) read besides its pages: the console's rows in
 * the database and the merchant's keys through the API, plus a platform for the apps they start. The pages
 * themselves are read through test/support/console-client.ts.
 */

/** A shop domain of the platform, as a merchant types it in the connect form. */
export const SHOP = 'demo-shop.myshopify.com';

/** A configured platform, so that connect/disconnect have something to refuse or do (no request ever reaches it). */
export const PLATFORM: PlatformConfig = standinConfig(
  { baseUrl: 'http://127.0.0.1:9/shops/{shop}', clientId: 'console-test-client', clientSecret: randomBytes(16).toString('hex') },
  { scopes: ['read_products'], timeoutMs: 500 },
);

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const db = (t: TestApp) => t.app.get(DataSource);

// ———————————————————————————————————————— accounts and sessions ————————————————————————————————————————

export async function accountRows(t: TestApp, where: { merchantId?: string; email?: string }): Promise<Record<string, unknown>[]> {
  if (where.email !== undefined) return db(t).query('SELECT * FROM console_accounts WHERE email = $1', [where.email]);
  return db(t).query('SELECT * FROM console_accounts WHERE merchant_id = $1', [where.merchantId]);
}

export interface SessionRow {
  id: string;
  account_id: string;
  token_digest: string;
  created_at: Date;
  refreshed_at: Date;
  expires_at: Date;
}

/** The console_sessions row of the client's session cookie, if there is one. */
export async function sessionOf(t: TestApp, client: ConsoleClient): Promise<SessionRow | undefined> {
  const token = client.cookie('sf_console');
  if (token === undefined) return undefined;
  const rows: SessionRow[] = await db(t).query('SELECT * FROM console_sessions WHERE token_digest = $1', [sha256(token)]);
  return rows[0];
}

export async function sessionsOfEmail(t: TestApp, email: string): Promise<number> {
  const rows: { n: string | number }[] = await db(t).query(
    'SELECT count(*) AS n FROM console_sessions s JOIN console_accounts a ON a.id = s.account_id WHERE a.email = $1',
    [email],
  );
  return Number(rows[0].n);
}

// ———————————————————————————————————————— keys ————————————————————————————————————————

export interface KeyRecord {
  id: string;
  name: string;
  store_id: string | null;
  scopes: string[];
  prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Every key of the merchant, through the API. */
export async function keysOf(t: TestApp, tenant: Tenant): Promise<KeyRecord[]> {
  const response = await t.http().get('/v1/api-keys?limit=100').set(bearer(tenant.admin.secret));
  expect(response.status).toBe(200);
  expect(response.body.has_more).toBe(false);
  return response.body.data as KeyRecord[];
}

export const keyIds = async (t: TestApp, tenant: Tenant) => (await keysOf(t, tenant)).map((key) => key.id).sort();
