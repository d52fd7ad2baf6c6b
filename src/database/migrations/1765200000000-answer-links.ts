import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How a store's answers should read its shoppers, learned from outcomes (src/sizing/answer-link.ts):
 * - `fit_answer_links`: per store and kind of answer (`chart`, `usual`, `both`), the decaying sums of a regression of
 *   where a shopper's size lay on what her answer read of her (`xx` the k×k products of the regressors, row-major,
 *   `xy` their products with the size, `yy`, `vv` the answers' own variances, `weight`), added to in the transaction
 *   that records an outcome.
 * - `line_lessons.answer_link`: what a line's lesson added to those sums (`{kind, sums}`), so a later
 *   outcome of the line takes it back exactly; null when it added nothing (no fit session behind it, or a bound).
 */
export class AnswerLinks1765200000000 implements MigrationInterface {
  name = 'AnswerLinks1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE fit_answer_links (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('chart', 'usual', 'both')),
        xx double precision[] NOT NULL,
        xy double precision[] NOT NULL,
        yy double precision NOT NULL,
        vv double precision NOT NULL,
        weight double precision NOT NULL,
        outcomes integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, kind),
        CONSTRAINT fit_answer_links_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id)
      )`);
    await queryRunner.query(`ALTER TABLE line_lessons ADD COLUMN answer_link jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE line_lessons DROP COLUMN answer_link`);
    await queryRunner.query(`DROP TABLE fit_answer_links`);
  }
}
