import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The odds of each verdict for a size a shopper takes, learned from outcomes (src/sizing/verdicts.ts):
 * - `fit_verdicts`: per store and key (`store`, `product:<id>`, `type:<id>`, `place:<from the answer's mean>:<from her usual size>`,
 *   `usual:<from her usual size>`),
 *   the decaying sums of the verdicts seen (too small, fit, too large) and, for a place, of what the item's rates
 *   expected there, added to in the transaction that records an outcome.
 * - `line_lessons.verdict`: what a line's lesson added to them (`{verdict, at, places, expected}`), so a later outcome
 *   of the line takes it back exactly; null when it added nothing.
 */
export class VerdictOdds1765300000000 implements MigrationInterface {
  name = 'VerdictOdds1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE fit_verdicts (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        key text NOT NULL,
        observed double precision[] NOT NULL CHECK (cardinality(observed) = 3),
        expected double precision[] NOT NULL CHECK (cardinality(expected) = 3),
        outcomes integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, key),
        CONSTRAINT fit_verdicts_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id)
      )`);
    await queryRunner.query(`ALTER TABLE line_lessons ADD COLUMN verdict jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE line_lessons DROP COLUMN verdict`);
    await queryRunner.query(`DROP TABLE fit_verdicts`);
  }
}
