import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConsoleIdentity } from '../auth/principal.js';
import { newToken } from '../console-accounts/console-credentials.js';
import { digestSecret } from '../common/crypto/key-secret.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { APP_CONFIG, type AppConfig, type PlatformConfig } from '../config/app.config.js';
import type { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import { ConsoleError } from '../common/problems/console-error.js';
import { CatalogImportService } from './catalog-import.service.js';
import { PlatformConnectionsRepository } from './platform-connections.repository.js';
import type { PlatformConnection } from './platform.entities.js';
import { seal } from '../common/crypto/seal.js';
import { Transactions } from '../database/transactions.js';

/** Shop domains as the platform issues them (contract §8). */
const SHOP_PATTERN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;
export const CALLBACK_PATH = '/console/platform/callback';
const TIMESTAMP_TOLERANCE_SECONDS = 90;
const CALLBACK_PARAMS = ['code', 'hmac', 'shop', 'state', 'timestamp'] as const;

const failure = {
  request: () =>
    new ConsoleError(
      'invalid_request',
      400,
      'Incomplete answer from the platform',
      'The platform sent back an incomplete or repeated set of parameters. Start the connection again from the store page.',
    ),
  hmac: () =>
    new ConsoleError(
      'invalid_hmac',
      400,
      'The platform’s signature does not match',
      'This answer was not signed by the platform with this app’s secret, so nothing was connected.',
    ),
  timestamp: () =>
    new ConsoleError(
      'stale_timestamp',
      400,
      'The platform’s answer is out of date',
      'The answer is more than 90 seconds old (or its clock is off). Start the connection again.',
    ),
  shop: () =>
    new ConsoleError(
      'invalid_shop',
      400,
      'Not a shop domain',
      'The platform named a shop that is not of the form your-shop.myshopify.com, so nothing was connected.',
    ),
  state: () =>
    new ConsoleError(
      'invalid_state',
      400,
      'This connection attempt is no longer valid',
      'It was already used, expired after 10 minutes, or was started in another browser session. Start again from the store page.',
    ),
  shopMismatch: () =>
    new ConsoleError(
      'shop_mismatch',
      400,
      'Another shop answered',
      'The connection was started for a different shop than the one that answered, so nothing was connected.',
    ),
  exchange: () =>
    new ConsoleError(
      'token_exchange_failed',
      502,
      'The platform did not complete the connection',
      'The platform did not hand over an access token in time. Nothing was stored; try again in a moment.',
    ),
};

const platformNotConfigured = () =>
  new ConsoleError(
    'platform_not_configured',
    409,
    'Connecting a shop is not available',
    'Connecting a shop isn’t available on this service, so nothing was connected; ask whoever runs your Size-Fit service.',
  );

/**
 * Connecting a store to its shop with Shopify-style authorization-code OAuth (docs/decisions/005-seller-console.md):
 * a single-use state bound to the console session and the store, a verified callback, a code exchanged within a
 * timeout, and the access token sealed at rest. A failure at any step stores nothing.
 */
@Injectable()
export class PlatformService {
  private readonly logger = new Logger('Platform');

  constructor(
    private readonly transactions: Transactions,
    private readonly connections: PlatformConnectionsRepository,
    private readonly stores: StoresService,
    private readonly catalogImport: CatalogImportService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get configured(): boolean {
    return this.config.platform !== null;
  }

  connection(store: Store): Promise<PlatformConnection | null> {
    return this.connections.findByStore(store.id);
  }

  /** Records a pending connection and returns the platform's authorize address to send the merchant to. */
  async start(identity: ConsoleIdentity, store: Store, rawShop: string): Promise<string> {
    const platform = this.requirePlatform();
    const shop = rawShop.trim();
    if (!SHOP_PATTERN.test(shop) || shop.length > 255) {
      throw ProblemError.field('shop', 'invalid_shop', 'Enter the shop’s domain, such as your-shop.myshopify.com');
    }
    const state = newToken();
    await this.connections.deleteExpiredStates();
    await this.connections.insertState({ stateDigest: digestSecret(state), sessionId: identity.sessionId, storeId: store.id, shop });
    const authorize = new URL(`${shopBase(platform, shop)}/admin/oauth/authorize`);
    authorize.searchParams.set('client_id', platform.clientId);
    authorize.searchParams.set('scope', platform.scopes.join(','));
    authorize.searchParams.set('redirect_uri', `${this.config.publicUrl}${CALLBACK_PATH}`);
    authorize.searchParams.set('state', state);
    return authorize.toString();
  }

  /**
   * The platform's redirect back: every check of the contract, in order, then the code exchange, then the sealed
   * token. Returns the connected store's id.
   */
  async complete(identity: ConsoleIdentity, rawQuery: string): Promise<string> {
    const platform = this.requirePlatform();
    const params = new URLSearchParams(rawQuery);
    const names = [...params.keys()];
    if (new Set(names).size !== names.length || CALLBACK_PARAMS.some((name) => !params.get(name))) throw failure.request();
    const value = (name: (typeof CALLBACK_PARAMS)[number]) => params.get(name) as string;

    if (!signatureMatches(params, value('hmac'), platform.clientSecret)) throw failure.hmac();
    const timestamp = value('timestamp');
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
      throw failure.timestamp();
    }
    const shop = value('shop');
    if (!SHOP_PATTERN.test(shop)) throw failure.shop();

    // Deleted as it is read: a state works once, and only for the session that started it.
    const pending = await this.connections.takeState(digestSecret(value('state')), identity.sessionId);
    if (!pending || !pending.live) throw failure.state();
    if (pending.shop !== shop) throw failure.shopMismatch();

    const granted = await this.exchange(platform, shop, value('code'), pending.store_id);
    await this.transactions.run(async (manager) => {
      const updated = await this.stores.setPlatform(manager, pending.store_id, identity.merchantId, shop);
      if (updated !== 1) throw failure.state();
      await this.connections.upsert(manager, {
        storeId: pending.store_id,
        shop,
        scopes: granted.scope,
        tokenCiphertext: seal(platform.tokenKey, pending.store_id, granted.token),
        connectedBy: identity.accountId,
      });
      // The shop's catalog, imported by a job once the connection is committed.
      await this.catalogImport.begin(manager, pending.store_id, 'connection');
    });
    return pending.store_id;
  }

  /** Forgets the token, and the store's `platform` fields with it: they describe the connection. */
  async disconnect(store: Store): Promise<void> {
    await this.transactions.run(async (manager) => {
      await this.connections.delete(manager, store.id);
      await this.stores.clearPlatform(manager, store.id);
    });
  }

  /** `POST {shop}/admin/oauth/access_token`, within the configured time, for the token and the scopes granted. */
  private async exchange(platform: PlatformConfig, shop: string, code: string, storeId: string): Promise<{ token: string; scope: string }> {
    let answer: { access_token?: unknown; scope?: unknown };
    try {
      const response = await fetch(`${shopBase(platform, shop)}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ client_id: platform.clientId, client_secret: platform.clientSecret, code }),
        redirect: 'error',
        signal: AbortSignal.timeout(platform.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`the token endpoint answered ${response.status}`);
      }
      answer = (await response.json()) as typeof answer;
    } catch (error) {
      this.logger.warn({ store_id: storeId, shop, reason: describe(error) }, 'platform token exchange failed');
      throw failure.exchange();
    }
    const token = answer?.access_token;
    const scope = answer?.scope;
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096 || typeof scope !== 'string') {
      this.logger.warn({ store_id: storeId, shop, reason: 'no access_token and scope in the answer' }, 'platform token exchange failed');
      throw failure.exchange();
    }
    return { token, scope };
  }

  private requirePlatform(): PlatformConfig {
    if (this.config.platform === null) throw platformNotConfigured();
    return this.config.platform;
  }
}

/** Where the console's forms may lead, for its Content-Security-Policy: the platform's shops. */
export function platformFormSource(platform: PlatformConfig | null): string | null {
  if (platform === null) return null;
  const sample = new URL(platform.baseUrl.replace('{shop}', 'shop-placeholder.myshopify.com'));
  return sample.hostname.includes('shop-placeholder')
    ? `${sample.protocol}//${sample.host.replace('shop-placeholder.myshopify.com', '*.myshopify.com')}`
    : sample.origin;
}

const shopBase = (platform: PlatformConfig, shop: string): string => platform.baseUrl.replace('{shop}', shop);

/** Parameters outside the signed message: the signature itself, and the platform's legacy one. */
const UNSIGNED = new Set(['hmac', 'signature']);

/**
 * The message the platform signs, as it documents it: every parameter but the signatures, sorted by name, joined
 * `name=value` with `&`. `%` and `&` in names and values, and `=` in names, are percent-escaped so that no name or
 * value can pass for a parameter boundary: two different sets of parameters never make the same message.
 */
export function callbackMessage(params: URLSearchParams): string {
  const escape = (text: string) => text.replaceAll('%', '%25').replaceAll('&', '%26');
  return [...params.entries()]
    .filter(([name]) => !UNSIGNED.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${escape(name).replaceAll('=', '%3D')}=${escape(value)}`)
    .join('&');
}

/** Hex HMAC-SHA256 of the callback's message under the app's secret. */
export function callbackSignature(params: URLSearchParams, secret: string): string {
  return createHmac('sha256', secret).update(callbackMessage(params), 'utf8').digest('hex');
}

function signatureMatches(params: URLSearchParams, sent: string, secret: string): boolean {
  const expected = Buffer.from(callbackSignature(params, secret), 'utf8');
  const actual = Buffer.from(sent.toLowerCase(), 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Why an exchange failed, without anything the platform sent back (it could hold a token). */
function describe(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out';
  if (error instanceof SyntaxError) return 'the answer is not JSON';
  return error instanceof Error ? error.message : 'unknown error';
}
