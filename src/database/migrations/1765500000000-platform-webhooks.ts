import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notifications a connected shop's platform sends (docs/platform-sync.md): each one received with a valid
 * signature is kept once per store and platform delivery id (a redelivery finds it), with its topic and body until it
 * is processed, then the outcome of processing it: the events it recorded or found recorded, and each line that could
 * not be mapped, for the console (`dead_letter`: every attempt failed, its job waits in the dead-letter queue for a
 * retry from the console). The jobs that process them live in pg-boss's own schema (`jobs`), which pg-boss
 * creates and upgrades itself.
 */
export class PlatformWebhooks1765500000000 implements MigrationInterface {
  name = 'PlatformWebhooks1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE platform_webhooks (
        id uuid PRIMARY KEY,
        store_id uuid NOT NULL,
        shop text NOT NULL,
        delivery_id text NOT NULL,
        topic text NOT NULL,
        received_at timestamptz NOT NULL,
        payload jsonb,
        state text NOT NULL CHECK (state IN ('queued', 'processed', 'failed', 'ignored', 'dead_letter')),
        outcome jsonb,
        processed_at timestamptz,
        CONSTRAINT platform_webhooks_delivery_key UNIQUE (store_id, delivery_id)
      )
    `);
    await queryRunner.query(`CREATE INDEX platform_webhooks_recent ON platform_webhooks (store_id, received_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE platform_webhooks`);
  }
}
