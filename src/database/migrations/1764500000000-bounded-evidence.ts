import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outcomes that bound where a shopper's size lay rather than say it (sizing/learning.ts): for size problems with no
 * direction, whether the size bought lay above or below the chart's answer (the rest were bought at it); and sums of
 * bounds, "at least" and "at most" so many steps (a kept item in the chart's largest or smallest size), one element per
 * step of BOUND_STEPS. Rows written before this count their undirected problems as bought at the chart's answer and
 * their edge sizes kept as exact.
 */
export class BoundedEvidence1764500000000 implements MigrationInterface {
  name = 'BoundedEvidence1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['fit_evidence', 'shopper_evidence']) {
      await queryRunner.query(`
        ALTER TABLE ${table}
          ADD COLUMN undirected_above double precision NOT NULL DEFAULT 0,
          ADD COLUMN undirected_below double precision NOT NULL DEFAULT 0,
          ADD COLUMN at_least double precision[] NOT NULL DEFAULT '{0,0,0,0}',
          ADD COLUMN at_most double precision[] NOT NULL DEFAULT '{0,0,0,0}'`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['fit_evidence', 'shopper_evidence']) {
      await queryRunner.query(
        `ALTER TABLE ${table} DROP COLUMN undirected_above, DROP COLUMN undirected_below, DROP COLUMN at_least, DROP COLUMN at_most`,
      );
    }
  }
}
