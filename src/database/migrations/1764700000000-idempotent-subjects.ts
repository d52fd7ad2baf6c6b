import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The person a request kept under an `Idempotency-Key` names (a returning shopper of a session create), as the
 * store's keyed digest of her id (docs/decisions/007-idempotent-creates.md): her erasure deletes the requests that
 * named her, with their answers. Null for a request that names nobody.
 */
export class IdempotentSubjects1764700000000 implements MigrationInterface {
  name = 'IdempotentSubjects1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN subject_digest bytea`);
    await queryRunner.query(
      `CREATE INDEX idempotency_keys_subject_idx ON idempotency_keys (subject_digest) WHERE subject_digest IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idempotency_keys_subject_idx`);
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN subject_digest`);
  }
}
