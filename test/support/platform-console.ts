import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, jest } from '@jest/globals';
import { createDecipheriv, randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { startApp, type TestApp } from './app.js';
import { ConsoleClient, findAll, signUp, transcript } from './console-client.js';
import { db, SHOP } from './console-fixtures.js';
import { createTenant, type Tenant } from './fixtures.js';
import {
  type ApproveOptions,
  type CallbackParams,
  callbackQuery,
  standinConfig,
  type StandinPlatform,
  startPlatform,
} from './platform-standin.js';

/**
 * Driving the console's platform connection (docs/decisions/005-seller-console.md, "Platform connection") against the
 * stand-in platform (platform-standin.ts), for the test/api/console/console-platform-*.e2e-spec.ts files: an app wired to a
 * stand-in (`usePlatformConnection`), the connect form and the callback, the stored connection and pending states,
 * and a check that no platform secret appears in any answer.
 */

export const PUBLIC_URL = 'http://127.0.0.1:9';
export const CALLBACK = '/console/platform/callback';
export const SCOPES = ['read_products', 'read_orders'];
/**
 * The console's timeout for the stand-in platform: short enough that a hanging platform is tested in seconds, long
 * enough that a healthy exchange on a busy machine (the stand-in, the service and the tests in one process) is not
 * mistaken for one.
 */
export const TIMEOUT_MS = 1500;

// ---------------------------------------------------------------------------------------------------------------
// Nothing secret in any answer: the requests of the tests go through `seen`, which checks the body, the Location and
// every other header against the platform's client secret, every access token the stand-ins of the test file handed
// out so far, and the token encryption keys; after its block, `usePlatformConnection` audits the service's log and the
// shared client's transcript (sign-up and login pages too), as the test 'console: platform secrets, over the whole
// file' (console-platform-failures.e2e-spec.ts) does for the whole of that file.

/** The stand-ins and token keys of the test file (each test file has its own copy of this module). */
export const platforms: StandinPlatform[] = [];
export const tokenKeys: Buffer[] = [];
/** How many answers `seen` has checked in the test file. */
export let checkedResponses = 0;

export function forbidden(): string[] {
  return [
    ...platforms.flatMap((platform) => [platform.clientSecret, ...platform.tokens]),
    ...tokenKeys.flatMap((key) => [key.toString('base64'), key.toString('hex'), key.toString('base64url')]),
  ];
}

/** `forbidden()`, each value named (for failure messages, which name a secret rather than show it). */
function forbiddenNamed(): Array<{ name: string; value: string }> {
  return [
    ...platforms.flatMap((platform, p) => [
      { name: `the client secret of stand-in ${p + 1}`, value: platform.clientSecret },
      ...platform.tokens.map((token, k) => ({ name: `access token ${k + 1} of stand-in ${p + 1}`, value: token })),
    ]),
    ...tokenKeys.flatMap((key, k) =>
      (['base64', 'hex', 'base64url'] as const).map((encoding) => ({
        name: `token key ${k + 1} (${encoding})`,
        value: key.toString(encoding),
      })),
    ),
  ];
}

/** The names of the secrets that appear in `text`. */
function secretsIn(text: string): string[] {
  return forbiddenNamed()
    .filter((secret) => text.includes(secret.value))
    .map((secret) => secret.name);
}

/** Checks an answer against `forbidden()` (body, Location and every other header) and hands it on. */
export async function seen(pending: PromiseLike<Response>): Promise<Response> {
  const response = await pending;
  const visible = [response.text ?? '', ...Object.values(response.headers).map((value) => String(value))].join('\n');
  const secrets = forbidden();
  const decoded = (() => {
    try {
      return decodeURIComponent(visible);
    } catch {
      return visible;
    }
  })();
  const leaked = secrets.filter((secret) => visible.includes(secret) || decoded.includes(secret));
  expect(leaked).toEqual([]);
  checkedResponses++;
  return response;
}

// ---------------------------------------------------------------------------------------------------------------
// Console helpers, on the shared browser-like client (console-client.ts).

export type ConsoleSession = ConsoleClient & { readonly email: string };

export async function storePage(session: ConsoleSession, storeId: string): Promise<Response> {
  const page = await seen(session.get(`/console/stores/${storeId}`));
  expect(page.status).toBe(200);
  return page;
}

/** `data-connected` of `section#platform` and the section's markup. */
export function platformSection(html: string): { connected: string | undefined; markup: string } {
  const section = findAll(html, 'section', { id: 'platform' })[0];
  return { connected: section?.attrs['data-connected'], markup: section?.inner ?? '' };
}

/** Posts the connect form, by default from a fresh store page (its CSRF token); `fromPage: false` uses the last page's. */
export async function connect(session: ConsoleSession, storeId: string, shop: string, fromPage = true): Promise<Response> {
  if (fromPage) await storePage(session, storeId);
  return seen(session.post(`/console/stores/${storeId}/platform/connect`, { shop }));
}

/** Connect, expecting the redirect to the platform; returns the authorize URL and its state. */
export async function startConnect(session: ConsoleSession, storeId: string, shop = SHOP): Promise<{ location: string; state: string }> {
  const response = await connect(session, storeId, shop);
  expect(response.status).toBe(303);
  const location = response.headers.location as string;
  const state = new URL(location).searchParams.get('state');
  expect(state).toBeTruthy();
  return { location, state: state as string };
}

export function callback(
  session: ConsoleSession | TestApp,
  query: string | Readonly<Record<string, string | undefined>>,
): Promise<Response> {
  const path = `${CALLBACK}?${typeof query === 'string' ? query : callbackQuery(query)}`;
  return seen(session instanceof ConsoleClient ? session.get(path) : session.http().get(path));
}

// ---------------------------------------------------------------------------------------------------------------
// Database and token helpers.

export interface ConnectionRow {
  shop: string;
  scopes: string;
  sealed: Buffer;
  connected_by: string | null;
}

export async function connections(t: TestApp, storeId: string): Promise<ConnectionRow[]> {
  const rows = (await db(t).query('SELECT shop, scopes, token_ciphertext, connected_by FROM platform_connections WHERE store_id = $1', [
    storeId,
  ])) as Array<{ shop: string; scopes: string; token_ciphertext: Uint8Array; connected_by: string | null }>;
  return rows.map((row) => ({
    shop: row.shop,
    scopes: row.scopes,
    sealed: Buffer.from(row.token_ciphertext),
    connected_by: row.connected_by,
  }));
}

export async function pendingStates(
  t: TestApp,
  storeId: string,
): Promise<Array<{ state_digest: string; shop: string; session_id: string; expires_at: Date }>> {
  return db(t).query('SELECT state_digest, shop, session_id, expires_at FROM platform_oauth_states WHERE store_id = $1', [storeId]);
}

/** AES-256-GCM, `'v1' ‖ iv(12) ‖ ciphertext ‖ tag(16)`, the store id as additional data: written from the spec, not from src. */
export function openSealed(key: Buffer, storeId: string, sealed: Buffer): string {
  expect(sealed.subarray(0, 2).toString('latin1')).toBe('v1');
  const iv = sealed.subarray(2, 14);
  const tag = sealed.subarray(sealed.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(storeId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(14, sealed.length - 16)), decipher.final()]).toString('utf8');
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------------------------
// The app of a `describe('console: platform connection')` block.

/** What a block gets from `usePlatformConnection`: its app and stand-in, and helpers on them. */
export interface PlatformConnection {
  /** The app, pointed at the stand-in; use only inside tests and hooks. */
  readonly t: TestApp;
  /** The stand-in the app connects stores to; use only inside tests and hooks. */
  readonly platform: StandinPlatform;
  /** The key the app seals access tokens with. */
  readonly tokenKey: Buffer;
  /** The service's JSON log lines (it logs at info), captured from stdout while the block runs. */
  readonly captured: string[];
  /** A tenant with one store and one console account signed in. */
  fresh(): Promise<{ tenant: Tenant; session: ConsoleSession }>;
  /** What the stand-in's token endpoint receives from now on. */
  exchangesFrom(): () => StandinPlatform['exchanges'];
  /** Connect and approve: the callback parameters the platform sends back. */
  approved(session: ConsoleSession, storeId: string, shop?: string, options?: ApproveOptions): Promise<CallbackParams>;
  expectNotConnected(storeId: string): Promise<void>;
}

/**
 * One stand-in platform and one app connected to it for the enclosing `describe` block, started before its tests and
 * closed after them, with the service's log lines captured meanwhile. After the block, an `afterAll` fails the test
 * file if a platform secret is in that log or in any answer a ConsoleClient of the file received so far.
 */
export function usePlatformConnection(): PlatformConnection {
  let platform: StandinPlatform;
  let t: TestApp;
  const tokenKey = randomBytes(32);
  tokenKeys.push(tokenKey);
  const captured: string[] = [];
  let restoreStdout: (() => void) | undefined;

  beforeAll(async () => {
    platform = await startPlatform();
    platforms.push(platform);
    // Capture the service's JSON log lines (as test/api/service/logging.e2e-spec.ts does) to check that no secret is logged.
    const write = process.stdout.write.bind(process.stdout);
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (text.startsWith('{')) {
        captured.push(text);
        (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
        return true;
      }
      return write(chunk as string, ...(rest as []));
    }) as typeof process.stdout.write);
    restoreStdout = () => spy.mockRestore();
    t = await startApp({
      logLevel: 'info',
      publicUrl: PUBLIC_URL,
      platform: standinConfig(platform, { scopes: SCOPES, timeoutMs: TIMEOUT_MS, tokenKey }),
    });
  });

  afterAll(async () => {
    await t?.close();
    await platform?.close();
    restoreStdout?.();
  });

  // After the block (its app closed, so its last log lines are in): no platform secret in the service's log, nor in
  // any answer a ConsoleClient of the test file received so far (`transcript`: sign-up and login pages included).
  afterAll(() => {
    if (platform === undefined) return; // the block never started; its tests already failed
    const problems: string[] = [];
    const log = captured.join('');
    if (!log.includes('"req"')) problems.push('no request log line was captured, so the log could not be checked');
    const logged = secretsIn(log);
    if (logged.length > 0) problems.push(`the service wrote to the log: ${logged.join(', ')}`);
    for (const answer of transcript) {
      const shown = secretsIn([answer.text, ...Object.values(answer.headers).map(String)].join('\n'));
      if (shown.length > 0)
        problems.push(`the answer to ${answer.method} ${answer.path.split('?')[0]} ${answer.status} showed: ${shown.join(', ')}`);
    }
    if (problems.length > 0) {
      throw new Error(
        `usePlatformConnection: a platform secret (client secret, access token or token key) leaked in this file:\n  ${problems.join('\n  ')}`,
      );
    }
  });

  /** A tenant with one store and one console account signed in. */
  async function fresh(): Promise<{ tenant: Tenant; session: ConsoleSession }> {
    const tenant = await createTenant(t);
    return { tenant, session: await signUp(t, tenant) };
  }

  /** What the stand-in's token endpoint receives from now on. */
  function exchangesFrom(): () => typeof platform.exchanges {
    const start = platform.exchanges.length;
    return () => platform.exchanges.slice(start);
  }

  /** Connect and approve: the callback parameters the platform sends back. */
  async function approved(session: ConsoleSession, storeId: string, shop = SHOP, options?: ApproveOptions): Promise<CallbackParams> {
    const { location } = await startConnect(session, storeId, shop);
    return platform.authorize(location, options);
  }

  async function expectNotConnected(storeId: string): Promise<void> {
    expect(await connections(t, storeId)).toEqual([]);
  }

  return {
    get t() {
      return t;
    },
    get platform() {
      return platform;
    },
    tokenKey,
    captured,
    fresh,
    exchangesFrom,
    approved,
    expectNotConnected,
  };
}

/** The store's full read of its shop's catalog, as `platform_imports` holds it. */
export interface ImportRow {
  readonly state: string;
  readonly pages: number;
  readonly next_page: string | null;
  readonly error: string | null;
  readonly trigger: string;
  readonly removed: number;
  readonly repaired: number;
}

/** Waits until the store's read of its catalog (started by `trigger`, when given) has ended, and returns it. */
export async function importFinished(t: TestApp, storeId: string, trigger?: string): Promise<ImportRow> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [current] = (await db(t).query(
      `SELECT state, pages, next_page, error, trigger, removed, repaired FROM platform_imports WHERE store_id = $1`,
      [storeId],
    )) as ImportRow[];
    if (current && current.state !== 'running' && (trigger === undefined || current.trigger === trigger)) return current;
    if (Date.now() > deadline) throw new Error(`the import is still ${JSON.stringify(current)}`);
    await sleep(100);
  }
}
