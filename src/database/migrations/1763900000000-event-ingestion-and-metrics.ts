import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event ingestion and the per-line summaries the cohort metrics read.
 *
 * - `events.payload_sha256`: the digest of a delivery's canonical form, compared when a delivery key repeats. The
 *   service's own events (source `size-fit`, which clients cannot use) are never compared and carry none.
 * - `order_lines`: one row per purchased or returned `(order_id, line_item_id)` of a store, with the earliest size
 *   return, kept signal and size exchange seen for it. Upserting it locks the line, which serialises concurrent
 *   events of one line.
 * - `session_lines`: one row per line linked to a session by a `purchase` event, with the session's creation time
 *   (immutable, so the metrics' cohort filter is an index range), whether the session got a recommendation, whether
 *   the line is linked to other sessions too (`shared`), and copies of the line's outcome times.
 * - `sessions.first_purchased_at`: the earliest purchase event naming the session.
 *
 * With these, every figure of the metrics comes from index-only range scans (docs/metrics.md).
 */
export class EventIngestionAndMetrics1763900000000 implements MigrationInterface {
  name = 'EventIngestionAndMetrics1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events ADD COLUMN payload_sha256 bytea`);
    await queryRunner.query(`
      ALTER TABLE events ADD CONSTRAINT events_payload_sha256_check
        CHECK (CASE WHEN source = 'size-fit' THEN payload_sha256 IS NULL ELSE octet_length(payload_sha256) = 32 END)`);
    await queryRunner.query(`CREATE INDEX events_order_line_idx ON events (store_id, order_id, line_item_id)`);
    await queryRunner.query(`ALTER TABLE sessions ADD COLUMN first_purchased_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX sessions_cohort_idx ON sessions (store_id, created_at)
         INCLUDE (recommended_at, outcome, first_purchased_at)`,
    );
    await queryRunner.query(`DROP INDEX sessions_store_created_at_idx`);

    await queryRunner.query(`
      CREATE TABLE order_lines (
        store_id uuid NOT NULL REFERENCES stores (id),
        order_id text NOT NULL,
        line_item_id text NOT NULL,
        size_returned_at timestamptz,
        kept_at timestamptz,
        size_exchanged_at timestamptz,
        PRIMARY KEY (store_id, order_id, line_item_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE session_lines (
        store_id uuid NOT NULL,
        session_id uuid NOT NULL,
        order_id text NOT NULL,
        line_item_id text NOT NULL,
        session_created_at timestamptz NOT NULL,
        session_recommended boolean NOT NULL,
        shared boolean NOT NULL DEFAULT false,
        purchased_at timestamptz NOT NULL,
        size_returned_at timestamptz,
        kept_at timestamptz,
        size_exchanged_at timestamptz,
        PRIMARY KEY (store_id, session_id, order_id, line_item_id),
        CONSTRAINT session_lines_session_fk FOREIGN KEY (session_id, store_id) REFERENCES sessions (id, store_id),
        CONSTRAINT session_lines_line_fk FOREIGN KEY (store_id, order_id, line_item_id)
          REFERENCES order_lines (store_id, order_id, line_item_id)
      )`);
    // A line linked to one session counts by its row; only lines linked to several need a distinct count, and they
    // sit in their own (small) index.
    await queryRunner.query(`
      CREATE INDEX session_lines_cohort_idx ON session_lines (store_id, session_created_at)
        INCLUDE (session_recommended, purchased_at, size_returned_at, kept_at, size_exchanged_at)
        WHERE NOT shared`);
    await queryRunner.query(`
      CREATE INDEX session_lines_shared_idx ON session_lines (store_id, session_created_at)
        INCLUDE (order_id, line_item_id, session_recommended, purchased_at, size_returned_at, kept_at, size_exchanged_at)
        WHERE shared`);
    await queryRunner.query(`CREATE INDEX session_lines_line_idx ON session_lines (store_id, order_id, line_item_id)`);

    // Events recorded before this migration (the service's own only, as ingestion did not exist) touch no line.
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE session_lines`);
    await queryRunner.query(`DROP TABLE order_lines`);
    await queryRunner.query(`DROP INDEX sessions_cohort_idx`);
    await queryRunner.query(`CREATE INDEX sessions_store_created_at_idx ON sessions (store_id, created_at)`);
    await queryRunner.query(`ALTER TABLE sessions DROP COLUMN first_purchased_at`);
    await queryRunner.query(`DROP INDEX events_order_line_idx`);
    await queryRunner.query(`ALTER TABLE events DROP CONSTRAINT events_payload_sha256_check`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN payload_sha256`);
  }
}
