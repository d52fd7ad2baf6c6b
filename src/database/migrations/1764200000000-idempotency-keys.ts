import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotent creates (docs/decisions/007-idempotent-creates.md): one row per credential and `Idempotency-Key`, keyed by
 * the key's SHA-256, holding the digest of the request it first came with and, once answered, that answer sealed
 * under a key derived from the caller's own secret and the idempotency key, neither of which is stored.
 */
export class IdempotencyKeys1764200000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        credential text NOT NULL,
        key_digest bytea NOT NULL,
        request_digest bytea NOT NULL,
        sealed_answer bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (credential, key_digest)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
