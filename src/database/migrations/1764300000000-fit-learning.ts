import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Learning how products fit from outcomes:
 * - on events, the direction of a size problem on returns and exchanges (`fit_feedback`) and the size a shopper
 *   exchanged to (`new_variant_id`, a variant of the same store, checked to be of the event's product when stored);
 * - `fit_evidence`: the decaying sums of the evidence outcomes gave about each product (sizing/learning.ts), added
 *   to in the transaction that stores the outcome. A product type's and a store's sums are those of their products'
 *   rows, added up when read: sums add exactly, and no row is shared by every outcome of a store.
 */
export class FitLearning1764300000000 implements MigrationInterface {
  name = 'FitLearning1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE events
        ADD COLUMN fit_feedback text CHECK (fit_feedback IN ('too_small', 'too_large')),
        ADD COLUMN new_variant_id uuid,
        ADD CONSTRAINT events_new_variant_fk FOREIGN KEY (new_variant_id, store_id) REFERENCES variants (id, store_id)`);
    await queryRunner.query(`CREATE INDEX events_new_variant_id_idx ON events (new_variant_id) WHERE new_variant_id IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE fit_evidence (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        product_id uuid NOT NULL,
        product_type_id uuid NOT NULL,
        weight double precision NOT NULL,
        weighted_steps double precision NOT NULL,
        weighted_squares double precision NOT NULL,
        undirected double precision NOT NULL,
        outcomes integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, product_id),
        CONSTRAINT fit_evidence_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT fit_evidence_product_fk FOREIGN KEY (product_id, store_id) REFERENCES products (id, store_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE fit_evidence`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN new_variant_id, DROP COLUMN fit_feedback`);
  }
}
