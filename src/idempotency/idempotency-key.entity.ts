import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An `Idempotency-Key` of a credential (docs/decisions/007-idempotent-creates.md), as the migrations make its table:
 * the key's SHA-256, the digest of the request it first came with and, once answered, that answer sealed under a key
 * derived from the caller's secret and the idempotency key, neither of which is stored. The repository writes it in
 * SQL of its own (`idempotency-keys.repository.ts`).
 */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKey {
  /** Who sent the key: the credential's id. */
  @PrimaryColumn({ type: 'text' })
  credential: string;

  @PrimaryColumn({ type: 'bytea', name: 'key_digest' })
  keyDigest: Buffer;

  @Column({ type: 'bytea', name: 'request_digest' })
  requestDigest: Buffer;

  @Column({ type: 'bytea', name: 'sealed_answer', nullable: true, select: false })
  sealedAnswer: Buffer | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;

  /** The store's keyed digest of the person the request names, whose erasure deletes the key; null: nobody. */
  @Column({ type: 'bytea', name: 'subject_digest', nullable: true })
  subjectDigest: Buffer | null;
}

/** The entities of idempotency, registered by its module. */
export const IDEMPOTENCY_ENTITIES = [IdempotencyKey];
