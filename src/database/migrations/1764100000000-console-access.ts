import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Console access that ends with the key that granted it (docs/decisions/006-console-access.md).
 *
 * - An account records the admin key presented at sign-up (`api_key_id`, of the same merchant): when that key is
 *   revoked the account is removed, and while it is expired the account cannot sign in.
 * - An email is unique within a merchant, not across the service, so a sign-up never learns about another
 *   merchant's people.
 * - Accounts made before this change recorded no key, so they cannot be bound to one: they are removed (with their
 *   sessions), and their people sign up again with a live admin key.
 */
export class ConsoleAccess1764100000000 implements MigrationInterface {
  name = 'ConsoleAccess1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM console_accounts`);
    await queryRunner.query(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_id_merchant_id_key UNIQUE (id, merchant_id)`);
    await queryRunner.query(`
      ALTER TABLE console_accounts
        ADD COLUMN api_key_id uuid NOT NULL,
        ADD COLUMN last_signed_in_at timestamptz,
        ADD CONSTRAINT console_accounts_api_key_fk FOREIGN KEY (api_key_id, merchant_id)
          REFERENCES api_keys (id, merchant_id) ON DELETE CASCADE,
        DROP CONSTRAINT console_accounts_email_key,
        ADD CONSTRAINT console_accounts_merchant_email_key UNIQUE (merchant_id, email)`);
    await queryRunner.query(`DROP INDEX console_accounts_merchant_idx`);
    await queryRunner.query(`CREATE INDEX console_accounts_email_idx ON console_accounts (email)`);
    await queryRunner.query(`CREATE INDEX console_accounts_api_key_idx ON console_accounts (api_key_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM console_accounts`);
    await queryRunner.query(`DROP INDEX console_accounts_api_key_idx`);
    await queryRunner.query(`DROP INDEX console_accounts_email_idx`);
    await queryRunner.query(`
      ALTER TABLE console_accounts
        DROP CONSTRAINT console_accounts_merchant_email_key,
        ADD CONSTRAINT console_accounts_email_key UNIQUE (email),
        DROP CONSTRAINT console_accounts_api_key_fk,
        DROP COLUMN last_signed_in_at,
        DROP COLUMN api_key_id`);
    await queryRunner.query(`CREATE INDEX console_accounts_merchant_idx ON console_accounts (merchant_id)`);
    await queryRunner.query(`ALTER TABLE api_keys DROP CONSTRAINT api_keys_id_merchant_id_key`);
  }
}
