import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The seller console (docs/decisions/005-seller-console.md).
 *
 * - `console_accounts`: people who sign in to the console, one email per account in the whole service.
 * - `console_sessions`: signed-in browsers; only the SHA-256 digest of the cookie's token is kept.
 * - `platform_oauth_states`: pending platform connections, single use, bound to a console session and a store.
 * - `platform_connections`: a store's platform access token, sealed with AES-256-GCM.
 */
export class SellerConsole1764000000000 implements MigrationInterface {
  name = 'SellerConsole1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_accounts (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
        email text NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT console_accounts_email_key UNIQUE (email),
        CONSTRAINT console_accounts_email_check CHECK (email = lower(btrim(email)))
      )`);
    await queryRunner.query(`CREATE INDEX console_accounts_merchant_idx ON console_accounts (merchant_id)`);
    await queryRunner.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES console_accounts (id) ON DELETE CASCADE,
        token_digest text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        refreshed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT console_sessions_token_digest_key UNIQUE (token_digest)
      )`);
    await queryRunner.query(`CREATE INDEX console_sessions_account_idx ON console_sessions (account_id)`);
    await queryRunner.query(`CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE platform_oauth_states (
        state_digest text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES console_sessions (id) ON DELETE CASCADE,
        store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
        shop text NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX platform_oauth_states_session_idx ON platform_oauth_states (session_id)`);
    await queryRunner.query(`CREATE INDEX platform_oauth_states_store_idx ON platform_oauth_states (store_id)`);
    await queryRunner.query(`CREATE INDEX platform_oauth_states_expires_idx ON platform_oauth_states (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE platform_connections (
        store_id uuid PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
        shop text NOT NULL,
        scopes text NOT NULL,
        token_ciphertext bytea NOT NULL,
        connected_at timestamptz NOT NULL DEFAULT now(),
        connected_by uuid REFERENCES console_accounts (id) ON DELETE SET NULL
      )`);
    await queryRunner.query(`CREATE INDEX platform_connections_connected_by_idx ON platform_connections (connected_by)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE platform_connections`);
    await queryRunner.query(`DROP TABLE platform_oauth_states`);
    await queryRunner.query(`DROP TABLE console_sessions`);
    await queryRunner.query(`DROP TABLE console_accounts`);
  }
}
