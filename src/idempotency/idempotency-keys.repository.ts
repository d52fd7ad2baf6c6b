import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { IdempotencyKey } from './idempotency-key.entity.js';

/** How long a key is remembered after its first use. */
const KEPT_HOURS = 24;
/** Expired keys deleted per statement, so that a long backlog never holds many row locks at once. */
const DELETE_BATCH = 1000;
/**
 * A claim with no answer after this long was left by a process that stopped between the create and recording its
 * answer: the next request with the key may take it over.
 */
const ABANDONED_SECONDS = 60;

/** A claimed key: the request it came with and, once answered, the sealed answer. */
export interface HeldKey {
  readonly requestDigest: Buffer;
  readonly sealedAnswer: Buffer | null;
}

/** The `Idempotency-Key`s of each credential: every statement on its own, no transaction. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(@InjectRepository(IdempotencyKey) private readonly keys: Repository<IdempotencyKey>) {}

  /**
   * Claims the key for this request; false when the credential holds it already. Expired keys of the credential,
   * and an abandoned claim of this key, are dropped first, so they never stand in the way. `subjectDigest`: the
   * store's keyed digest of the person the request names, whose erasure deletes the key (`forgetSubject`).
   */
  async claim(credential: string, keyDigest: Buffer, requestDigest: Buffer, subjectDigest: Buffer | null = null): Promise<boolean> {
    await this.keys.query(
      `DELETE FROM idempotency_keys
        WHERE credential = $1
          AND (expires_at <= now()
               OR (key_digest = $2 AND sealed_answer IS NULL AND created_at <= now() - make_interval(secs => $3)))`,
      [credential, keyDigest, ABANDONED_SECONDS],
    );
    const claimed: unknown[] = await this.keys.query(
      `INSERT INTO idempotency_keys (credential, key_digest, request_digest, subject_digest, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))
       ON CONFLICT (credential, key_digest) DO NOTHING
       RETURNING 1`,
      [credential, keyDigest, requestDigest, subjectDigest, KEPT_HOURS],
    );
    return claimed.length === 1;
  }

  async find(credential: string, keyDigest: Buffer): Promise<HeldKey | null> {
    const [row] = (await this.keys.query(
      `SELECT request_digest, sealed_answer FROM idempotency_keys WHERE credential = $1 AND key_digest = $2`,
      [credential, keyDigest],
    )) as Array<{ request_digest: Buffer; sealed_answer: Buffer | null }>;
    return row ? { requestDigest: row.request_digest, sealedAnswer: row.sealed_answer } : null;
  }

  /** Records the answer of a claimed key. */
  async answer(credential: string, keyDigest: Buffer, sealedAnswer: Buffer): Promise<void> {
    await this.keys.query(
      `UPDATE idempotency_keys SET sealed_answer = $3 WHERE credential = $1 AND key_digest = $2 AND sealed_answer IS NULL`,
      [credential, keyDigest, sealedAnswer],
    );
  }

  /** Deletes every expired key, whatever its credential, a batch per statement; how many were deleted. */
  async deleteExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = (await this.keys.query(
        `DELETE FROM idempotency_keys
          WHERE (credential, key_digest) IN (
                SELECT credential, key_digest FROM idempotency_keys
                 WHERE expires_at <= now()
                 LIMIT $1
                   FOR UPDATE SKIP LOCKED)`,
        [DELETE_BATCH],
      )) as [unknown[], number];
      total += deleted;
      if (deleted < DELETE_BATCH) return total;
    }
  }

  /**
   * Deletes the keys of every request that named this subject, answered or still running, in the caller's
   * transaction (an erasure's): the answer a running one records afterwards finds no key, and is not kept.
   */
  async forgetSubject(manager: EntityManager, subjectDigest: Buffer): Promise<void> {
    await manager.query(`DELETE FROM idempotency_keys WHERE subject_digest = $1`, [subjectDigest]);
  }

  /** Gives a claimed key up (its request failed): the next request with it runs afresh. */
  async release(credential: string, keyDigest: Buffer): Promise<void> {
    await this.keys.query(`DELETE FROM idempotency_keys WHERE credential = $1 AND key_digest = $2 AND sealed_answer IS NULL`, [
      credential,
      keyDigest,
    ]);
  }
}
