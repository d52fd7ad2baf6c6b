import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763776800000 implements MigrationInterface {
  name = 'InitialSchema1763776800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchants (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE stores (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchants (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        unit_system text NOT NULL CHECK (unit_system IN ('metric', 'imperial')),
        platform text CHECK (platform IN ('shopify')),
        platform_shop text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT stores_id_merchant_id_key UNIQUE (id, merchant_id)
      )`);
    await queryRunner.query(`CREATE INDEX stores_merchant_id_idx ON stores (merchant_id, id)`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchants (id),
        store_id uuid,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0
          AND scopes <@ ARRAY['admin', 'catalog', 'fit', 'events', 'analytics']),
        prefix text NOT NULL,
        secret_digest text NOT NULL CHECK (secret_digest ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        CONSTRAINT api_keys_secret_digest_key UNIQUE (secret_digest),
        -- a store-bound key can only name a store of its own merchant
        CONSTRAINT api_keys_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        -- every non-admin key is bound to a store
        CONSTRAINT api_keys_store_required CHECK (store_id IS NOT NULL OR scopes = ARRAY['admin'])
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_merchant_id_idx ON api_keys (merchant_id, id)`);
    await queryRunner.query(`
      CREATE TABLE operator_keys (
        id uuid PRIMARY KEY,
        secret_digest text NOT NULL UNIQUE CHECK (secret_digest ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE operator_keys`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE stores`);
    await queryRunner.query(`DROP TABLE merchants`);
  }
}
