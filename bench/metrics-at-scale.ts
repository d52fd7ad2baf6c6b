/**
 * Latency of the cohort metrics for one store with 1M sessions and about 1M purchased lines, on PostgreSQL.
 *
 * 1. Seeds the database unless the state file of a previous seed (bench/.state/<database>.json, git-ignored) names a
 *    store of that size there, seeded with the current migrations (scripts/seed-metrics.ts; seeding drops and
 *    recreates the database, whose name must start with bench_).
 * 2. Starts the built service on it and checks correctness first: for a 30-day and a 366-day range, the counts of
 *    GET …/metrics and of every day of GET …/metrics/daily must equal counts computed straight from `events` and
 *    `sessions` by the definitions of docs/decisions/004-events-and-metrics.md ("Metrics"); any mismatch fails the
 *    run before anything is timed.
 * 3. Times GET …/metrics and GET …/metrics/daily over a 30-day and a 366-day window, sequentially, after a few
 *    warm-up requests, noting the machine's load average around each case. Writes the percentiles to
 *    bench/results/metrics-<date>.json.
 *
 *   npm run bench:metrics    (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/bench_metrics;
 *                             SESSIONS=1000000, ROUNDS=30, WARMUP=3)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { findSeeded, seedDatabase } from '../scripts/seed-metrics.js';
import { type Json, percentile, startService } from './lib/service.js';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_metrics';
const SESSIONS = Number(process.env.SESSIONS ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARMUP = Number(process.env.WARMUP ?? 3);
const PORT = 3919;
const SEED_PORT = 3918;
const DAY_MS = 86_400_000;
/** The targets of docs/metrics.md, on the p50 of GET …/metrics. */
const TARGET_P50_MS = { 'metrics 30d': 100, 'metrics 366d': 1000 };
const COUNT_KEYS = [
  'started_sessions',
  'recommended_sessions',
  'accepted_sessions',
  'overridden_sessions',
  'converted_sessions',
  'purchased_lines',
  'size_returned_lines',
  'kept_lines',
  'size_exchanged_lines',
] as const;

type Counts = Record<(typeof COUNT_KEYS)[number], number>;

const log = (line: string) => process.stderr.write(`[bench:metrics] ${line}\n`);


/**
 * The counts by the decision's definitions, from `events` and `sessions` only (no summary table, no summary
 * column): per UTC day of session creation, or one row `all`. $1 store, [$2, $3) the range, $4 observed_through.
 * "Got a recommendation" is read from the stored recommendation, not from `recommended_at`.
 */
function referenceQuery(byDay: boolean): string {
  return `
    WITH cohort AS (
      SELECT id, ${byDay ? `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : `'all'`} AS day,
             recommendation IS NOT NULL AS recommended, outcome
        FROM sessions WHERE store_id = $1 AND created_at >= $2 AND created_at < $3
    ), purchases AS (
      SELECT DISTINCT c.day, e.session_id, e.order_id, e.line_item_id
        FROM events e JOIN cohort c ON c.id = e.session_id AND c.recommended
       WHERE e.store_id = $1 AND e.type = 'purchase' AND e.occurred_at <= $4
    ), lines AS (
      SELECT l.day, l.order_id, l.line_item_id,
             bool_or(e.type = 'return_requested' AND e.reason = 'size') AS size_returned,
             bool_or(e.type = 'item_kept') AS kept,
             bool_or(e.type = 'size_exchange' AND e.reason = 'size') AS size_exchanged
        FROM (SELECT DISTINCT day, order_id, line_item_id FROM purchases) l
        JOIN events e ON e.store_id = $1 AND e.order_id = l.order_id AND e.line_item_id = l.line_item_id
                     AND e.occurred_at <= $4
       GROUP BY 1, 2, 3
    )
    SELECT c.day, c.started_sessions, c.recommended_sessions, c.accepted_sessions, c.overridden_sessions,
           coalesce(p.converted_sessions, 0)::int AS converted_sessions,
           coalesce(l.purchased_lines, 0)::int AS purchased_lines,
           coalesce(l.size_returned_lines, 0)::int AS size_returned_lines,
           coalesce(l.kept_lines, 0)::int AS kept_lines,
           coalesce(l.size_exchanged_lines, 0)::int AS size_exchanged_lines
      FROM (SELECT day, count(*)::int AS started_sessions,
                   (count(*) FILTER (WHERE recommended))::int AS recommended_sessions,
                   (count(*) FILTER (WHERE outcome = 'accepted'))::int AS accepted_sessions,
                   (count(*) FILTER (WHERE outcome = 'overridden'))::int AS overridden_sessions
              FROM cohort GROUP BY day) c
      LEFT JOIN (SELECT day, count(DISTINCT session_id) AS converted_sessions FROM purchases GROUP BY day) p USING (day)
      LEFT JOIN (SELECT day, count(*) AS purchased_lines,
                        count(*) FILTER (WHERE size_returned) AS size_returned_lines,
                        count(*) FILTER (WHERE kept) AS kept_lines,
                        count(*) FILTER (WHERE size_exchanged) AS size_exchanged_lines
                   FROM lines GROUP BY day) l USING (day)`;
}

const pick = (row: Json): Counts => Object.fromEntries(COUNT_KEYS.map((k) => [k, Number(row[k] ?? 0)])) as Counts;
const ZERO = pick({});

function differences(where: string, got: Counts, want: Counts): string[] {
  return COUNT_KEYS.filter((k) => got[k] !== want[k]).map((k) => `${where} ${k}: service ${got[k]}, reference ${want[k]}`);
}

async function main(): Promise<void> {
  let seeded = await findSeeded(DATABASE_URL, SESSIONS);
  const seededInThisRun = !seeded;
  if (!seeded) {
    log(`no current seed of ${SESSIONS} sessions in ${new URL(DATABASE_URL).pathname.slice(1)}: seeding`);
    seeded = await seedDatabase(DATABASE_URL, SESSIONS, SEED_PORT);
  }
  const { storeId, adminKey } = seeded;

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const service = await startService(PORT, { DATABASE_URL });
  try {
    const get = async (path: string): Promise<Json> => {
      const response = await fetch(service.base + path, { headers: { authorization: `Bearer ${adminKey}` } });
      const json = (await response.json()) as Json;
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    // `to` is given as well as `from`, so that a 366-day range stays 366 days when the server reads its clock.
    const range = (days: number) => {
      const to = new Date();
      return `from=${new Date(to.getTime() - days * DAY_MS).toISOString()}&to=${to.toISOString()}`;
    };

    // Correctness before timing: the service against the definitions, on the same range and observed_through.
    const correctness: Json = {};
    const reference = async (byDay: boolean, body: Json) =>
      (await db.query(referenceQuery(byDay), [storeId, body.from, body.to, body.observed_through])).rows;
    for (const days of [30, 366]) {
      const q = range(days);
      const started = performance.now();
      const total = await get(`/v1/stores/${storeId}/metrics?${q}`);
      const daily = await get(`/v1/stores/${storeId}/metrics/daily?${q}`);
      const [want = ZERO] = await reference(false, total);
      const wantByDay = new Map((await reference(true, daily)).map((row) => [row.day as string, pick(row)]));
      const problems = differences(`${days}d total`, pick(total.counts), pick(want));
      const served = new Set<string>();
      for (const day of daily.days as Json[]) {
        served.add(day.date);
        problems.push(...differences(`${days}d ${day.date}`, pick(day.counts), wantByDay.get(day.date) ?? ZERO));
      }
      for (const day of wantByDay.keys()) if (!served.has(day)) problems.push(`${days}d ${day}: missing from daily`);
      if (problems.length) {
        throw new Error(`the service's metrics differ from the definitions:\n  ${problems.slice(0, 20).join('\n  ')}`);
      }
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      correctness[`${days}d`] = { total: pick(total.counts), days: daily.days.length, matches: true, seconds };
      log(`correctness ${days}d: total and ${daily.days.length} days equal the reference (${seconds} s)`);
    }

    const cases = {
      'metrics 30d': () => get(`/v1/stores/${storeId}/metrics?${range(30)}`),
      'metrics 366d': () => get(`/v1/stores/${storeId}/metrics?${range(366)}`),
      'daily 30d': () => get(`/v1/stores/${storeId}/metrics/daily?${range(30)}`),
      'daily 366d': () => get(`/v1/stores/${storeId}/metrics/daily?${range(366)}`),
    };
    const ms: Record<string, Json> = {};
    const load: Record<string, Json> = {};
    const otherBackends = async () =>
      (
        await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity
                         WHERE state = 'active' AND pid <> pg_backend_pid() AND datname IS DISTINCT FROM current_database()`)
      ).rows[0].n as number;
    for (const [name, request] of Object.entries(cases)) {
      for (let i = 0; i < WARMUP; i++) await request();
      const before = { loadavg_1m: Math.round(loadavg()[0] * 100) / 100, other_active_backends: await otherBackends() };
      const samples: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const start = performance.now();
        await request();
        samples.push(performance.now() - start);
      }
      const after = { loadavg_1m: Math.round(loadavg()[0] * 100) / 100, other_active_backends: await otherBackends() };
      ms[name] = { p50: percentile(samples, 50), p95: percentile(samples, 95), max: percentile(samples, 100) };
      load[name] = { before, after };
      log(`${name}: ${JSON.stringify(ms[name])} load ${JSON.stringify(load[name])}`);
    }

    const server = await db.query(`SELECT version() AS version, current_setting('shared_buffers') AS shared_buffers,
      current_setting('work_mem') AS work_mem, current_setting('effective_cache_size') AS effective_cache_size`);
    const sizes = await db.query(`
      SELECT relname AS table, pg_size_pretty(pg_total_relation_size(oid)) AS total_size, reltuples::bigint AS rows
        FROM pg_class WHERE relname IN ('sessions', 'events', 'order_lines', 'session_lines') ORDER BY relname`);
    const indexes = await db.query(`
      SELECT indexrelname AS index, pg_size_pretty(pg_relation_size(indexrelid)) AS size
        FROM pg_stat_user_indexes
       WHERE indexrelname IN ('sessions_cohort_idx', 'session_lines_cohort_idx', 'session_lines_shared_idx')
       ORDER BY 1`);
    const result = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        memory_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        note: 'shared 2-core machine; PostgreSQL on the same host; another engineer\'s test suites may run meanwhile (see load)',
      },
      database: { ...server.rows[0], service_jit: 'off (ormconfig.ts)', tables: sizes.rows, indexes: indexes.rows },
      seed: { sessions: SESSIONS, seconds: seeded.seconds, seeded_at: seeded.seededAt, seeded_in_this_run: seededInThisRun, rows: seeded.rows },
      correctness,
      rounds: ROUNDS,
      warmup: WARMUP,
      targets_p50_ms: TARGET_P50_MS,
      ms,
      targets_met: Object.fromEntries(Object.entries(TARGET_P50_MS).map(([k, target]) => [k, ms[k].p50 <= target])),
      load,
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/metrics-${result.date.slice(0, 10)}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result.ms), `→ ${file}`);
  } finally {
    await service.stop();
    await db.end();
  }
}

await main();
