import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The event types as the service knew them when this ran (`events/event-types.ts`); a new type adds a migration. */
const TYPES = [
  'fit_started',
  'fit_completed',
  'recommendation_generated',
  'recommendation_accepted',
  'recommendation_overridden',
  'fit_viewed',
  'add_to_cart',
  'checkout_started',
  'purchase',
  'return_requested',
  'size_exchange',
  'item_kept',
];

/** `events.type` holds only the types the service knows: a row of another type cannot be written, by any path. */
export class EventTypes1764900000000 implements MigrationInterface {
  name = 'EventTypes1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${TYPES.map((t) => `'${t}'`).join(', ')}))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP CONSTRAINT events_type_check`);
  }
}
