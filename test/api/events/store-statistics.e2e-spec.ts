/**
 * Statements that find rows by their key within a store use the key's index even for a store the planner's statistics
 * have never seen: a new store, on tables another store fills, until the next ANALYZE. Compared as a plain value, such
 * a store counts as one row, and the plans read all of its rows for each key (src/database/statements.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { statementText } from '../../../src/database/statements.js';
import { startApp, type TestApp } from '../../support/app.js';
import { eventsApi, uniqueId } from '../../support/event-fixtures.js';

const onPostgres = process.env.DATABASE_URL !== undefined;
/** Rows of the store the statistics know, in each table: enough for a plan that reads them all to be the costlier. */
const KNOWN_ROWS = 4000;

/** Each statement with its arguments for the new store, as SQL literals (`store` and the like filled in below). */
type Call = (ids: Ids) => string[];
interface Ids {
  readonly merchant: string;
  readonly store: string;
  readonly session: string;
  readonly product: string;
  readonly event: string;
}

const uuids = (...ids: string[]) => `'{${ids.join(',')}}'`;
const STATEMENTS: Record<string, Call> = {
  'sessions.lock': (i) => [`'${i.session}'`, `'${i.store}'`],
  'sessions.lock-for-answers': (i) => [`'${i.session}'`, `'${i.store}'`],
  'events.load-references': (i) => [`'${i.store}'`, uuids(i.product), uuids(), uuids(i.session)],
  // the event's columns in order (id … shopper_digest), then whether the clock admits it
  'events.insert-alone': (i) => [
    `'${i.event}'`,
    `'${i.merchant}'`,
    `'${i.store}'`,
    `'storefront'`,
    `'plan-1'`,
    `'purchase'`,
    `'${i.product}'`,
    'NULL',
    `'${i.session}'`,
    `'order-1'`,
    `'line-1'`,
    'NULL',
    '1',
    'now()',
    'now()',
    'NULL',
    'NULL',
    'NULL',
    'NULL',
    'true',
  ],
  'events.find-stored': (i) => [`'${i.merchant}'`, `'${i.store}'`, `'{storefront}'`, `'{order-1}'`],
  'line-summaries.mark-shared': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`],
  'line-summaries.copy-outcomes': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`, `'{NULL}'`, `'{NULL}'`, `'{NULL}'`],
  'line-summaries.first-purchases': (i) => [`'${i.store}'`, uuids(i.session), `'{2026-01-01T00:00:00Z}'`],
  'line-summaries.mark-recommended': (i) => [`'${i.store}'`, `'${i.session}'`],
  'line-summaries.lock-lines': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`],
  'line-summaries.set-waiting': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`, `'{false}'`],
  'evidence.outcome-sizes': (i) => [`'${i.store}'`, uuids(i.event)],
  'evidence.size-outcomes': (i) => [`'${i.store}'`, `'${i.product}'`],
  'line-lessons.read': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`],
  'line-lessons.decisions': (i) => [`'${i.store}'`, uuids(i.session), `'{order-1}'`, `'{line-1}'`],
  'line-lessons.imported': (i) => [`'${i.store}'`, `'${i.product}'`],
  'order-history.catalog': (i) => [`'${i.store}'`, uuids(i.product), uuids()],
  'order-history.purchases': (i) => [`'${i.store}'`, `'{order-1}'`, `'{line-1}'`],
  'catalog.lock-product': (i) => [`'${i.product}'`, `'${i.store}'`],
  'shoppers.unlink': (i) => [`'${i.store}'`, `'\\x00'`],
};

/** Tables whose rows grow with a store's traffic. */
const GROWING = new Set(['sessions', 'session_lines', 'order_lines', 'events']);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** The scans of a plan that read a store's rows by the store alone, or a growing table whole. */
function storeWideScans(node: PlanNode): string[] {
  const found: string[] = [];
  if (node['Node Type'] === 'Seq Scan' && GROWING.has(node['Relation Name'] ?? '')) found.push(`Seq Scan on ${node['Relation Name']}`);
  const condition = node['Index Cond'];
  // the store alone, as a value or a parameter (`$0`; `(InitPlan 1).col1` on PostgreSQL 17)
  if (condition !== undefined && /^\(store_id = ([^()]*|\(InitPlan \d+\)\.col\d+)\)$/.test(condition)) {
    found.push(`${node['Index Name']}: ${condition}`);
  }
  for (const child of node.Plans ?? []) found.push(...storeWideScans(child));
  return found;
}

describe('statements that find rows by key within a store', () => {
  let t: TestApp;
  let database: { url: string; drop(): Promise<void> } | null = null;

  beforeAll(async () => {
    // The statistics must know one store only: on PostgreSQL, a database of this file's own.
    database = onPostgres ? await freshDatabase(process.env.DATABASE_URL as string) : null;
    t = await startApp(database ? { databaseUrl: database.url } : {});
  });

  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('use the key, not the store alone, for a store the statistics have not seen', async () => {
    const { newShop, deliver, startSession } = eventsApi(t);
    const sql = t.app.get(DataSource);

    // The store the statistics know, with as many sessions, links, lines and events as KNOWN_ROWS.
    const known = await newShop();
    const session = await startSession(known);
    await deliver(known, {
      source: 'storefront',
      external_id: uniqueId(),
      type: 'purchase',
      product_id: known.productId,
      variant_id: known.variants.M,
      order_id: 'order-0',
      line_item_id: 'line-0',
      session_id: session.id,
      occurred_at: new Date().toISOString(),
    });
    await sql.query(
      `INSERT INTO sessions (id, merchant_id, store_id, product_id, size_chart_id, questions, state, created_at, updated_at)
       SELECT gen_random_uuid(), merchant_id, store_id, product_id, size_chart_id, questions, state, created_at, updated_at
         FROM sessions, generate_series(1, $2) WHERE id = $1`,
      [session.id, KNOWN_ROWS],
    );
    await sql.query(
      `INSERT INTO order_lines (store_id, order_id, line_item_id)
       SELECT $1, 'order-' || n, 'line-' || n FROM generate_series(1, $2) AS n`,
      [known.storeId, KNOWN_ROWS],
    );
    await sql.query(
      `INSERT INTO session_lines (store_id, session_id, order_id, line_item_id, session_created_at, session_recommended, purchased_at)
       SELECT store_id, id, 'order-' || row_number() OVER (), 'line-' || row_number() OVER (), created_at, false, now()
         FROM sessions WHERE store_id = $1 AND id <> $2`,
      [known.storeId, session.id],
    );
    await sql.query(
      `INSERT INTO events (id, merchant_id, store_id, source, external_id, type, occurred_at, received_at, payload_sha256)
       SELECT gen_random_uuid(), merchant_id, store_id, 'storefront', 'bulk-' || n, 'fit_viewed', now(), now(), payload_sha256
         FROM events, generate_series(1, $2) AS n WHERE store_id = $1 AND source = 'storefront'`,
      [known.storeId, KNOWN_ROWS],
    );
    await sql.query(
      `INSERT INTO line_lessons (merchant_id, store_id, order_id, line_item_id, product_id, occurred_at, counted, updated_at)
       SELECT $2, $1, 'order-' || n, 'line-' || n, $3, now(), true, now() FROM generate_series(1, $4) AS n`,
      [known.storeId, known.tenant.merchantId, known.productId, KNOWN_ROWS],
    );
    await sql.query('ANALYZE sessions, order_lines, session_lines, line_lessons, events, products, variants');

    // A store created since: the statistics have never seen it.
    const fresh = await newShop();
    const started = await startSession(fresh);
    const purchase = await deliver(fresh, {
      source: 'storefront',
      external_id: uniqueId(),
      type: 'purchase',
      product_id: fresh.productId,
      variant_id: fresh.variants.M,
      order_id: 'order-1',
      line_item_id: 'line-1',
      session_id: started.id,
      occurred_at: new Date().toISOString(),
    });
    const ids: Ids = {
      merchant: fresh.tenant.merchantId,
      store: fresh.storeId,
      session: started.id,
      product: fresh.productId,
      event: purchase.id,
    };

    const scans: Record<string, string[]> = {};
    await sql.transaction(async (manager) => {
      // The plan made with the arguments in sight, as PostgreSQL makes for each of its first calls of a statement.
      await manager.query('SET LOCAL plan_cache_mode = force_custom_plan');
      for (const [name, call] of Object.entries(STATEMENTS)) {
        const alias = `plan_${name.replace(/\W/g, '_')}`;
        await manager.query(`PREPARE ${alias} AS ${statementText(name)}`);
        const [row] = (await manager.query(`EXPLAIN (FORMAT JSON) EXECUTE ${alias}(${call(ids).join(', ')})`)) as Array<{
          'QUERY PLAN': Array<{ Plan: PlanNode }> | string;
        }>;
        const plan = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
        scans[name] = storeWideScans((plan as Array<{ Plan: PlanNode }>)[0].Plan);
        await manager.query(`DEALLOCATE ${alias}`);
      }
    });
    expect(scans).toEqual(Object.fromEntries(Object.keys(STATEMENTS).map((name) => [name, []])));
  });
});

/** A new database beside the one `url` names, dropped after the file. */
async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const target = new URL(url);
  const name = `${target.pathname.slice(1)}_plans_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
