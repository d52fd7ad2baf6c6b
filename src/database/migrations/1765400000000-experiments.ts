import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Randomized experiments of a store (docs/experiments.md):
 * - `experiments`: an experiment's arms (name, share, treatment), the products taking part (all of the store's, its
 *   product types, or a list), the metrics, the plan and its state; the salt that, with a unit, gives its arm.
 * - `experiment_exposures`: each unit shown an experiment's product page once assigned, with its arm: the store's keyed
 *   digest of the integrator's id for the shopper, as sessions keep `shopper_ref`.
 * - `events.shopper_digest`: the shopper a purchase names (the same digest), so that the purchases of units who never
 *   open a session (the holdout) are attributed to their arm.
 * - `sessions.experiment_id` and `sessions.treatment`: the running experiment a session's shopper takes part in, and
 *   her arm's treatment, which the answers step applies (`chart_only`: the stated chart's answer alone).
 * The read models `events_order_events` and `events_order_lines` gain what experiments read: the purchase's shopper, and
 * the outcome times of its line.
 */
export class Experiments1765400000000 implements MigrationInterface {
  name = 'Experiments1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE experiments (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        name text NOT NULL,
        hypothesis text,
        state text NOT NULL CHECK (state IN ('draft', 'running', 'stopped')),
        arms jsonb NOT NULL,
        control_arm text NOT NULL,
        product_ids uuid[],
        product_type_ids uuid[],
        primary_metric text NOT NULL,
        guardrails text[] NOT NULL,
        minimum_effect double precision NOT NULL,
        baseline_rate double precision,
        planned_units integer NOT NULL,
        salt bytea NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        started_at timestamptz,
        stopped_at timestamptz,
        CONSTRAINT experiments_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT experiments_scope CHECK (product_ids IS NULL OR product_type_ids IS NULL)
      )`);
    await queryRunner.query(`CREATE INDEX experiments_store ON experiments (store_id, id)`);
    await queryRunner.query(`CREATE INDEX experiments_running ON experiments (store_id) WHERE state = 'running'`);
    await queryRunner.query(`
      CREATE TABLE experiment_exposures (
        experiment_id uuid NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        store_id uuid NOT NULL,
        unit_digest bytea NOT NULL,
        arm text NOT NULL,
        exposed_at timestamptz NOT NULL,
        PRIMARY KEY (experiment_id, unit_digest)
      )`);
    await queryRunner.query(`CREATE INDEX experiment_exposures_unit ON experiment_exposures (store_id, unit_digest)`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN shopper_digest bytea`);
    await queryRunner.query(`ALTER TABLE sessions ADD COLUMN experiment_id uuid`);
    await queryRunner.query(`ALTER TABLE sessions ADD COLUMN treatment text CHECK (treatment IN ('size_help', 'chart_only'))`);
    await queryRunner.query(`CREATE INDEX events_shopper ON events (store_id, shopper_digest) WHERE shopper_digest IS NOT NULL`);
    await queryRunner.query(`
      CREATE OR REPLACE VIEW events_order_events AS
        SELECT id, store_id, type, product_id, variant_id, new_variant_id, order_id, line_item_id, reason, fit_feedback,
               occurred_at, shopper_digest
          FROM events`);
    await queryRunner.query(`
      CREATE OR REPLACE VIEW events_order_lines AS
        SELECT store_id, order_id, line_item_id, purchased_variant_id, size_returned_at, kept_at, size_exchanged_at
          FROM order_lines`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW events_order_lines`);
    await queryRunner.query(
      `CREATE VIEW events_order_lines AS SELECT store_id, order_id, line_item_id, purchased_variant_id FROM order_lines`,
    );
    await queryRunner.query(`DROP VIEW events_order_events`);
    await queryRunner.query(`
      CREATE VIEW events_order_events AS
        SELECT id, store_id, type, product_id, variant_id, new_variant_id, order_id, line_item_id, reason, fit_feedback, occurred_at
          FROM events`);
    await queryRunner.query(`ALTER TABLE sessions DROP COLUMN treatment`);
    await queryRunner.query(`ALTER TABLE sessions DROP COLUMN experiment_id`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN shopper_digest`);
    await queryRunner.query(`DROP TABLE experiment_exposures`);
    await queryRunner.query(`DROP TABLE experiments`);
  }
}
