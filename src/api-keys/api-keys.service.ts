import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { isId, newId } from '../common/http/ids.js';
import type { Page } from '../common/http/pagination.js';
import { finerThanMilliseconds, parseRfc3339 } from '../common/validation/rfc3339.js';
import { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import type { Scope } from '../auth/scopes.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { unauthenticated } from '../auth/bearer-token.js';
import type { ApiKeyListQuery, CreateApiKeyRequest } from './dto/create-api-key.request.js';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key.response.js';
import { digestSecret, displayPrefix, generateSecret, isWellFormedSecret, MERCHANT_KEY_PREFIX } from '../common/crypto/key-secret.js';
import type { MerchantPrincipal } from '../auth/principal.js';
import { Transactions } from '../database/transactions.js';

/** `last_used_at` is written at most this often per key, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Why a key cannot expire then, or null: at most millisecond precision, in the future, at most one year ahead. */
function checkExpiry(text: string, expiresAt: Date, now: Date): FieldError | null {
  if (finerThanMilliseconds(text)) {
    return { field: 'expires_at', code: 'too_precise', message: 'expires_at must have at most millisecond precision' };
  }
  if (expiresAt <= now) return { field: 'expires_at', code: 'not_in_future', message: 'expires_at must be in the future' };
  const limit = new Date(now);
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  if (expiresAt > limit) {
    return { field: 'expires_at', code: 'too_far_in_future', message: 'expires_at must be at most one year ahead' };
  }
  return null;
}

/** An active key, as authentication needs it. */
interface AuthenticatedKey {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId: string | null;
  readonly scopes: Scope[];
  /** The store a store-bound key is bound to (the composite foreign key keeps it in the key's merchant). */
  readonly store: Store | null;
}

interface NewKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly storeId: string | null;
  readonly expiresAt: Date | null;
}

/**
 * Who issues a key: a key of the merchant (`keyId`), or a console session (its principal having no key), which stands
 * on its account and on the key the account signed up with: `lockIfLive` locks those in the issuing transaction and
 * says whether they are all still live (console-accounts.service.ts).
 */
type KeyIssuer = MerchantPrincipal & { readonly lockIfLive?: (manager: EntityManager) => Promise<boolean> };

/** What else ends with a key, in its revocation's transaction once the key's row is locked: a step of another module. */
type RevocationStep = (manager: EntityManager, keyId: string, merchantId: string) => Promise<void>;

@Injectable()
export class ApiKeysService {
  private readonly revocationSteps: RevocationStep[] = [];

  constructor(
    private readonly transactions: Transactions,
    private readonly keys: ApiKeysRepository,
    private readonly stores: StoresService,
  ) {}

  /**
   * Adds a step to every revocation, run in its transaction after the key's row is locked (the console accounts a key
   * granted end with it: console-accounts.service.ts).
   */
  onRevocation(step: RevocationStep): void {
    this.revocationSteps.push(step);
  }

  /** True when the key is live, holding a share lock on its row until the transaction ends. */
  lockIfLive(manager: EntityManager, keyId: string): Promise<boolean> {
    return this.keys.lockIfLive(manager, keyId);
  }

  /**
   * The active key with this secret, or null, with the store a store-bound key is bound to, read in the same
   * statement. Looked up by digest on every request, with no cache, so that a revoked or expired key is refused from
   * the very next request.
   */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    if (!isWellFormedSecret(secret, MERCHANT_KEY_PREFIX)) return null;
    const row = await this.keys.findActiveByDigest(digestSecret(secret));
    if (!row) return null;
    if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.keys.touchLastUsed(row.id);
    }
    const store =
      row.store_id === null
        ? null
        : Object.assign(new Store(), {
            id: row.store_id,
            merchantId: row.merchant_id,
            name: row.store_name,
            currency: row.store_currency,
            unitSystem: row.store_unit_system,
            platform: row.store_platform,
            platformShop: row.store_platform_shop,
            createdAt: row.store_created_at,
          });
    return { id: row.id, merchantId: row.merchant_id, storeId: row.store_id, scopes: row.scopes, store };
  }

  /** Creates a key and returns its record with the secret: the only time the secret exists outside the caller. */
  async create(manager: EntityManager, merchantId: string, key: NewKey): Promise<CreatedApiKeyResponse> {
    const secret = generateSecret(MERCHANT_KEY_PREFIX);
    const saved = await this.keys.insert(manager, {
      id: newId(),
      merchantId,
      storeId: key.storeId,
      name: key.name,
      scopes: [...key.scopes],
      prefix: displayPrefix(secret),
      secretDigest: digestSecret(secret),
      expiresAt: key.expiresAt,
    });
    return CreatedApiKeyResponse.fromCreated(saved, secret);
  }

  async issue(principal: KeyIssuer, request: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const scopes = [...new Set(request.scopes)];
    const storeId = request.store_id ?? null;
    const errors = [];
    const adminOnly = scopes.length === 1 && scopes[0] === 'admin';
    if (storeId === null && !adminOnly) {
      errors.push({ field: 'store_id', code: 'required', message: 'store_id is required for every non-admin key' });
    }
    const expiresAt = request.expires_at === undefined ? null : parseRfc3339(request.expires_at);
    const expiryError = expiresAt === null ? null : checkExpiry(request.expires_at as string, expiresAt, new Date());
    if (expiryError) errors.push(expiryError);
    if (errors.length) throw ProblemError.validation(errors);

    return this.transactions.run(async (manager) => {
      // The issuer's row locks order this with its revocation: a key revoked first issues nothing, and once a
      // revocation has answered, no key it issued can appear after it.
      if (!(await this.lockIssuer(manager, principal))) throw unauthenticated();
      if (storeId !== null) {
        const store = isId(storeId) ? await this.stores.findOfMerchantIn(manager, storeId, principal.merchantId) : null;
        if (!store) throw ProblemError.field('store_id', 'unknown_store', 'store_id is not a store of this merchant');
      }
      return this.create(manager, principal.merchantId, { name: request.name, scopes, storeId, expiresAt });
    });
  }

  /**
   * Locks what the issuer stands on until the transaction ends, and says whether it is still live: the issuing key's
   * row; for a console session, the session, its account and the account's key, whose revocation (or the account's
   * removal, or the session's end) then waits for the keys being issued (docs/decisions/001-credential-edge-cases.md).
   */
  private lockIssuer(manager: EntityManager, issuer: KeyIssuer): Promise<boolean> {
    if (issuer.keyId !== null) return this.keys.lockIfLive(manager, issuer.keyId);
    if (issuer.lockIfLive !== undefined) return issuer.lockIfLive(manager);
    throw new Error('A key is issued by a key or by a console session, and this issuer is neither');
  }

  list(principal: MerchantPrincipal, page: ApiKeyListQuery): Promise<Page<ApiKeyResponse>> {
    return this.keys.list(principal.merchantId, page.store_id, page, ApiKeyResponse.from);
  }

  /**
   * Revokes a key of the caller's merchant, and removes the console accounts it granted; a store-bound admin key
   * reaches only keys of its own store. Revoking a revoked key changes nothing. A key never revokes itself: rotation creates the replacement first.
   */
  async revoke(principal: MerchantPrincipal, keyId: string): Promise<ApiKeyResponse> {
    if (!isId(keyId)) throw ProblemError.notFound('API key');
    if (keyId === principal.keyId) {
      throw new ProblemError('cannot_revoke_self', 'A key cannot revoke itself; revoke it with another admin key');
    }
    const where = {
      id: keyId,
      merchantId: principal.merchantId,
      ...(principal.storeId === null ? {} : { storeId: principal.storeId }),
    };
    const key = await this.transactions.run(async (manager) => {
      await this.keys.revoke(manager, where);
      // What stands on the key ends with it (console access: docs/decisions/006-console-access.md); the key's row
      // lock, taken above, orders this with a sign-up presenting the key.
      for (const step of this.revocationSteps) await step(manager, keyId, principal.merchantId);
      return this.keys.findOne(manager, where);
    });
    if (!key) throw ProblemError.notFound('API key');
    return ApiKeyResponse.from(key);
  }
}
