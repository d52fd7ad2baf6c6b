import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read models: what a module lets the others read of its tables, as views it owns (`READ_MODELS` in
 * `database/table-owners.ts`, docs/architecture.md "Tables and their owners"). Each view is a projection of one table
 * with the table's own column names, so PostgreSQL folds it into the statement that reads it: same plan, same indexes,
 * and `FOR KEY SHARE` through it locks the table's rows. A migration of the owner that drops or retypes a column a
 * view exposes fails until it recreates the view: the contract is the view's columns, kept by its owner.
 */
export class ReadModels1765000000000 implements MigrationInterface {
  name = 'ReadModels1765000000000';

  /** Kept in the class: the tests' snapshot of a migrated database is named after the migrations' code. */
  private readonly views: Record<string, string> = {
    // A key's store, read in the statement that authenticates the key.
    stores_records: `SELECT id, merchant_id, name, currency, unit_system, platform, platform_shop, created_at FROM stores`,
    // The key a console account stands on, and whether it is live: neither revoked nor expired.
    api_keys_records: `SELECT id, merchant_id, name, prefix, revoked_at, expires_at,
                              revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) AS live
                         FROM api_keys`,
    catalog_products: `SELECT id, store_id, product_type_id, size_chart_id, fit_adjustment FROM products`,
    catalog_variants: `SELECT id, store_id, product_id, size_label FROM variants`,
    catalog_product_types: `SELECT id, store_id, zone_weights FROM product_types`,
    // `labels`: the chart's size labels, smallest first (computed only by the statements that read it).
    catalog_size_charts: `SELECT id, store_id, unit, measurement_type, ease_cm, sizes,
                                 (SELECT array_agg(z.size->>'label' ORDER BY z.n)
                                    FROM jsonb_array_elements(sizes) WITH ORDINALITY AS z(size, n)) AS labels
                            FROM size_charts`,
    fit_sessions: `SELECT id, store_id, product_id, created_at, recommended_at, completed_at, outcome, recommendation, decision,
                          shopper_digest, first_purchased_at
                     FROM sessions`,
    // The one model written across a wall: the ingestion of purchases moves a session's first purchase.
    fit_session_purchases: `SELECT id, store_id, first_purchased_at FROM sessions`,
    events_order_events: `SELECT id, store_id, type, product_id, variant_id, new_variant_id, order_id, line_item_id, reason,
                                 fit_feedback, occurred_at
                            FROM events`,
    events_order_lines: `SELECT store_id, order_id, line_item_id, purchased_variant_id FROM order_lines`,
    events_session_lines: `SELECT store_id, session_id, order_id, line_item_id, session_created_at, session_recommended, shared,
                                  purchased_at, size_returned_at, kept_at, size_exchanged_at
                             FROM session_lines`,
  };

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, select] of Object.entries(this.views)) await queryRunner.query(`CREATE VIEW ${name} AS ${select}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of Object.keys(this.views).reverse()) await queryRunner.query(`DROP VIEW ${name}`);
  }
}
