/**
 * The cohort metrics at scale, shared by `npm run bench:metrics` (bench/metrics-at-scale.ts) and `npm run bench`
 * (bench/run.ts): the correctness check against the definitions, the timed cases, and the reference each case is
 * read against (the same SQL statement sent straight to PostgreSQL, in the same rounds).
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import type pg from 'pg';
import { MetricsRepository } from '../../src/metrics/metrics.repository.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import type { Store } from '../../src/stores/store.entity.js';
import type { Json } from './service.js';
import { percentile } from './service.js';

export const DAY_MS = 86_400_000;
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
export type Get = (path: string) => Promise<Json>;

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

/** `from` and `to` both given, so that a 366-day range stays 366 days when the server reads its clock. */
export function range(days: number): { from: string; to: string } {
  const to = new Date();
  return { from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() };
}
const query = (days: number) => new URLSearchParams(range(days)).toString();

/**
 * Correctness before timing: for a 30-day and a 366-day range, the service's totals and every day of its daily
 * answer must equal the counts computed from `events` and `sessions` by the definitions, on the same range and
 * observed_through. Throws on any mismatch.
 */
export async function checkMetrics(db: pg.Client, get: Get, storeId: string, log: (line: string) => void): Promise<Json> {
  const correctness: Json = {};
  const reference = async (byDay: boolean, body: Json) =>
    (await db.query(referenceQuery(byDay), [storeId, body.from, body.to, body.observed_through])).rows;
  for (const days of [30, 366]) {
    const q = query(days);
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
  return correctness;
}

/**
 * The statement and parameters the service runs for one request: MetricsService itself, over a repository whose data
 * source records the query instead of running it. Same SQL, same parameters (observed_through is the clock, as there).
 */
function statementOf(storeId: string, kind: 'summary' | 'daily', days: number): Promise<{ sql: string; params: unknown[] }> {
  return new Promise((resolve, reject) => {
    const recorder = {
      query: async (sql: string, params: unknown[]) => {
        resolve({ sql, params });
        return [];
      },
    };
    const service = new MetricsService(new MetricsRepository({ manager: recorder } as never));
    service[kind]({ id: storeId } as Store, range(days)).catch(reject);
  });
}

export interface MetricsCase {
  readonly name: string;
  readonly kind: 'summary' | 'daily';
  readonly days: number;
}

export const CASES: readonly MetricsCase[] = [
  { name: 'metrics 30d', kind: 'summary', days: 30 },
  { name: 'metrics 366d', kind: 'summary', days: 366 },
  { name: 'daily 30d', kind: 'daily', days: 30 },
  { name: 'daily 366d', kind: 'daily', days: 366 },
];

const loadNow = () => Math.round(loadavg()[0] * 100) / 100;

/**
 * Times each case over HTTP, sequentially, after `warmup` requests. With `direct` (a connection with jit off, as
 * the service's), each round also runs the service's statement straight on PostgreSQL right after the request,
 * so that the two are read side by side: what HTTP, Nest, the guard (two queries) and JSON add to the statement.
 */
export async function timeMetrics(
  get: Get,
  storeId: string,
  options: { rounds: number; warmup: number; direct?: pg.Client; otherBackends?: () => Promise<number>; log: (line: string) => void },
): Promise<{ ms: Record<string, Json>; direct_sql_ms: Record<string, Json>; load: Record<string, Json> }> {
  const ms: Record<string, Json> = {};
  const direct: Record<string, Json> = {};
  const load: Record<string, Json> = {};
  const other = options.otherBackends ?? (async () => NaN);
  for (const c of CASES) {
    const path = (days: number) => `/v1/stores/${storeId}/${c.kind === 'summary' ? 'metrics' : 'metrics/daily'}?${query(days)}`;
    for (let i = 0; i < options.warmup; i++) await get(path(c.days));
    const before = { loadavg_1m: loadNow(), other_active_backends: await other() };
    const samples: number[] = [];
    const sqlSamples: number[] = [];
    for (let i = 0; i < options.rounds; i++) {
      const start = performance.now();
      await get(path(c.days));
      samples.push(performance.now() - start);
      if (options.direct) {
        const { sql, params } = await statementOf(storeId, c.kind, c.days);
        const t = performance.now();
        await options.direct.query(sql, params);
        sqlSamples.push(performance.now() - t);
      }
    }
    const after = { loadavg_1m: loadNow(), other_active_backends: await other() };
    ms[c.name] = { p50: percentile(samples, 50), p95: percentile(samples, 95), max: percentile(samples, 100) };
    if (options.direct) {
      direct[c.name] = { p50: percentile(sqlSamples, 50), p95: percentile(sqlSamples, 95), max: percentile(sqlSamples, 100) };
    }
    load[c.name] = { before, after };
    options.log(
      `${c.name}: ${JSON.stringify(ms[c.name])}${options.direct ? ` (statement alone ${JSON.stringify(direct[c.name])})` : ''} load ${JSON.stringify(load[c.name])}`,
    );
  }
  return { ms, direct_sql_ms: direct, load };
}

/** PostgreSQL's version and memory settings, and the sizes of the tables and indexes the metrics read. */
export async function databaseFacts(db: pg.Client): Promise<Json> {
  const server = await db.query(`SELECT version() AS version, current_setting('shared_buffers') AS shared_buffers,
    current_setting('work_mem') AS work_mem, current_setting('effective_cache_size') AS effective_cache_size,
    current_setting('synchronous_commit') AS synchronous_commit, current_setting('max_connections') AS max_connections`);
  const sizes = await db.query(`
    SELECT relname AS table, pg_size_pretty(pg_total_relation_size(oid)) AS total_size, reltuples::bigint AS rows
      FROM pg_class WHERE relname IN ('sessions', 'events', 'order_lines', 'session_lines') ORDER BY relname`);
  const indexes = await db.query(`
    SELECT indexrelname AS index, pg_size_pretty(pg_relation_size(indexrelid)) AS size
      FROM pg_stat_user_indexes
     WHERE indexrelname IN ('sessions_cohort_idx', 'session_lines_cohort_idx', 'session_lines_shared_idx')
     ORDER BY 1`);
  return { ...server.rows[0], service_jit: 'off (ormconfig.ts)', tables: sizes.rows, indexes: indexes.rows };
}

/** Active backends of other databases (other people's test suites on the same server). */
export async function otherActiveBackends(db: pg.Client): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity
                                    WHERE state = 'active' AND pid <> pg_backend_pid() AND datname IS DISTINCT FROM current_database()`);
  return rows[0].n as number;
}
