import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, type Repository } from 'typeorm';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import { ApiKey } from './api-key.entity.js';
import type { Scope } from '../auth/scopes.js';

/** An active key and the store it is bound to (the `store_…` columns are null for an unrestricted key). */
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
const AUTHENTICATE = prepared<KeyRow>(
  'api-keys.authenticate',
  `
  SELECT k.id, k.merchant_id, k.store_id, k.scopes, k.last_used_at,
         s.name AS store_name, s.currency AS store_currency, s.unit_system AS store_unit_system,
         s.platform AS store_platform, s.platform_shop AS store_platform_shop, s.created_at AS store_created_at
    FROM api_keys k
    LEFT JOIN stores_records s ON s.id = k.store_id AND s.merchant_id = k.merchant_id
   WHERE k.secret_digest = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
);

/** A key's record as it is inserted: the secret itself is never stored, only its digest. */
interface NewKeyRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId: string | null;
  readonly name: string;
  readonly scopes: Scope[];
  readonly prefix: string;
  readonly secretDigest: string;
  readonly expiresAt: Date | null;
}

/** A key of a merchant, and of one store when `storeId` is given. */
interface KeyOfMerchant {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId?: string;
}

/** The queries of API keys. Methods that may run inside a transaction take its `manager` first. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>) {}

  /** The active key with this digest, with its store; no cache, so revocation and expiry apply at once. */
  async findActiveByDigest(digest: string): Promise<KeyRow | undefined> {
    const rows = await run(this.keys.manager, AUTHENTICATE, [digest]);
    return rows[0];
  }

  /** Sets `last_used_at`, unless another request did within the last minute. */
  async touchLastUsed(keyId: string): Promise<void> {
    await this.keys.query(
      `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }

  /** Inserts the key and reads it back. */
  async insert(manager: EntityManager, key: NewKeyRecord): Promise<ApiKey> {
    const record = manager.getRepository(ApiKey).create({
      id: key.id,
      merchantId: key.merchantId,
      storeId: key.storeId,
      name: key.name,
      scopes: key.scopes,
      prefix: key.prefix,
      secretDigest: key.secretDigest,
      expiresAt: key.expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    });
    await manager.getRepository(ApiKey).insert(record);
    return manager.getRepository(ApiKey).findOneByOrFail({ id: record.id });
  }

  /** The merchant's keys, newest first; only those of `storeId` when it is given. */
  list<T>(merchantId: string, storeId: string | undefined, page: PageQuery, present: (key: ApiKey) => T): Promise<Page<T>> {
    const query = this.keys.createQueryBuilder('key').where('key.merchant_id = :merchantId', { merchantId });
    if (storeId !== undefined) query.andWhere('key.store_id = :storeId', { storeId });
    return paginate(query, page, present);
  }

  /** Sets `revoked_at` on the key if it is not revoked yet, which locks its row until the transaction ends. */
  async revoke(manager: EntityManager, key: KeyOfMerchant): Promise<void> {
    await manager
      .getRepository(ApiKey)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where({ ...key, revokedAt: IsNull() })
      .execute();
  }

  findOne(manager: EntityManager, key: KeyOfMerchant): Promise<ApiKey | null> {
    return manager.getRepository(ApiKey).findOneBy(key);
  }

  /** True when the key is live, holding a share lock on its row until the transaction ends. */
  async lockIfLive(manager: EntityManager, keyId: string): Promise<boolean> {
    const [live] = (await manager.query(`SELECT 1 FROM api_keys_records k WHERE k.id = $1 AND k.live FOR SHARE`, [keyId])) as unknown[];
    return Boolean(live);
  }
}
