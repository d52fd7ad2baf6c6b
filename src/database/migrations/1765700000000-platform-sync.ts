import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A connected shop's catalog kept in sync (docs/platform-sync.md):
 * - `platform_products.shop_updated_at`: when the shop last changed the product, so that a product notification older
 *   than what is kept (delivered out of order) changes nothing;
 * - `platform_products.deleted_at`: the product was deleted on the shop (a notification, or a full read that no longer
 *   lists it); kept as a tombstone, so that an update delivered after the deletion does not bring it back;
 * - `platform_imports.trigger`, `removed`, `repaired`: who started the last full read (the connection, the console, the
 *   schedule), how many products it found gone from the shop, and how many catalog products' variants it repaired.
 */
export class PlatformSync1765700000000 implements MigrationInterface {
  name = 'PlatformSync1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE platform_products ADD COLUMN shop_updated_at timestamptz, ADD COLUMN deleted_at timestamptz`);
    await queryRunner.query(`
      ALTER TABLE platform_imports
        ADD COLUMN trigger text NOT NULL DEFAULT 'connection' CHECK (trigger IN ('connection', 'console', 'schedule')),
        ADD COLUMN removed integer NOT NULL DEFAULT 0,
        ADD COLUMN repaired integer NOT NULL DEFAULT 0
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE platform_imports DROP COLUMN trigger, DROP COLUMN removed, DROP COLUMN repaired`);
    await queryRunner.query(`ALTER TABLE platform_products DROP COLUMN shop_updated_at, DROP COLUMN deleted_at`);
  }
}
