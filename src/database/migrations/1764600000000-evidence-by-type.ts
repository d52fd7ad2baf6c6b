import type { MigrationInterface, QueryRunner } from 'typeorm';

const SCALARS = ['weight', 'weighted_steps', 'weighted_squares', 'undirected', 'undirected_above', 'undirected_below'];
const ARRAYS = ['at_least', 'at_most'];

/**
 * A product type's evidence kept as running sums (`fit_evidence_types`), added to in the transaction that adds to its
 * products' rows, so that a session's answers and an outcome from a returning shopper read their type's level and the
 * store's (the sum of its types) in rows per type, not by adding up every product row of the store. Filled from the
 * product rows as they stand.
 */
export class EvidenceByType1764600000000 implements MigrationInterface {
  name = 'EvidenceByType1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE fit_evidence_types (
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL,
        product_type_id uuid NOT NULL,
        weight double precision NOT NULL,
        weighted_steps double precision NOT NULL,
        weighted_squares double precision NOT NULL,
        undirected double precision NOT NULL,
        undirected_above double precision NOT NULL,
        undirected_below double precision NOT NULL,
        at_least double precision[] NOT NULL,
        at_most double precision[] NOT NULL,
        outcomes integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (store_id, product_type_id),
        CONSTRAINT fit_evidence_types_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id)
      )`);
    const elements = (column: string) => `ARRAY[${[1, 2, 3, 4].map((i) => `sum(${column}[${i}])`).join(', ')}]`;
    await queryRunner.query(`
      INSERT INTO fit_evidence_types (merchant_id, store_id, product_type_id, ${[...SCALARS, ...ARRAYS].join(', ')}, outcomes, updated_at)
        SELECT merchant_id, store_id, product_type_id, ${SCALARS.map((c) => `sum(${c})`).join(', ')},
               ${ARRAYS.map(elements).join(', ')}, sum(outcomes)::int, max(updated_at)
          FROM fit_evidence
         GROUP BY merchant_id, store_id, product_type_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE fit_evidence_types`);
  }
}
