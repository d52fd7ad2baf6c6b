import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Learning from a store's past orders (`POST /v1/stores/{store_id}/order-history`, docs/decisions/009-learning-from-outcomes.md,
 * "Past orders"):
 * - `line_lessons.source`: who told the outcome a line teaches through, an event (or a session's decision) or an import
 *   of past orders; every lesson before this came from events. An imported lesson is always counted and names no event.
 * - An imported line has no `order_lines` row (the metrics never see it), so a lesson no longer refers to one.
 * - `line_lessons_imported_idx`: the imported lessons that taught a product something, counted by its view of how it fits.
 * - `fit_evidence_product_idx`: a product's sums found by the product alone, as the catalog's delete-or-archive check
 *   (and the check of the product's foreign key) looks for them: imported evidence is a product's only reference
 *   when no event names it.
 */
export class OrderHistory1765100000000 implements MigrationInterface {
  name = 'OrderHistory1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE line_lessons
        ADD COLUMN source text NOT NULL DEFAULT 'event',
        ADD CONSTRAINT line_lessons_source_check CHECK (source IN ('event', 'history')),
        ADD CONSTRAINT line_lessons_history_check CHECK (source = 'event' OR (counted AND event_id IS NULL)),
        DROP CONSTRAINT line_lessons_line_fk`);
    await queryRunner.query(
      `CREATE INDEX line_lessons_imported_idx ON line_lessons (store_id, product_id) WHERE source = 'history' AND evidence IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX fit_evidence_product_idx ON fit_evidence (product_id)`);
  }

  /** Imported lessons are forgotten (what they added stays in the sums, as for lines counted before lessons were kept). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX fit_evidence_product_idx`);
    await queryRunner.query(`DROP INDEX line_lessons_imported_idx`);
    await queryRunner.query(`DELETE FROM line_lessons WHERE source = 'history'`);
    await queryRunner.query(`
      ALTER TABLE line_lessons
        DROP CONSTRAINT line_lessons_history_check,
        DROP CONSTRAINT line_lessons_source_check,
        DROP COLUMN source,
        ADD CONSTRAINT line_lessons_line_fk FOREIGN KEY (store_id, order_id, line_item_id)
          REFERENCES order_lines (store_id, order_id, line_item_id)`);
  }
}
