import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Returning shoppers: a session may name the integrator's pseudonymous id for its shopper (`shopper_ref`), stored only
 * as an HMAC-SHA256 under a random key of the store (`shopper_keys`), so the same id gives unrelated digests in two
 * stores and the clear id is never stored; `shopper_evidence` holds, per store and shopper, the decaying sums of how her
 * outcomes departed from her products' learned fit (sizing/learning.ts). Erasing a shopper nulls the digest on her
 * sessions and deletes her sums.
 */
export class ReturningShoppers1764400000000 implements MigrationInterface {
  name = 'ReturningShoppers1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE shopper_keys (
        store_id uuid PRIMARY KEY REFERENCES stores (id),
        key bytea NOT NULL
      )`);
    await queryRunner.query(`ALTER TABLE sessions ADD COLUMN shopper_digest bytea`);
    await queryRunner.query(`CREATE INDEX sessions_shopper_idx ON sessions (store_id, shopper_digest) WHERE shopper_digest IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE shopper_evidence (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        shopper_digest bytea NOT NULL,
        weight double precision NOT NULL,
        weighted_steps double precision NOT NULL,
        weighted_squares double precision NOT NULL,
        undirected double precision NOT NULL,
        outcomes integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, shopper_digest),
        CONSTRAINT shopper_evidence_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE shopper_evidence`);
    await queryRunner.query(`ALTER TABLE sessions DROP COLUMN shopper_digest`);
    await queryRunner.query(`DROP TABLE shopper_keys`);
  }
}
