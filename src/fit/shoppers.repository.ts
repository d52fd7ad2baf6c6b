import { createHmac, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';

/** The store's key for shopper digests, created by the first session that names a shopper (`digest`). */
const STORE_KEY = prepared<{ key: Buffer }>(
  'shoppers.store-key',
  `WITH created AS (INSERT INTO shopper_keys (store_id, key) VALUES ($1, $2) ON CONFLICT (store_id) DO NOTHING RETURNING key)
   SELECT key FROM created UNION ALL SELECT key FROM shopper_keys WHERE store_id = $1`,
);

/** The link between the store's sessions and a shopper, erased. */
const UNLINK = prepared<never>(
  'shoppers.unlink',
  `UPDATE sessions SET shopper_digest = NULL WHERE store_id = (SELECT $1::uuid) AND shopper_digest = $2`,
);

/**
 * Returning shoppers as the store knows them: the integrator's id for a shopper is never stored, only its HMAC-SHA256
 * under a random key of the store, so one id gives unrelated digests in two stores and nothing stored spells it.
 */
@Injectable()
export class ShoppersRepository {
  /** The digest of `ref` in the store, in the caller's transaction (the store's key is created on first use). */
  async digest(manager: EntityManager, storeId: string, ref: string): Promise<Buffer> {
    const [digest] = await this.digestAll(manager, storeId, [ref]);
    return digest;
  }

  /** `digest` of each of `refs`, in order, the store's key read once. */
  async digestAll(manager: EntityManager, storeId: string, refs: readonly string[]): Promise<Buffer[]> {
    let [row] = await run(manager, STORE_KEY, [storeId, randomBytes(32)]);
    // a concurrent first use committed its key after this statement's snapshot: read it now
    if (!row) [row] = await run(manager, STORE_KEY, [storeId, randomBytes(32)]);
    return refs.map((ref) => createHmac('sha256', row.key).update(ref, 'utf8').digest());
  }

  /** No session of the store names the shopper any more. */
  async unlink(manager: EntityManager, storeId: string, digest: Buffer): Promise<void> {
    await run(manager, UNLINK, [storeId, digest]);
  }
}
