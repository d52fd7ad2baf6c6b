import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One lesson per order line (docs/decisions/009-learning-from-outcomes.md):
 * - `order_lines.purchased_variant_id`: the variant of the line's first stored purchase; an outcome teaches only about
 *   a line bought in its variant. `order_lines.lesson_waiting`: an outcome of the line is stored and waits for that
 *   purchase; the purchase, which upserts the line, reads the flag under the line's lock.
 * - `line_lessons`: what each line teaches now: its latest outcome (or, before any, the decision of the session it was
 *   bought after), and exactly what that added to its product's, its type's and its shopper's sums, so that a later
 *   outcome of the line takes it back before adding its own.
 *
 * Lines stored before this keep what their outcomes added; they have no lesson, so a later outcome of such a line adds
 * its own beside it. Their purchases' variants are filled from the stored purchases.
 */
export class LineLessons1764800000000 implements MigrationInterface {
  name = 'LineLessons1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE order_lines
        ADD COLUMN purchased_variant_id uuid,
        ADD COLUMN lesson_waiting boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      UPDATE order_lines AS l SET purchased_variant_id = p.variant_id
        FROM (SELECT DISTINCT ON (store_id, order_id, line_item_id) store_id, order_id, line_item_id, variant_id
                FROM events
               WHERE type = 'purchase' AND order_id IS NOT NULL AND line_item_id IS NOT NULL
               ORDER BY store_id, order_id, line_item_id, occurred_at, id) AS p
       WHERE l.store_id = p.store_id AND l.order_id = p.order_id AND l.line_item_id = p.line_item_id`);
    await queryRunner.query(`
      CREATE TABLE line_lessons (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        order_id text NOT NULL,
        line_item_id text NOT NULL,
        product_id uuid NOT NULL,
        variant_id uuid,
        event_id uuid,
        occurred_at timestamptz NOT NULL,
        counted boolean NOT NULL,
        product_type_id uuid,
        evidence jsonb,
        shopper_digest bytea,
        shopper_offset double precision,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, order_id, line_item_id),
        CONSTRAINT line_lessons_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT line_lessons_line_fk FOREIGN KEY (store_id, order_id, line_item_id)
          REFERENCES order_lines (store_id, order_id, line_item_id),
        CONSTRAINT line_lessons_counted_check CHECK (counted OR (evidence IS NULL AND event_id IS NOT NULL)),
        CONSTRAINT line_lessons_shopper_check CHECK ((shopper_digest IS NULL) = (shopper_offset IS NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX line_lessons_shopper_idx ON line_lessons (store_id, shopper_digest) WHERE shopper_digest IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE line_lessons`);
    await queryRunner.query(`ALTER TABLE order_lines DROP COLUMN purchased_variant_id, DROP COLUMN lesson_waiting`);
  }
}
