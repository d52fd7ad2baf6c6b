import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The import of a connected shop's catalog (docs/platform-sync.md):
 * - `platform_imports`: one per store, its state and the cursor of the next page to read, so that an import cut off by
 *   a crash resumes where it stopped;
 * - `platform_products`: each product of the shop as last read, with its size option (by name, null when it has none)
 *   and its variants' sizes, and the catalog product whose `external_id` is the platform's id, once there is one.
 */
export class PlatformImports1765600000000 implements MigrationInterface {
  name = 'PlatformImports1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE platform_imports (
        store_id uuid PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('running', 'done', 'failed')),
        next_page text,
        pages integer NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        error text
      )
    `);
    await queryRunner.query(`
      CREATE TABLE platform_products (
        store_id uuid NOT NULL,
        platform_id text NOT NULL,
        title text NOT NULL,
        product_type text NOT NULL,
        vendor text NOT NULL,
        tags text[] NOT NULL,
        size_option text,
        variants jsonb NOT NULL,
        product_id uuid,
        imported_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, platform_id)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE platform_products`);
    await queryRunner.query(`DROP TABLE platform_imports`);
  }
}
