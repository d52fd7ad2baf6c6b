/**
 * Seeds ONE store with metrics-scale data for the cohort metrics (docs/metrics.md): by default 1,000,000 sessions
 * over the last 365 days and about a million purchase events that name a session, plus unassisted purchases,
 * returns, size exchanges and kept signals. Used by bench/metrics-at-scale.ts; can also run on its own:
 *
 *   npm run seed:metrics -- --database-url postgres://postgres@127.0.0.1:5432/bench_metrics [--sessions 1000000]
 *
 * The database is DROPPED and created again first (its name must start with `bench_`, so that a database that
 * matters cannot be reset by mistake): a stale schema or a previous seed never survives.
 *
 * How: the built service is started on the new database (which runs the migrations); the merchant, store, product
 * type, size chart, products and variants are created through its HTTP API, and a few real sessions are taken
 * through answers and decision so that every seeded session carries the jsonb of a real one. Then, in one
 * transaction on one connection, sessions and integration events are generated server-side (`CREATE TEMP TABLE …
 * AS SELECT … FROM generate_series`), and the summaries the metrics read are derived from the generated events with
 * the rules of src/events/line-summaries.repository.ts: `sessions.first_purchased_at` (earliest purchase naming the session),
 * `order_lines` (earliest size return / kept / size exchange per line) and `session_lines` (one row per session
 * and line a purchase links, with `session_recommended` and `shared`). Before commit, every invariant is checked
 * against the stored `events` and `sessions` and the seed fails on any mismatch. VACUUM ANALYZE last, so the
 * figures are those of a database autovacuum has caught up with.
 *
 * The seeded merchant's admin secret is never written to the database: it is kept in a local state file,
 * `bench/.state/<database name>.json` (mode 0600, git-ignored), which the bench reads to find the store again.
 *
 * Proportions (per session unless said): 70% recommended; of those 60% decided (75% accepted, 25% overridden);
 * 65% of recommended and 10% of other sessions buy 1–3 lines of the session's product, so that purchase events
 * naming a session number about one per session; about 2% of lines are also named by another session and 1% of
 * purchases are delivered twice; unassisted purchases add 20% more lines. Per line: 12% size return (a tenth of them
 * sent twice), 4% other return, 5% size exchange (1% other), 40% kept; a quarter of outcomes come without
 * session_id. Events that would lie in the future are not generated (recent purchases are still immature).
 * Random draws use setseed(), so a run with the same --sessions reproduces the same shape.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { call, type Json, startService } from '../bench/lib/service.js';

export interface SeedOptions {
  readonly databaseUrl: string;
  /** Base URL and operator key of a service running on that database. */
  readonly api: { readonly base: string; readonly operatorKey: string };
  readonly sessions: number;
}

export interface SeedResult {
  readonly merchantId: string;
  readonly storeId: string;
  readonly adminKey: string;
  readonly sessions: number;
  readonly seconds: number;
  readonly rows: Record<string, number>;
}

const log = (line: string) => process.stderr.write(`[seed:metrics] ${line}\n`);

/** Bumped when the seeded data's shape changes, so that a bench does not reuse a store seeded the old way. */
const SEED_FORMAT = 2;
/** The repository root (this file runs as dist/scripts/seed-metrics.js). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the bench needs to find a seeded store again. Holds the admin secret: local file only, never the database. */
export interface SeedState {
  readonly database: string;
  readonly server: string;
  readonly format: number;
  /** sha256 of the compiled migrations: a migration changed in place makes the seeded database stale. */
  readonly schema: string;
  readonly merchantId: string;
  readonly storeId: string;
  readonly adminKey: string;
  readonly sessions: number;
  readonly seconds: number;
  readonly seededAt: string;
  readonly rows: Record<string, number>;
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));
const serverOf = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}`;
};

/** bench/.state/<database name>.json (the directory is git-ignored). */
export function statePath(databaseUrl: string): string {
  const name = databaseName(databaseUrl);
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`unexpected database name ${JSON.stringify(name)}`);
  return join(ROOT, 'bench', '.state', `${name}.json`);
}

function schemaFingerprint(): string {
  const dir = join(ROOT, 'dist', 'src', 'database', 'migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

function writeState(state: SeedState, databaseUrl: string): void {
  const file = statePath(databaseUrl);
  mkdirSync(join(ROOT, 'bench', '.state'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600); // whatever the umask
  renameSync(temporary, file);
}

/**
 * The store a previous seed of `sessions` sessions left in this database, or null when the state file is missing,
 * was written for another server, schema or seed format, or the store no longer has exactly that many sessions.
 */
export async function findSeeded(databaseUrl: string, sessions: number): Promise<SeedState | null> {
  const file = statePath(databaseUrl);
  if (!existsSync(file)) return null;
  const state = JSON.parse(readFileSync(file, 'utf8')) as SeedState;
  if (state.server !== serverOf(databaseUrl) || state.database !== databaseName(databaseUrl)) return null;
  if (state.format !== SEED_FORMAT || state.schema !== schemaFingerprint() || state.sessions !== sessions) return null;
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    await db.connect();
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM sessions WHERE store_id = $1`, [state.storeId]);
    return rows[0].n === sessions ? state : null;
  } catch {
    return null; // no such database, or not migrated
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** Drops the database (terminating its connections) and creates it empty. Only for databases named bench_…. */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  if (!/^bench_[a-z0-9_]+$/.test(name)) {
    throw new Error(`refusing to drop and recreate ${JSON.stringify(name)}: the seed only resets databases named bench_…`);
  }
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    log(`dropping and creating database ${name}`);
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/**
 * The whole seed: recreate the database, start the built service on it (migrations), seed, stop the service and
 * write the state file. Returns the state.
 */
export async function seedDatabase(databaseUrl: string, sessions: number, port: number): Promise<SeedState> {
  const started = performance.now();
  await recreateDatabase(databaseUrl);
  const service = await startService(port, { DATABASE_URL: databaseUrl });
  let result: SeedResult;
  try {
    result = await seedMetrics({ databaseUrl, sessions, api: service });
  } finally {
    await service.stop();
  }
  const state: SeedState = {
    database: databaseName(databaseUrl),
    server: serverOf(databaseUrl),
    format: SEED_FORMAT,
    schema: schemaFingerprint(),
    merchantId: result.merchantId,
    storeId: result.storeId,
    adminKey: result.adminKey,
    sessions: result.sessions,
    seconds: Math.round((performance.now() - started) / 1000),
    seededAt: new Date().toISOString(),
    rows: result.rows,
  };
  writeState(state, databaseUrl);
  log(`state written to ${statePath(databaseUrl)} (mode 0600)`);
  return state;
}

/** A UUIDv7 (what the service's newId() issues) for the millisecond of a timestamptz expression. */
const uuid7 = (at: string) =>
  `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM ${at}) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;
/** Date.prototype.toISOString() of a timestamptz expression. */
const iso = (at: string) => `to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const jsonText = (value: string) => `coalesce(to_json(${value})::text, 'null')`;
/** random() as an interval between two bounds, truncated to milliseconds like every instant the API accepts. */
const after = (at: string, min: string, max: string) =>
  `date_trunc('milliseconds', ${at} + interval '${min}' + random() * (interval '${max}' - interval '${min}'))`;

/** The catalog through the API, and real sessions whose jsonb every seeded session copies. */
async function createStore(api: SeedOptions['api']) {
  const { base } = api;
  const merchant = await call(base, 'POST', '/v1/merchants', api.operatorKey, { name: 'Metrics at scale' });
  const adminKey = merchant.api_key.secret as string;
  const store = (await call(base, 'POST', '/v1/stores', adminKey, { name: 'Metrics at scale' })).id as string;
  const fitKey = (await call(base, 'POST', '/v1/api-keys', adminKey, { name: 'seed fit', store_id: store, scopes: ['fit'] }))
    .secret as string;
  const s = `/v1/stores/${store}`;
  const type = await call(base, 'POST', `${s}/product-types`, adminKey, {
    name: 'Tops',
    category: 'tops',
    zone_weights: { chest: 1, waist: 0.5 },
  });
  const bounds: [string, number, number][] = [
    ['XS', 78, 63],
    ['S', 86, 71],
    ['M', 94, 79],
    ['L', 102, 87],
    ['XL', 110, 95],
    ['XXL', 118, 103],
  ];
  const chart = await call(base, 'POST', `${s}/size-charts`, adminKey, {
    name: 'Tops',
    unit: 'cm',
    measurement_type: 'body',
    sizes: bounds.map(([label, chest, waist]) => ({
      label,
      measurements: { chest: { min: chest, max: chest + 8 }, waist: { min: waist, max: waist + 8 } },
    })),
  });
  const templates: Json[] = [];
  const profiles = [
    { height: { value: 162, unit: 'cm' }, weight: { value: 55, unit: 'kg' }, age: 29, sex: 'female' },
    { height: { value: 176, unit: 'cm' }, weight: { value: 74, unit: 'kg' }, age: 41, sex: 'male' },
    { height: { value: 188, unit: 'cm' }, weight: { value: 96, unit: 'kg' }, age: 35, sex: 'male' },
  ];
  for (const title of ['Crew tee', 'Oxford shirt', 'Hoodie', 'Overshirt']) {
    const product = await call(base, 'POST', `${s}/products`, adminKey, { title, product_type_id: type.id, size_chart_id: chart.id });
    const variants = new Map<string, string>();
    for (const [label] of bounds) {
      variants.set(label, (await call(base, 'POST', `${s}/products/${product.id}/variants`, adminKey, { size_label: label })).id);
    }
    for (const answers of profiles) {
      const session = await call(base, 'POST', `${s}/sessions`, fitKey, { product_id: product.id });
      const recommended = await call(base, 'POST', `${s}/sessions/${session.id}/answers`, fitKey, { answers });
      const label = recommended.recommendation.size_label as string;
      const other = bounds[(bounds.findIndex(([l]) => l === label) + 1) % bounds.length][0];
      await call(base, 'POST', `${s}/sessions/${session.id}/decision`, fitKey, { size_label: label });
      templates.push({
        session: session.id,
        variants: [...variants.values()],
        accepted: variants.get(label),
        overridden: variants.get(other),
        other,
      });
    }
  }
  return { merchantId: merchant.merchant.id as string, adminKey, storeId: store, chartId: chart.id as string, templates };
}

/**
 * Counts, for one store, the rows that break an invariant ingestion keeps (src/events/line-summaries.repository.ts), all
 * recomputed from `events` and `sessions`: every count is 0 on a consistent store. `$1`: the store id.
 */
export const SUMMARY_INVARIANTS = `
  WITH purchases AS (
    SELECT session_id, order_id, line_item_id, min(occurred_at) AS purchased_at
      FROM events
     WHERE store_id = $1 AND type = 'purchase' AND session_id IS NOT NULL AND order_id IS NOT NULL AND line_item_id IS NOT NULL
     GROUP BY 1, 2, 3
  ), first_purchases AS (
    SELECT session_id, min(purchased_at) AS at FROM purchases GROUP BY 1
  ), lines AS (
    SELECT order_id, line_item_id,
           min(occurred_at) FILTER (WHERE type = 'return_requested' AND reason = 'size') AS size_returned_at,
           min(occurred_at) FILTER (WHERE type = 'item_kept') AS kept_at,
           min(occurred_at) FILTER (WHERE type = 'size_exchange' AND reason = 'size') AS size_exchanged_at
      FROM events
     WHERE store_id = $1 AND order_id IS NOT NULL AND line_item_id IS NOT NULL
       AND (type IN ('purchase', 'item_kept') OR (reason = 'size' AND type IN ('return_requested', 'size_exchange')))
     GROUP BY 1, 2
  ), links AS (
    SELECT p.session_id, p.order_id, p.line_item_id, p.purchased_at, s.created_at,
           s.recommended_at IS NOT NULL AS recommended,
           count(*) OVER (PARTITION BY p.order_id, p.line_item_id) > 1 AS shared,
           l.size_returned_at, l.kept_at, l.size_exchanged_at
      FROM purchases p
      JOIN sessions s ON s.id = p.session_id
      JOIN lines l ON l.order_id = p.order_id AND l.line_item_id = p.line_item_id
  )
  SELECT
    (SELECT count(*) FROM sessions s LEFT JOIN first_purchases f ON f.session_id = s.id
      WHERE s.store_id = $1 AND s.first_purchased_at IS DISTINCT FROM f.at)::int AS first_purchased_at,
    (SELECT count(*) FROM (SELECT * FROM order_lines WHERE store_id = $1) o
       FULL JOIN lines l ON l.order_id = o.order_id AND l.line_item_id = o.line_item_id
      WHERE o.order_id IS NULL OR l.order_id IS NULL
         OR (o.size_returned_at, o.kept_at, o.size_exchanged_at)
            IS DISTINCT FROM (l.size_returned_at, l.kept_at, l.size_exchanged_at))::int AS order_lines,
    (SELECT count(*) FILTER (WHERE x.session_id IS NULL OR e.session_id IS NULL) FROM (SELECT * FROM session_lines WHERE store_id = $1) x
       FULL JOIN links e ON e.session_id = x.session_id AND e.order_id = x.order_id AND e.line_item_id = x.line_item_id)::int
      AS session_lines_rows,
    (SELECT count(*) FILTER (WHERE x.session_recommended IS DISTINCT FROM e.recommended)::int FROM session_lines x
       JOIN links e ON e.session_id = x.session_id AND e.order_id = x.order_id AND e.line_item_id = x.line_item_id
      WHERE x.store_id = $1) AS session_recommended,
    (SELECT count(*) FILTER (WHERE x.shared IS DISTINCT FROM e.shared)::int FROM session_lines x
       JOIN links e ON e.session_id = x.session_id AND e.order_id = x.order_id AND e.line_item_id = x.line_item_id
      WHERE x.store_id = $1) AS shared,
    (SELECT count(*) FILTER (WHERE (x.session_created_at, x.purchased_at, x.size_returned_at, x.kept_at, x.size_exchanged_at)
                                   IS DISTINCT FROM (e.created_at, e.purchased_at, e.size_returned_at, e.kept_at, e.size_exchanged_at))::int
       FROM session_lines x
       JOIN links e ON e.session_id = x.session_id AND e.order_id = x.order_id AND e.line_item_id = x.line_item_id
      WHERE x.store_id = $1) AS session_lines_times`;

export async function seedMetrics(options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const rows: Record<string, number> = {};
  log(`creating the merchant, store and catalog through ${options.api.base}`);
  const made = await createStore(options.api);
  const { storeId, merchantId } = made;

  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  const stage = async (name: string, sql: string, params: unknown[] = []) => {
    const t = performance.now();
    const result = await db.query(sql, params);
    if (result.rowCount !== null && /^\s*(INSERT|CREATE TEMP TABLE)/i.test(sql)) rows[name] = result.rowCount;
    log(`${name}: ${result.rowCount ?? ''} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  try {
    await db.query(`SET temp_buffers = '256MB'`);
    await db.query(`SET work_mem = '128MB'`);
    await db.query(`SET maintenance_work_mem = '256MB'`);
    await db.query(`SET synchronous_commit = off`);
    await db.query('BEGIN');
    await db.query('SELECT setseed(0.42)');

    // The real sessions (now) are the templates: their jsonb, product and chosen variants.
    await stage(
      'templates',
      `CREATE TEMP TABLE seed_templates AS
       SELECT t.t, s.product_id, s.size_chart_id, s.questions, s.answers, s.recommendation,
              s.decision - 'decided_at' AS accepted,
              jsonb_build_object('size_label', t.other, 'variant_id', t.overridden, 'outcome', 'overridden') AS overridden,
              t.accepted AS accepted_variant, t.overridden AS overridden_variant, t.variants
         FROM jsonb_to_recordset($1::jsonb)
                AS t(t int, session uuid, variants uuid[], accepted uuid, overridden uuid, other text)
         JOIN sessions s ON s.id = t.session`,
      [JSON.stringify(made.templates.map((template, t) => ({ t, ...template })))],
    );
    const generated = options.sessions - made.templates.length;

    // One row of random draws per session; the previous session of the same product is the "other session" that
    // also names some lines (created before this one, so before its purchase).
    await stage(
      'plan sessions',
      `CREATE TEMP TABLE seed_sessions AS
       WITH draws AS (
         SELECT i, date_trunc('milliseconds', now() - random() * interval '365 days') AS created_at,
                floor(random() * (SELECT count(*) FROM seed_templates))::int AS t,
                random() AS r_rec, random() AS r_dec, random() AS r_acc, random() AS r_buy, random() AS r_lines
           FROM generate_series(1, $1::int) i
       ), decided AS (
         SELECT d.*, r_rec < 0.70 AS recommended,
                CASE WHEN r_rec < 0.70 AND r_dec < 0.60 THEN CASE WHEN r_acc < 0.75 THEN 'accepted' ELSE 'overridden' END END AS outcome
           FROM draws d
       ), timed AS (
         SELECT d.*, CASE WHEN recommended THEN least(${after('created_at', '20 seconds', '5 minutes')}, now()) END AS recommended_at
           FROM decided d
       ), identified AS (
         SELECT x.*, tp.product_id,
                CASE WHEN outcome IS NOT NULL THEN least(${after('recommended_at', '5 seconds', '10 minutes')}, now()) END AS completed_at,
                CASE WHEN recommended THEN r_buy < 0.65 ELSE r_buy < 0.10 END AS converted,
                1 + floor(r_lines * 3)::int AS n_lines,
                ${uuid7('x.created_at')} AS id
           FROM timed x JOIN seed_templates tp USING (t)
       )
       SELECT i.*, lag(id) OVER (PARTITION BY product_id ORDER BY created_at) AS prev_session_id FROM identified i`,
      [generated],
    );

    // Lines: those bought with a session (the first one of the variant the shopper settled on), then unassisted ones.
    await stage(
      'plan lines',
      `CREATE TEMP TABLE seed_lines AS
       WITH bought AS (
         SELECT s.i AS order_no, s.id AS session_id, s.prev_session_id, s.product_id, s.t, s.n_lines, s.outcome,
                date_trunc('milliseconds', s.created_at + power(random(), 3) * interval '3 days') AS purchased_at
           FROM seed_sessions s WHERE s.converted
       ), assisted AS (
         SELECT b.order_no, k, b.session_id, b.prev_session_id, b.product_id, b.purchased_at,
                CASE WHEN k > 1 THEN tp.variants[1 + floor(random() * cardinality(tp.variants))::int]
                     WHEN b.outcome = 'overridden' THEN tp.overridden_variant ELSE tp.accepted_variant END AS variant_id
           FROM bought b JOIN seed_templates tp USING (t), generate_series(1, b.n_lines) k
          WHERE b.purchased_at <= now()
       ), unassisted AS (
         SELECT $1::int + j AS order_no, 1 AS k, NULL::uuid AS session_id, NULL::uuid AS prev_session_id, tp.product_id,
                date_trunc('milliseconds', now() - random() * interval '365 days') AS purchased_at,
                tp.variants[1 + floor(random() * cardinality(tp.variants))::int] AS variant_id
           FROM generate_series(1, $2::int) j
           JOIN seed_templates tp ON tp.t = j % (SELECT count(*) FROM seed_templates)
       )
       SELECT l.*, (4000000000 + order_no)::text AS order_id, (9000000000 + order_no * 4 + k)::text AS line_item_id,
              random() AS r_ret, random() AS r_exch, random() AS r_kept, random() AS r_sid, random() AS r_dup
         FROM (SELECT * FROM assisted UNION ALL SELECT * FROM unassisted) l`,
      [generated, Math.round(options.sessions * 0.2)],
    );

    // The integration events, planned before anything is stored: the sessions' first_purchased_at is derived from
    // them, and the sessions must be stored before the events that name them.
    const outcome = (type: string, reason: string | null, where: string, at: string, seq = 1) => `
      SELECT '${type}' AS type, product_id, variant_id, CASE WHEN r_sid < 0.75 THEN session_id END AS session_id,
             order_id, line_item_id, ${reason === null ? 'NULL' : `'${reason}'`} AS reason, ${at} AS occurred_at, ${seq} AS seq
        FROM seed_lines WHERE ${where}`;
    await stage(
      'plan events',
      `CREATE TEMP TABLE seed_events AS
       SELECT o.type, o.product_id, o.variant_id, o.session_id, o.order_id, o.line_item_id, o.reason, o.occurred_at,
              'shopify'::text AS source, concat_ws(':', o.type, o.order_id, o.line_item_id, o.seq) AS external_id,
              o.occurred_at + random() * interval '20 seconds' AS received_at
         FROM (
           SELECT 'purchase' AS type, product_id, variant_id, session_id, order_id, line_item_id, NULL AS reason,
                  purchased_at AS occurred_at, 1 AS seq FROM seed_lines
           UNION ALL -- delivered twice, the second time later
           SELECT 'purchase', product_id, variant_id, session_id, order_id, line_item_id, NULL,
                  ${after('purchased_at', '1 minute', '1 hour')}, 2
             FROM seed_lines WHERE session_id IS NOT NULL AND r_dup < 0.01
           UNION ALL -- the same line named by another session of the same product
           SELECT 'purchase', product_id, variant_id, prev_session_id, order_id, line_item_id, NULL, purchased_at, 3
             FROM seed_lines WHERE prev_session_id IS NOT NULL AND r_dup >= 0.98
           UNION ALL ${outcome('return_requested', 'size', 'r_ret < 0.12', after('purchased_at', '3 days', '30 days'))}
           UNION ALL ${outcome('return_requested', 'size', 'r_ret < 0.012', after('purchased_at', '31 days', '40 days'), 2)}
           UNION ALL ${outcome('return_requested', 'other', 'r_ret >= 0.12 AND r_ret < 0.16', after('purchased_at', '3 days', '30 days'))}
           UNION ALL ${outcome('size_exchange', 'size', 'r_exch < 0.05', after('purchased_at', '3 days', '30 days'))}
           UNION ALL ${outcome('size_exchange', 'other', 'r_exch >= 0.05 AND r_exch < 0.06', after('purchased_at', '3 days', '30 days'))}
           UNION ALL ${outcome('item_kept', null, 'r_kept < 0.40', after('purchased_at', '30 days', '45 days'))}
         ) o
        WHERE o.occurred_at <= now()`,
    );

    // first_purchased_at as recordLineOutcomes() keeps it: the earliest occurred_at of the purchases naming the
    // session (with their line, which every purchase has).
    await stage(
      'sessions',
      `INSERT INTO sessions (id, merchant_id, store_id, product_id, size_chart_id, questionnaire_id, questionnaire_version,
                             questions, state, outcome, answers, recommendation, decision, created_at, updated_at,
                             recommended_at, completed_at, first_purchased_at)
       SELECT s.id, $1, $2, s.product_id, tp.size_chart_id, NULL, NULL, tp.questions,
              CASE WHEN s.outcome IS NOT NULL THEN 'completed' WHEN s.recommended THEN 'recommended' ELSE 'started' END,
              s.outcome,
              CASE WHEN s.recommended THEN tp.answers END,
              CASE WHEN s.recommended THEN tp.recommendation
                   || jsonb_build_object('id', ${uuid7('s.recommended_at')}, 'created_at', ${iso('s.recommended_at')}) END,
              CASE s.outcome WHEN 'accepted' THEN tp.accepted WHEN 'overridden' THEN tp.overridden END
                || jsonb_build_object('decided_at', ${iso('s.completed_at')}),
              s.created_at, coalesce(s.completed_at, s.recommended_at, s.created_at), s.recommended_at, s.completed_at,
              p.first_purchased_at
         FROM seed_sessions s JOIN seed_templates tp USING (t)
         LEFT JOIN (SELECT session_id, min(occurred_at) AS first_purchased_at
                      FROM seed_events
                     WHERE type = 'purchase' AND session_id IS NOT NULL AND order_id IS NOT NULL AND line_item_id IS NOT NULL
                     GROUP BY session_id) p ON p.session_id = s.id
        ORDER BY s.created_at`,
      [merchantId, storeId],
    );

    await stage(
      'events',
      `INSERT INTO events (id, merchant_id, store_id, source, external_id, type, product_id, variant_id, session_id,
                           order_id, line_item_id, reason, quantity, occurred_at, received_at, payload_sha256)
       SELECT ${uuid7('e.received_at')}, $1, $2, e.source, e.external_id, e.type, e.product_id, e.variant_id, e.session_id,
              e.order_id, e.line_item_id, e.reason, 1, e.occurred_at, e.received_at,
              -- the canonical digest the events endpoint computes (event-rules.ts), so a redelivery compares equal
              sha256(convert_to('[1,' || concat_ws(',', ${[
                'e.source',
                'e.external_id',
                'e.type',
                'e.product_id',
                'e.variant_id',
                'e.session_id',
                'e.order_id',
                'e.line_item_id',
                'e.reason',
                '1',
                iso('e.occurred_at'),
              ]
                .map(jsonText)
                .join(', ')}) || ']', 'UTF8'))
         FROM seed_events e
        ORDER BY e.received_at`,
      [merchantId, storeId],
    );

    // The summaries, exactly as recordLineOutcomes() keeps them, from the stored events: a line row for every
    // purchase, size return, kept signal or size exchange, with the earliest of each outcome; a session link per
    // (session, line) a purchase names, with the earliest purchase, the session's created_at and whether it has a
    // recommendation, `shared` when the line has links to several sessions, and the line's outcome times.
    await stage(
      'order_lines',
      `INSERT INTO order_lines (store_id, order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at)
       SELECT store_id, order_id, line_item_id,
              min(occurred_at) FILTER (WHERE type = 'return_requested' AND reason = 'size'),
              min(occurred_at) FILTER (WHERE type = 'item_kept'),
              min(occurred_at) FILTER (WHERE type = 'size_exchange' AND reason = 'size')
         FROM events
        WHERE store_id = $1 AND order_id IS NOT NULL AND line_item_id IS NOT NULL
          AND (type IN ('purchase', 'item_kept') OR (reason = 'size' AND type IN ('return_requested', 'size_exchange')))
        GROUP BY store_id, order_id, line_item_id
        ORDER BY min(received_at)`,
      [storeId],
    );
    await stage(
      'session_lines',
      `INSERT INTO session_lines (store_id, session_id, order_id, line_item_id, session_created_at, session_recommended,
                                  shared, purchased_at, size_returned_at, kept_at, size_exchanged_at)
       SELECT p.store_id, p.session_id, p.order_id, p.line_item_id, s.created_at, s.recommended_at IS NOT NULL,
              count(*) OVER (PARTITION BY p.order_id, p.line_item_id) > 1, p.purchased_at,
              o.size_returned_at, o.kept_at, o.size_exchanged_at
         FROM (SELECT store_id, session_id, order_id, line_item_id, min(occurred_at) AS purchased_at
                 FROM events
                WHERE store_id = $1 AND type = 'purchase' AND session_id IS NOT NULL
                  AND order_id IS NOT NULL AND line_item_id IS NOT NULL
                GROUP BY store_id, session_id, order_id, line_item_id) p
         JOIN sessions s ON s.id = p.session_id AND s.store_id = p.store_id
         JOIN order_lines o ON o.store_id = p.store_id AND o.order_id = p.order_id AND o.line_item_id = p.line_item_id
        ORDER BY p.purchased_at`,
      [storeId],
    );
    await db.query('DROP TABLE seed_templates, seed_sessions, seed_lines, seed_events');

    // Every invariant ingestion keeps, checked against the stored events and sessions: fails the seed (and rolls it
    // back) on any mismatch.
    const t = performance.now();
    const {
      rows: [broken],
    } = await db.query(SUMMARY_INVARIANTS, [storeId]);
    log(`invariants checked in ${((performance.now() - t) / 1000).toFixed(1)} s: ${JSON.stringify(broken)}`);
    if (Object.values(broken).some((n) => n !== 0)) {
      throw new Error(`seeded summaries break ingestion's invariants: ${JSON.stringify(broken)}`);
    }

    await db.query('COMMIT');
    await stage('vacuum analyze', 'VACUUM (ANALYZE) sessions, events, order_lines, session_lines');
    const total = (performance.now() - started) / 1000;
    log(`done in ${total.toFixed(0)} s: store ${storeId}`);
    return { merchantId, storeId, adminKey: made.adminKey, sessions: options.sessions, seconds: total, rows };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}

function parseArgs(argv: string[]): { databaseUrl: string; sessions: number; port: number } {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`unexpected argument ${argv[i]}`);
    args.set(argv[i].slice(2), argv[i + 1]);
  }
  const databaseUrl = args.get('database-url') ?? process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('--database-url postgres://… is required');
  const sessions = Number(args.get('sessions') ?? 1_000_000);
  if (!Number.isInteger(sessions) || sessions < 100) throw new Error('--sessions must be a whole number ≥ 100');
  return { databaseUrl, sessions, port: Number(args.get('port') ?? 3918) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { databaseUrl, sessions, port } = parseArgs(process.argv.slice(2));
  const state = await seedDatabase(databaseUrl, sessions, port);
  // Never the admin secret: it is in the state file only.
  process.stdout.write(
    `${JSON.stringify({ store_id: state.storeId, merchant_id: state.merchantId, seconds: state.seconds, rows: state.rows, state_file: statePath(databaseUrl) })}\n`,
  );
}
