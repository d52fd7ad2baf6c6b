import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import { ProblemError } from '../common/problems/problem-error.js';
import { isId, newId } from '../common/http/ids.js';
import { paginate, type Page } from '../common/http/pagination.js';
import { parseRfc3339 } from '../common/validation/rfc3339.js';
import { Store } from '../stores/store.entity.js';
import { ApiKey, type Scope } from './api-key.entity.js';
import type { ApiKeyListQuery, CreateApiKeyRequest } from './dto/create-api-key.request.js';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key.response.js';
import { digestSecret, displayPrefix, generateSecret, isWellFormedSecret, MERCHANT_KEY_PREFIX } from './key-secret.js';
import type { MerchantPrincipal } from './principal.js';
import { transaction } from '../database/transactions.js';

/** `last_used_at` is written at most this often per key, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** An active key, as authentication needs it. */
export interface AuthenticatedKey {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId: string | null;
  readonly scopes: Scope[];
  /** The store a store-bound key is bound to (the composite foreign key keeps it in the key's merchant). */
  readonly store: Store | null;
}

interface KeyRow {
  id: string;
  merchant_id: string;
  store_id: string | null;
  scopes: Scope[];
  last_used_at: Date | null;
  store_name: string;
  store_currency: string;
  store_unit_system: Store['unitSystem'];
  store_platform: Store['platform'];
  store_platform_shop: string | null;
  store_created_at: Date;
}

/** One statement: the active key by digest, and its store when it is store-bound. */
const AUTHENTICATE = `
  SELECT k.id, k.merchant_id, k.store_id, k.scopes, k.last_used_at,
         s.name AS store_name, s.currency AS store_currency, s.unit_system AS store_unit_system,
         s.platform AS store_platform, s.platform_shop AS store_platform_shop, s.created_at AS store_created_at
    FROM api_keys k
    LEFT JOIN stores s ON s.id = k.store_id AND s.merchant_id = k.merchant_id
   WHERE k.secret_digest = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`;

export interface NewKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly storeId: string | null;
  readonly expiresAt: Date | null;
}

@Injectable()
export class ApiKeysService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The active key with this secret, or null, with the store a store-bound key is bound to, read in the same
   * statement. Looked up by digest on every request, with no cache, so that a revoked or expired key is refused from
   * the very next request.
   */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    if (!isWellFormedSecret(secret, MERCHANT_KEY_PREFIX)) return null;
    const rows: KeyRow[] = await this.dataSource.query(AUTHENTICATE, [digestSecret(secret)]);
    const row = rows[0];
    if (!row) return null;
    if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.dataSource.query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [row.id],
      );
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
    const record = manager.getRepository(ApiKey).create({
      id: newId(),
      merchantId,
      storeId: key.storeId,
      name: key.name,
      scopes: [...key.scopes],
      prefix: displayPrefix(secret),
      secretDigest: digestSecret(secret),
      expiresAt: key.expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    });
    await manager.getRepository(ApiKey).insert(record);
    const saved = await manager.getRepository(ApiKey).findOneByOrFail({ id: record.id });
    return CreatedApiKeyResponse.fromCreated(saved, secret);
  }

  async issue(principal: MerchantPrincipal, request: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const scopes = [...new Set(request.scopes)];
    const storeId = request.store_id ?? null;
    const errors = [];
    const adminOnly = scopes.length === 1 && scopes[0] === 'admin';
    if (storeId === null && !adminOnly) {
      errors.push({ field: 'store_id', code: 'required', message: 'store_id is required for every non-admin key' });
    }
    const expiresAt = request.expires_at === undefined ? null : parseRfc3339(request.expires_at);
    if (expiresAt !== null) {
      const now = new Date();
      const limit = new Date(now);
      limit.setUTCFullYear(limit.getUTCFullYear() + 1);
      if (expiresAt <= now) {
        errors.push({ field: 'expires_at', code: 'not_in_future', message: 'expires_at must be in the future' });
      } else if (expiresAt > limit) {
        errors.push({ field: 'expires_at', code: 'too_far_in_future', message: 'expires_at must be at most one year ahead' });
      }
    }
    if (errors.length) throw ProblemError.validation(errors);

    return transaction(this.dataSource, async (manager) => {
      if (storeId !== null) {
        const store = isId(storeId)
          ? await manager.getRepository(Store).findOneBy({ id: storeId, merchantId: principal.merchantId })
          : null;
        if (!store) throw ProblemError.field('store_id', 'unknown_store', 'store_id is not a store of this merchant');
      }
      return this.create(manager, principal.merchantId, { name: request.name, scopes, storeId, expiresAt });
    });
  }

  list(principal: MerchantPrincipal, page: ApiKeyListQuery): Promise<Page<ApiKeyResponse>> {
    const query = this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder('key')
      .where('key.merchant_id = :merchantId', { merchantId: principal.merchantId });
    if (page.store_id !== undefined) query.andWhere('key.store_id = :storeId', { storeId: page.store_id });
    return paginate(query, page, ApiKeyResponse.from);
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
    const key = await transaction(this.dataSource, async (manager) => {
      const repository = manager.getRepository(ApiKey);
      await repository
        .createQueryBuilder()
        .update()
        .set({ revokedAt: () => 'now()' })
        .where({ ...where, revokedAt: IsNull() })
        .execute();
      // Console access granted with the key ends with it (docs/decisions/006-console-access.md); the key's row lock,
      // taken above, orders this with a sign-up presenting the key.
      await manager.query(
        `DELETE FROM console_accounts a USING api_keys k
          WHERE k.id = a.api_key_id AND k.id = $1 AND k.merchant_id = $2 AND k.revoked_at IS NOT NULL`,
        [keyId, principal.merchantId],
      );
      return repository.findOneBy(where);
    });
    if (!key) throw ProblemError.notFound('API key');
    return ApiKeyResponse.from(key);
  }
}
