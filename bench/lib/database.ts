/** The bench's own database chores: create a bench_ database, tag connections, delete the bench's rows, vacuum. */
import pg from 'pg';
import { BENCH_MERCHANT } from './fixtures.js';

/** The URL with an application_name, so that the CPU of each server's PostgreSQL backends can be told apart. */
export const withApplication = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
};

/** Creates the database when it does not exist (only names starting with bench_). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`the bench only uses databases named bench_…, not ${JSON.stringify(name)}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rows.length) {
      process.stderr.write(`[bench] creating database ${name}\n`);
      await client.query(`CREATE DATABASE "${name}"`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Deletes everything of the bench's own merchants (never the seeded store's), in foreign-key order: first what the
 * bench's requests wrote, then, once the deleted rows are vacuumed away, the catalog. Deleted in the same transaction,
 * every variant's and product's foreign-key check would walk the hundreds of thousands of event rows just deleted (the
 * checks read a store the statistics have not seen by its id alone): minutes, not seconds.
 */
export async function deleteBenchRows(db: pg.Client): Promise<number> {
  const { rows } = await db.query(`SELECT id FROM merchants WHERE name = $1`, [BENCH_MERCHANT]);
  if (!rows.length) return 0;
  const merchants = rows.map((r) => r.id as string);
  const stores = `(SELECT id FROM stores WHERE merchant_id = ANY($1::uuid[]))`;
  const written = [
    'line_lessons',
    'session_lines',
    'order_lines',
    'events',
    'fit_evidence',
    'fit_evidence_types',
    'shopper_evidence',
    'fit_answer_links',
    'fit_verdicts',
  ];
  const events = await inTransaction(db, async () => {
    let deleted = 0;
    for (const table of written) {
      const { rowCount } = await db.query(`DELETE FROM ${table} WHERE store_id IN ${stores}`, [merchants]);
      if (table === 'events') deleted = rowCount ?? 0;
    }
    return deleted;
  });
  await db.query(`VACUUM ${written.join(', ')}`);
  await inTransaction(db, async () => {
    for (const table of ['sessions', 'variants', 'products', 'size_charts', 'product_types', 'questionnaires']) {
      await db.query(`DELETE FROM ${table} WHERE store_id IN ${stores}`, [merchants]);
    }
    await db.query(`DELETE FROM api_keys WHERE merchant_id = ANY($1::uuid[])`, [merchants]);
    await db.query(`DELETE FROM stores WHERE merchant_id = ANY($1::uuid[])`, [merchants]);
    await db.query(`DELETE FROM merchants WHERE id = ANY($1::uuid[])`, [merchants]);
  });
  return events;
}

async function inTransaction<T>(db: pg.Client, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}

/** The tables the service writes on the paths the bench times. */
const WRITTEN_TABLES = [
  'events',
  'order_lines',
  'session_lines',
  'line_lessons',
  'sessions',
  'fit_evidence',
  'fit_evidence_types',
  'shopper_evidence',
  'idempotency_keys',
];

/**
 * `VACUUM (ANALYZE)` of the tables the bench writes, before anything is timed: each run adds and deletes about a million
 * events, and until autovacuum reaches them the dead rows slow what follows (the fit flow at 8 connections measured
 * 97 flows/s with them and 151 right after a vacuum, the same build). Returns the seconds it took.
 */
export async function vacuumBenchTables(db: pg.Client): Promise<number> {
  const started = performance.now();
  await db.query(`VACUUM (ANALYZE) ${WRITTEN_TABLES.join(', ')}`);
  return Math.round((performance.now() - started) / 100) / 10;
}
