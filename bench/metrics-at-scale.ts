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
import { cpus, totalmem } from 'node:os';
import pg from 'pg';
import { findSeeded, seedDatabase } from '../scripts/seed-metrics.js';
import { checkMetrics, databaseFacts, otherActiveBackends, timeMetrics } from './lib/metrics.js';
import { type Json, startService } from './lib/service.js';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_metrics';
const SESSIONS = Number(process.env.SESSIONS ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARMUP = Number(process.env.WARMUP ?? 3);
const PORT = 3919;
const SEED_PORT = 3918;
/** The targets of docs/metrics.md, on the p50 of GET …/metrics. */
const TARGET_P50_MS = { 'metrics 30d': 100, 'metrics 366d': 1000 };

const log = (line: string) => process.stderr.write(`[bench:metrics] ${line}\n`);

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
    const correctness = await checkMetrics(db, get, storeId, log);
    const { ms, load } = await timeMetrics(get, storeId, {
      rounds: ROUNDS,
      warmup: WARMUP,
      otherBackends: () => otherActiveBackends(db),
      log,
    });
    const result = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        memory_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        note: "shared 2-core machine; PostgreSQL on the same host; another engineer's test suites may run meanwhile (see load)",
      },
      database: await databaseFacts(db),
      seed: {
        sessions: SESSIONS,
        seconds: seeded.seconds,
        seeded_at: seeded.seededAt,
        seeded_in_this_run: seededInThisRun,
        rows: seeded.rows,
      },
      correctness,
      rounds: ROUNDS,
      warmup: WARMUP,
      targets_p50_ms: TARGET_P50_MS,
      ms,
      targets_met: Object.fromEntries(Object.entries(TARGET_P50_MS).map(([k, target]) => [k, (ms[k].p50 as number) <= target])),
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
