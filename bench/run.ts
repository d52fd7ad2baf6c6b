/**
 * `npm run bench`: the whole benchmark suite of the service, over HTTP, on PostgreSQL. Not a test: nothing in CI
 * runs it. Every figure is measured next to a reference taken in the same run, on the same machine and database,
 * so that ratios hold when the machine is noisy (docs/performance.md has the latest figures and how to read them).
 *
 *  1. ingestion  single events (unique) at 16 connections, the service against the floor (bench/floor.ts: node:http
 *                + pg doing the same database work with the same statements), for four kinds of event, each in the
 *                order floor, service, service, floor after 3 s of warm-up of each (bench/lib/events.ts):
 *                  fit_viewed           names nothing: one INSERT                          target ≥ 0.7× the floor's /s
 *                  add_to_cart_product  names the product: one statement locking it        ≥ 0.6×, p99 ≤ 2× the floor's
 *                  purchase_line        product, variant, order line: the same statement,  reported, no target
 *                                       which also inserts the order line's row
 *                  purchase_session     the same and its fit session: a transaction with   ≥ 0.5×
 *                                       the line summaries
 *                Then the empty pipeline once (GET /healthz). About 3.5 minutes at 10 s per run.
 *  2. batch      500-event batches, same pairing.
 *  3. metrics    GET …/metrics and …/metrics/daily over 30 and 366 days of a store with 1M sessions, after checking
 *                them against the definitions; the reference is the service's own SQL statement sent straight to
 *                PostgreSQL in the same rounds.
 *  4. fit        create session → answers → decision, sequentially and at 8 connections; the reference is the
 *                cheapest authenticated route of the same service (GET /v1/stores/{id}), timed the same way; then
 *                the store's products ranked by how they fit (GET …/product-fit) over 1,000 products with outcomes,
 *                and the flow again, sequentially, on one of those products (its answers read the learned fit).
 *  5. memory     peak RSS (VmHWM) of the one service process that served parts 1–4 and 6, next to the floor's.
 *  6. scale-out  the ingestion load split over two service processes on the same PostgreSQL, next to one process.
 *  +  profiles   of single events of each kind that misses its targets in part 1 and of batches when part 2 misses
 *                its target (or, with --profile, of every kind and of batches): a V8 CPU profile of a third service
 *                process under the same load, summarised by function, by package
 *                and by request stage (bench/lib/cpuprofile.ts). The .cpuprofile files stay in bench/.state/profiles/
 *                (git-ignored; open them in Chrome DevTools).
 *
 * Runs metrics first (on a quiet database), then fit, ingestion, batch, scale-out, profile. The store with 1M
 * sessions is seeded when bench/.state/<database>.json does not name a current one (about 5 minutes; see
 * scripts/seed-metrics.ts). The rows the bench writes go into a merchant of its own, deleted at the end (and at the
 * start, if an earlier run was interrupted), so the seeded store is left as it was.
 *
 *   npm run bench                                   everything, 10 s per timed run (about 9 minutes, plus seeding)
 *   npm run bench -- --seconds 3 --parts ingest     a short run of some parts (not written to bench/results/)
 *   npm run bench -- --parts ingest --kinds purchase_line,purchase_session    some kinds of part 1 only
 *   npm run bench -- --profile | --no-profile       force or skip the profiles
 *
 * To tell whether a change to the service helps, compare builds head to head: npm run bench:compare (compare.ts).
 * The shopper's widget (its paint in Chromium, its answers through the example backend) has a bench of its own:
 * npm run bench:widget (widget.ts).
 *
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_metrics; the database name must start with
 * bench_), SESSIONS (default 1000000). Writes bench/results/<date>.json for a full run.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { findSeeded, type SeedState, seedDatabase } from '../scripts/seed-metrics.js';
import { summariseProfile } from './lib/cpuprofile.js';
import { type EventKind, eventFactory, INGEST_KINDS, KIND_WORK, parseKinds } from './lib/events.js';
import { BENCH_MERCHANT, type BenchStore, createBenchStore, shopper } from './lib/fixtures.js';
import { JsonClient } from './lib/http.js';
import { createLearnedStore, timeProductFit } from './lib/product-fit.js';
import { load, type LoadResult, pooled, summary, type Target } from './lib/load.js';
import { deleteBenchRows, ensureDatabase, vacuumBenchTables, withApplication } from './lib/database.js';
import { checkMetrics, databaseFacts, otherActiveBackends, timeMetrics } from './lib/metrics.js';
import { backendCpu, cpuBetween, cpuMsOf, MemoryWatch, readProcess } from './lib/proc.js';
import { type Json, percentile, type RunningService, startService } from './lib/service.js';

const PARTS = ['metrics', 'fit', 'ingest', 'batch', 'scale', 'profile'] as const;
type Part = (typeof PARTS)[number];

/** Part 1's targets, per kind: the service's throughput and p99 as ratios of the floor's. */
interface IngestTarget {
  readonly throughput_ratio_min?: number;
  readonly p99_ratio_max?: number;
}

const TARGETS = {
  ingestion: {
    fit_viewed: { throughput_ratio_min: 0.7 },
    add_to_cart_product: { throughput_ratio_min: 0.6, p99_ratio_max: 2 },
    purchase_line: {},
    purchase_session: { throughput_ratio_min: 0.5 },
  } as Readonly<Partial<Record<EventKind, IngestTarget>>>,
  batch_events_per_second_min: 20_000,
  metrics_30d_ms_max: 100,
  metrics_366d_ms_max: 1000,
  peak_rss_mb_max: 200,
};
const PORTS = { service: 3921, second: 3922, floor: 3923, profiled: 3924, seed: 3918 };
const APP = {
  service: 'sizefit-bench-service',
  second: 'sizefit-bench-service-2',
  floor: 'sizefit-bench-floor',
  profiled: 'sizefit-bench-profiled',
};
const CONNECTIONS = 16;
/** Seconds of warm-up of each server before the timed runs of each kind of part 1. */
const WARMUP_SECONDS = 3;
const FIT_CONNECTIONS = 8;
/** Products with outcomes in the store whose ranked fit part 4 reads. */
const PRODUCT_FIT_PRODUCTS = 1000;
const BATCH_SIZE = 500;
const BATCH_CONNECTIONS = 4;

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_metrics';
const SESSIONS = Number(process.env.SESSIONS ?? 1_000_000);

const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

function parseArgs(argv: string[]) {
  const options = {
    seconds: 10,
    parts: new Set<Part>(PARTS),
    kinds: [...INGEST_KINDS],
    profile: 'auto' as 'auto' | 'yes' | 'no',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--seconds') options.seconds = Number(argv[++i]);
    else if (arg === '--parts') {
      const parts = argv[++i].split(',');
      for (const p of parts) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`unknown part ${p}: ${PARTS.join(', ')}`);
      options.parts = new Set(parts as Part[]);
    } else if (arg === '--kinds') options.kinds = parseKinds(argv[++i], INGEST_KINDS);
    else if (arg === '--profile') options.profile = 'yes';
    else if (arg === '--no-profile') options.profile = 'no';
    else {
      throw new Error(
        `unexpected argument ${arg} (--seconds N, --parts ${PARTS.join(',')}, --kinds ${INGEST_KINDS.join(',')}, --profile, --no-profile)`,
      );
    }
  }
  if (!(options.seconds > 0)) throw new Error('--seconds must be positive');
  return options;
}

async function status(base: string, path: string, key: string, body: string): Promise<number> {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

interface Measured {
  readonly result: LoadResult & { samples: number[] };
  /** CPU ms of the server process(es) per answer. */
  readonly node_cpu_ms_per_request: number;
  /** CPU ms of their PostgreSQL backends per answer. */
  readonly db_cpu_ms_per_request: number;
}

/** Runs `targets` and reads the CPU the server processes and their database backends used meanwhile. */
async function measured(
  db: pg.Client,
  servers: ReadonlyArray<{ pid: number; application: string }>,
  targets: Target[],
  seconds: number,
  expect: number,
): Promise<Measured> {
  const nodeBefore = servers.map((s) => cpuMsOf(s.pid));
  const dbBefore = await Promise.all(servers.map((s) => backendCpu(db, s.application)));
  const result = await load(targets, seconds, expect);
  const nodeAfter = servers.map((s) => cpuMsOf(s.pid));
  const dbAfter = await Promise.all(servers.map((s) => backendCpu(db, s.application)));
  const nodeMs = nodeAfter.reduce((sum, v, i) => sum + v - nodeBefore[i], 0);
  const dbMs = dbAfter.reduce((sum, v, i) => sum + cpuBetween(dbBefore[i], v), 0);
  const answers = Object.values(result.statuses).reduce((a, b) => a + b, 0) || 1;
  return { result, node_cpu_ms_per_request: round2(nodeMs / answers), db_cpu_ms_per_request: round2(dbMs / answers) };
}

const brief = (r: LoadResult) =>
  `${r.per_second}/s p50 ${r.ms.p50} ms p99 ${r.ms.p99} ms (${JSON.stringify(r.statuses)}, errors ${r.errors})`;
const withoutSamples = (m: Measured) => {
  const { samples: _samples, ...rest } = m.result;
  return { ...rest, node_cpu_ms_per_request: m.node_cpu_ms_per_request, db_cpu_ms_per_request: m.db_cpu_ms_per_request };
};

/** The pooled figures of several measured runs of one server, with their CPU per request averaged by answers. */
function combine(runs: Measured[]) {
  const answers = runs.map((m) => Object.values(m.result.statuses).reduce((a, b) => a + b, 0));
  const total = answers.reduce((a, b) => a + b, 0) || 1;
  const avg = (pick: (m: Measured) => number) => round2(runs.reduce((sum, m, i) => sum + pick(m) * answers[i], 0) / total);
  return {
    ...pooled(runs.map((m) => m.result)),
    node_cpu_ms_per_request: avg((m) => m.node_cpu_ms_per_request),
    db_cpu_ms_per_request: avg((m) => m.db_cpu_ms_per_request),
  };
}

/** A server under load: where to send requests, and what to read its CPU by (its pid, its backends' application_name). */
interface Server {
  readonly base: string;
  readonly pid: number;
  readonly application: string;
}

/**
 * Part 1 for one kind of event: the service and the floor each answer a first, repeated and changed delivery
 * 201, 200 and 409; then warm-up, and the timed runs floor, service, service, floor; then every 201 is checked to be
 * a stored row (and a purchase's order line, and a session's link to it).
 */
async function ingestKind(
  db: pg.Client,
  bench: BenchStore,
  servers: Record<'service' | 'floor', Server>,
  kind: EventKind,
  seconds: number,
  runId: string,
): Promise<Json> {
  const eventsPath = `/v1/stores/${bench.storeId}/events`;
  const source = (name: 'service' | 'floor') => `bench-${name}-${kind}`;
  const events = { service: eventFactory(kind, bench, source('service'), runId), floor: eventFactory(kind, bench, source('floor'), runId) };
  const target = (name: 'service' | 'floor'): Target => ({
    base: servers[name].base,
    connections: CONNECTIONS,
    path: eventsPath,
    key: bench.keys.events,
    body: events[name].one,
  });
  const probes: Json = {};
  for (const name of ['service', 'floor'] as const) {
    const body = events[name].one();
    const changed = JSON.stringify({ ...(JSON.parse(body) as Json), quantity: 2 });
    const got = [
      await status(servers[name].base, eventsPath, bench.keys.events, body),
      await status(servers[name].base, eventsPath, bench.keys.events, body),
      await status(servers[name].base, eventsPath, bench.keys.events, changed),
    ];
    probes[name] = got;
    if (got.join() !== '201,200,409') throw new Error(`${kind} ${name}: first, repeated, changed delivery answered ${got.join(', ')}`);
  }
  log(`ingest ${kind}: first, repeated, changed delivery 201, 200, 409 on both; warm-up (${WARMUP_SECONDS} s each)`);
  await load([target('floor')], WARMUP_SECONDS, 201);
  await load([target('service')], WARMUP_SECONDS, 201);
  const runs: Record<'service' | 'floor', Measured[]> = { service: [], floor: [] };
  for (const name of ['floor', 'service', 'service', 'floor'] as const) {
    const m = await measured(db, [servers[name]], [target(name)], seconds, 201);
    runs[name].push(m);
    log(`ingest ${kind} ${name}: ${brief(m.result)}; cpu/request node ${m.node_cpu_ms_per_request} ms, db ${m.db_cpu_ms_per_request} ms`);
  }
  const svc = combine(runs.service);
  const flr = combine(runs.floor);

  // Every 201 is a stored row, and for a purchase an order line (and a session link): at least as many as answered,
  // since the probe, the warm-up and requests cut off at the end of a run were stored too.
  const stored: Json = {};
  const purchase = kind === 'purchase_line' || kind === 'purchase_session';
  for (const name of ['service', 'floor'] as const) {
    const count = async (sql: string) => ((await db.query(sql, [bench.storeId, source(name)])).rows[0] as { n: number }).n;
    const answered = runs[name].reduce((sum, m) => sum + (m.result.statuses['201'] ?? 0), 0);
    const rows: Record<string, number> = {
      events: await count(`SELECT count(*)::int AS n FROM events WHERE store_id = $1 AND source = $2`),
    };
    // The factory's order ids start with the source.
    const ofSource = `store_id = $1 AND starts_with(order_id, $2::text || '-')`;
    if (purchase) rows.order_lines = await count(`SELECT count(*)::int AS n FROM order_lines WHERE ${ofSource}`);
    if (kind === 'purchase_session') rows.session_lines = await count(`SELECT count(*)::int AS n FROM session_lines WHERE ${ofSource}`);
    stored[name] = { ...rows, answered_201: answered };
    for (const [table, n] of Object.entries(rows)) {
      if (n < answered) throw new Error(`${kind} ${name}: ${answered} answered 201 but only ${n} rows in ${table}`);
    }
  }
  const ratio = {
    throughput: round2(svc.per_second / flr.per_second),
    p50: round2(svc.ms.p50 / flr.ms.p50),
    p99: round2(svc.ms.p99 / flr.ms.p99),
  };
  const targets: IngestTarget = TARGETS.ingestion[kind] ?? {};
  const met: Record<string, boolean> = {};
  if (targets.throughput_ratio_min !== undefined) met.throughput = ratio.throughput >= targets.throughput_ratio_min;
  if (targets.p99_ratio_max !== undefined) met.p99 = ratio.p99 <= targets.p99_ratio_max;
  log(
    `ingest ${kind}: service ${svc.per_second}/s vs floor ${flr.per_second}/s (×${ratio.throughput}); ` +
      `p99 ${svc.ms.p99} vs ${flr.ms.p99} ms (×${ratio.p99})`,
  );
  return {
    work: KIND_WORK[kind],
    event: JSON.parse(events.service.one()) as Json,
    probes: { 'first, repeated, changed delivery': probes },
    service: svc,
    floor: flr,
    runs: { service: runs.service.map(withoutSamples), floor: runs.floor.map(withoutSamples) },
    stored,
    ratio,
    targets,
    met,
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const full = options.parts.size === PARTS.length && options.seconds >= 10 && options.kinds.length === INGEST_KINDS.length;
  const started = performance.now();
  const seconds = options.seconds;
  if (!existsSync('dist/src/main.js')) throw new Error('build first: npm run build (npm run bench does)');
  const runId = Date.now().toString(36);
  const timings: Record<string, number> = {};
  const machineLoad: Record<string, Json> = {};
  const results: Json = {};

  // 0. The seeded store (seeding when there is none: about 5 minutes). Without the metrics part, any bench_
  //    database will do (created if missing; the service migrates it).
  let seeded: SeedState | null = null;
  let seededInThisRun = false;
  if (options.parts.has('metrics')) {
    seeded = await findSeeded(DATABASE_URL, SESSIONS);
    seededInThisRun = !seeded;
    if (!seeded) {
      log(`no current seed of ${SESSIONS} sessions in ${new URL(DATABASE_URL).pathname.slice(1)}: seeding (about 5 minutes)`);
      seeded = await seedDatabase(DATABASE_URL, SESSIONS, PORTS.seed);
    }
  } else {
    await ensureDatabase(DATABASE_URL);
  }
  timings.seed = round1((performance.now() - started) / 1000);

  const memory = new MemoryWatch();
  const running: RunningService[] = [];
  const start = async (name: keyof typeof PORTS, application: string, extra: Parameters<typeof startService>[2] = {}) => {
    const service = await startService(PORTS[name], { DATABASE_URL: withApplication(DATABASE_URL, application) }, extra);
    running.push(service);
    memory.watch(name, service.pid);
    return service;
  };
  const stop = async (name: string, service: RunningService) => {
    memory.unwatch(name);
    running.splice(running.indexOf(service), 1);
    await service.stop();
  };

  // The service first: it runs the migrations of a new database.
  const service = await start('service', APP.service);
  const db = new pg.Client({ connectionString: withApplication(DATABASE_URL, 'sizefit-bench'), options: '-c jit=off' });
  const noteLoad = async (part: string) => {
    machineLoad[part] = { loadavg_1m: round2(loadavg()[0]), other_active_backends: await otherActiveBackends(db) };
  };
  let facts: Json | undefined;

  try {
    await db.connect();
    const leftover = await deleteBenchRows(db);
    if (leftover) log(`deleted ${leftover} events of an interrupted earlier run`);
    log(`vacuumed the tables the bench writes in ${await vacuumBenchTables(db)} s`);
    facts = await databaseFacts(db);
    await noteLoad('start');
    const floor = await start('floor', APP.floor, { script: 'dist/bench/floor.js', env: { POOL: '10' } });
    const bench: BenchStore = await createBenchStore(service.base, service.operatorKey, BENCH_MERCHANT);
    const eventsPath = `/v1/stores/${bench.storeId}/events`;
    const servers = {
      service: { base: service.base, pid: service.pid, application: APP.service },
      floor: { base: floor.base, pid: floor.pid, application: APP.floor },
    };

    // 3. Metrics at scale, first, while the database is quiet.
    if (options.parts.has('metrics') && seeded) {
      const t = performance.now();
      memory.enter('metrics');
      await noteLoad('metrics');
      const client = new JsonClient(service.base, 1);
      const adminKey = seeded.adminKey;
      const get = (path: string) => client.call('GET', path, adminKey);
      const correctness = await checkMetrics(db, get, seeded.storeId, log);
      const timed = await timeMetrics(get, seeded.storeId, {
        rounds: 30,
        warmup: 3,
        direct: db,
        otherBackends: () => otherActiveBackends(db),
        log,
      });
      client.close();
      results.metrics = {
        store: {
          sessions: SESSIONS,
          seeded_at: seeded.seededAt,
          seed_seconds: seeded.seconds,
          seeded_in_this_run: seededInThisRun,
          rows: seeded.rows,
        },
        correctness,
        rounds: 30,
        warmup: 3,
        ms: timed.ms,
        reference_statement_alone_ms: timed.direct_sql_ms,
        targets_ms: { 'metrics 30d': TARGETS.metrics_30d_ms_max, 'metrics 366d': TARGETS.metrics_366d_ms_max },
        met: {
          'metrics 30d': (timed.ms['metrics 30d'].p95 as number) <= TARGETS.metrics_30d_ms_max,
          'metrics 366d': (timed.ms['metrics 366d'].p95 as number) <= TARGETS.metrics_366d_ms_max,
        },
        load: timed.load,
      };
      timings.metrics = round1((performance.now() - t) / 1000);
    }

    // 4. The fit flow, sequentially and at 8 connections; reference: GET /v1/stores/{id} timed the same way.
    if (options.parts.has('fit')) {
      const t = performance.now();
      memory.enter('fit');
      await noteLoad('fit');
      results.fit = { ...(await fitFlow(service.base, bench, seconds)), product_fit: await productFitList(service.base, bench) };
      timings.fit = round1((performance.now() - t) / 1000);
    }

    // 1. Single-event ingestion, service against floor, kind by kind; then the empty pipeline once.
    if (options.parts.has('ingest')) {
      const t = performance.now();
      memory.enter('ingest');
      await noteLoad('ingest');
      const kinds: Json = {};
      for (const kind of options.kinds) kinds[kind] = await ingestKind(db, bench, servers, kind, seconds, runId);
      // The framework's ceiling: the service's cheapest route (GET /healthz: no key, no database), so that the
      // floor can be read against what the service's HTTP pipeline alone allows at the same concurrency.
      const empty = await measured(
        db,
        [servers.service],
        [{ base: servers.service.base, connections: CONNECTIONS, path: '/healthz', key: '' }],
        seconds,
        200,
      );
      log(`empty pipeline (GET /healthz): ${brief(empty.result)}; cpu/request node ${empty.node_cpu_ms_per_request} ms`);
      results.ingestion = {
        connections: CONNECTIONS,
        seconds_per_run: seconds,
        order: `per kind: floor, service, service, floor (after ${WARMUP_SECONDS} s of warm-up each)`,
        kinds,
        empty_pipeline: { route: 'GET /healthz', ...withoutSamples(empty) },
        // Per kind: whether every target of the kind was met; null for a kind without targets.
        met: Object.fromEntries(
          Object.entries(kinds).map(([kind, k]) => [kind, Object.keys(k.met).length ? Object.values(k.met).every(Boolean) : null]),
        ),
      };
      timings.ingest = round1((performance.now() - t) / 1000);
    }

    // 2. Batches of 500.
    if (options.parts.has('batch')) {
      const t = performance.now();
      memory.enter('batch');
      await noteLoad('batch');
      const events = {
        service: eventFactory('add_to_cart', bench, 'bench-batch-service', runId),
        floor: eventFactory('add_to_cart', bench, 'bench-batch-floor', runId),
      };
      const target = (name: 'service' | 'floor'): Target => ({
        base: servers[name].base,
        connections: BATCH_CONNECTIONS,
        path: `${eventsPath}/batch`,
        key: bench.keys.events,
        body: () => events[name].batch(BATCH_SIZE),
      });
      await load([target('floor')], 2, 200);
      await load([target('service')], 2, 200);
      const runs: Record<'service' | 'floor', Measured[]> = { service: [], floor: [] };
      for (const name of ['floor', 'service', 'service', 'floor'] as const) {
        const m = await measured(db, [servers[name]], [target(name)], seconds / 2, 200);
        runs[name].push(m);
        log(`batch ${name}: ${m.result.per_second * BATCH_SIZE} events/s; ${brief(m.result)}`);
      }
      const perEvent = (r: ReturnType<typeof combine>) => ({
        events_per_second: r.per_second * BATCH_SIZE,
        batches_per_second: r.per_second,
        batch_ms: r.ms,
        node_cpu_ms_per_batch: round1(r.node_cpu_ms_per_request),
        db_cpu_ms_per_batch: round1(r.db_cpu_ms_per_request),
        statuses: r.statuses,
        errors: r.errors,
        seconds: r.seconds,
      });
      // Every item of every batch must have been stored (201), not just the batch answered 200.
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM events WHERE store_id = $1 AND source = 'bench-batch-service'`, [
        bench.storeId,
      ]);
      const svc = perEvent(combine(runs.service));
      const flr = perEvent(combine(runs.floor));
      results.batch = {
        batch_size: BATCH_SIZE,
        connections: BATCH_CONNECTIONS,
        seconds_per_run: seconds / 2,
        order: 'floor, service, service, floor (after 2 s of warm-up each)',
        service: svc,
        floor: flr,
        service_rows_stored: rows[0].n,
        ratio: { throughput: round2(svc.events_per_second / flr.events_per_second) },
        target_events_per_second_min: TARGETS.batch_events_per_second_min,
        met: svc.events_per_second >= TARGETS.batch_events_per_second_min,
      };
      log(`batch: service ${svc.events_per_second} events/s vs floor ${flr.events_per_second} events/s`);
      timings.batch = round1((performance.now() - t) / 1000);
    }

    // 6. Scale-out: the same ingestion load over two service processes, next to one.
    if (options.parts.has('scale')) {
      const t = performance.now();
      memory.enter('scale');
      await noteLoad('scale');
      const second = await start('second', APP.second);
      const events = eventFactory('add_to_cart', bench, 'bench-scale', runId);
      const on = (s: RunningService, connections: number): Target => ({
        base: s.base,
        connections,
        path: eventsPath,
        key: bench.keys.events,
        body: events.one,
      });
      await load([on(second, CONNECTIONS)], 3, 201);
      const one: Measured[] = [];
      const two: Measured[] = [];
      for (const n of [1, 2, 2, 1]) {
        const m =
          n === 1
            ? await measured(db, [servers.service], [on(service, CONNECTIONS)], seconds / 2, 201)
            : await measured(
                db,
                [servers.service, { pid: second.pid, application: APP.second }],
                [on(service, CONNECTIONS / 2), on(second, CONNECTIONS / 2)],
                seconds / 2,
                201,
              );
        (n === 1 ? one : two).push(m);
        log(`scale ${n} process(es): ${brief(m.result)}`);
      }
      const single = combine(one);
      const double = combine(two);
      // Both processes write through the same delivery key: every 201 is one stored row.
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM events WHERE store_id = $1 AND source = 'bench-scale'`, [
        bench.storeId,
      ]);
      const answered = [...one, ...two].reduce((sum, m) => sum + (m.result.statuses['201'] ?? 0), 0);
      if (rows[0].n < answered) throw new Error(`scale-out: ${answered} answered 201 but only ${rows[0].n} rows stored`);
      results.scale_out = {
        connections: CONNECTIONS,
        seconds_per_run: seconds / 2,
        order: 'one, two, two, one',
        one_process: single,
        two_processes: { ...double, peak_rss_mb_second_process: readProcess(second.pid).peakRssMb },
        ratio: { throughput: round2(double.per_second / single.per_second), p99: round2(double.ms.p99 / single.ms.p99) },
        stored: { rows: rows[0].n, answered_201: answered, note: 'rows include the warm-up, which is not in answered_201' },
      };
      await stop('second', second);
      timings.scale = round1((performance.now() - t) / 1000);
    }

    // 5. Memory: the process that served every part, read before anything else starts.
    memory.enter('end');
    results.memory = {
      service_peak_rss_mb: readProcess(service.pid).peakRssMb,
      service_rss_now_mb: readProcess(service.pid).rssMb,
      service_max_rss_by_part_mb: memory.parts('service'),
      reference_floor_peak_rss_mb: readProcess(floor.pid).peakRssMb,
      target_mb_max: TARGETS.peak_rss_mb_max,
      met: readProcess(service.pid).peakRssMb <= TARGETS.peak_rss_mb_max,
    };
    log(`memory: service peak RSS ${results.memory.service_peak_rss_mb} MB (floor ${results.memory.reference_floor_peak_rss_mb} MB)`);

    // + profiles, of single events of each kind that misses its targets in part 1 and of batches when part 2 does (or
    //   asked for: of every kind of part 1 and of batches).
    const missedKinds = results.ingestion ? options.kinds.filter((kind) => results.ingestion.met[kind] === false) : [];
    const missedBatch = results.batch && !results.batch.met;
    if (options.parts.has('profile') && options.profile !== 'no') {
      const t = performance.now();
      memory.enter('profile');
      await noteLoad('profile');
      results.profile = {};
      const all = options.profile === 'yes' || (!results.ingestion && !results.batch);
      const kinds = all ? options.kinds : missedKinds;
      if (kinds.length) results.profile.single = {};
      for (const kind of kinds) {
        results.profile.single[kind] = await profileIngestion(bench, eventsPath, 'single', kind, seconds, runId, start, stop);
      }
      if (all || missedBatch) {
        results.profile.batch = await profileIngestion(bench, eventsPath, 'batch', 'add_to_cart', seconds, runId, start, stop);
      }
      timings.profile = round1((performance.now() - t) / 1000);
    }
    await stop('floor', floor);
    await stop('service', service);
  } finally {
    memory.stop();
    for (const s of [...running]) await s.stop();
    const t = performance.now();
    const deleted = await deleteBenchRows(db).catch((error: unknown) => {
      log(`could not delete the bench's rows: ${(error as Error).message}`);
      return 0;
    });
    log(`deleted the bench's ${deleted} events in ${round1((performance.now() - t) / 1000)} s`);
    await db.end();
  }

  timings.total = round1((performance.now() - started) / 1000);
  const output = {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      note: 'shared 2-core VM; PostgreSQL, the load generator (autocannon, in the bench process) and the servers all on it',
    },
    database: { ...facts, url: DATABASE_URL.replace(/\/\/[^@]*@/, '//') },
    load: machineLoad,
    seconds: timings,
    ...results,
  };
  const file = full ? `bench/results/${output.date.slice(0, 10)}.json` : 'bench/.state/last-partial-run.json';
  mkdirSync(file.slice(0, file.lastIndexOf('/')), { recursive: true });
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  log(`done in ${timings.total} s → ${file}`);
  printSummary(output);
}

type FlowSteps = Record<'session' | 'answers' | 'decision' | 'flow', number[]>;

const fresh = (): FlowSteps => ({ session: [], answers: [], decision: [], flow: [] });
const report = (steps: FlowSteps) => Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, { ...summary(v), n: v.length }]));

/** One fit flow on the product (a session, the shopper's answers, the decision she took), each step timed into `steps`. */
function flowOn(bench: BenchStore, productId: string) {
  const s = `/v1/stores/${bench.storeId}`;
  return async (client: JsonClient, i: number, steps: FlowSteps): Promise<void> => {
    const t0 = performance.now();
    const session = await client.call('POST', `${s}/sessions`, bench.keys.fit, { product_id: productId });
    const t1 = performance.now();
    const answered = await client.call('POST', `${s}/sessions/${session.id}/answers`, bench.keys.fit, { answers: shopper(i) });
    const t2 = performance.now();
    await client.call('POST', `${s}/sessions/${session.id}/decision`, bench.keys.fit, { size_label: answered.recommendation.size_label });
    const t3 = performance.now();
    steps.session.push(t1 - t0);
    steps.answers.push(t2 - t1);
    steps.decision.push(t3 - t2);
    steps.flow.push(t3 - t0);
  };
}

/** Part 4: sessions through answers to a decision; each step timed, then the whole flow. */
async function fitFlow(base: string, bench: BenchStore, seconds: number): Promise<Json> {
  const s = `/v1/stores/${bench.storeId}`;
  const flow = flowOn(bench, bench.productId);
  const reference = (client: JsonClient) => client.call('GET', s, bench.adminKey);

  // Sequential: one connection, 30 warm-up flows, then 300.
  const sequential = new JsonClient(base, 1);
  let i = 0;
  for (; i < 30; i++) await flow(sequential, i, fresh());
  const seq = fresh();
  for (let k = 0; k < 300; k++) await flow(sequential, i++, seq);
  const seqRef: number[] = [];
  for (let k = 0; k < 30; k++) await reference(sequential);
  for (let k = 0; k < 300; k++) {
    const t = performance.now();
    await reference(sequential);
    seqRef.push(performance.now() - t);
  }
  sequential.close();
  log(
    `fit sequential: flow p50 ${percentile(seq.flow, 50)} ms p99 ${percentile(seq.flow, 99)} ms; reference GET p50 ${percentile(seqRef, 50)} ms`,
  );

  // 8 connections, each running flows back to back for `seconds`; then the reference the same way.
  const concurrent = new JsonClient(base, FIT_CONNECTIONS);
  const par = fresh();
  let deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: FIT_CONNECTIONS }, async () => {
      while (performance.now() < deadline) await flow(concurrent, i++, par);
    }),
  );
  const flowSeconds = (performance.now() - t0) / 1000;
  const parRef: number[] = [];
  deadline = performance.now() + (seconds / 2) * 1000;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: FIT_CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await reference(concurrent);
        parRef.push(performance.now() - t);
      }
    }),
  );
  const refSeconds = (performance.now() - t1) / 1000;
  concurrent.close();
  log(
    `fit ×${FIT_CONNECTIONS}: flow p50 ${percentile(par.flow, 50)} ms p99 ${percentile(par.flow, 99)} ms, ${Math.round(par.flow.length / flowSeconds)} flows/s`,
  );
  return {
    sequential: { flows: seq.flow.length, warmup_flows: 30, ms: report(seq) },
    concurrent: {
      connections: FIT_CONNECTIONS,
      seconds: round2(flowSeconds),
      flows_per_second: Math.round(par.flow.length / flowSeconds),
      ms: report(par),
    },
    reference_get_store: {
      route: 'GET /v1/stores/{store_id} (admin key): authentication, store lookup, a small JSON answer',
      sequential_ms: { ...summary(seqRef), n: seqRef.length },
      concurrent_ms: { ...summary(parRef), n: parRef.length, per_second: Math.round(parRef.length / refSeconds) },
    },
  };
}

/** Part 4, also: the store's products ranked by what their outcomes taught, read one request at a time. */
async function productFitList(base: string, bench: BenchStore): Promise<Json> {
  const store = await createLearnedStore(base, bench, PRODUCT_FIT_PRODUCTS);
  const { list, reference } = await timeProductFit(base, store, 50);
  log(
    `product-fit over ${store.products} products (${store.outcomes} outcomes): p50 ${percentile(list, 50)} ms p99 ${percentile(list, 99)} ms; ` +
      `reference GET p50 ${percentile(reference, 50)} ms`,
  );
  // The fit flow again, sequentially, on one of those products: its answers read what the store's outcomes taught
  // (the product's, its type's and the store's evidence), which the flow above, on a product without any, does not.
  const flow = flowOn(bench, store.productId);
  const client = new JsonClient(base, 1);
  for (let i = 0; i < 30; i++) await flow(client, i, fresh());
  const learned = fresh();
  for (let i = 30; i < 330; i++) await flow(client, i, learned);
  client.close();
  log(
    `fit sequential on a product with outcomes: flow p50 ${percentile(learned.flow, 50)} ms, answers p50 ${percentile(learned.answers, 50)} ms`,
  );
  return {
    route: 'GET /v1/stores/{store_id}/product-fit?limit=20 (admin key), one request at a time',
    products: store.products,
    outcomes: store.outcomes,
    ms: { ...summary(list), n: list.length },
    reference_get_store_ms: { ...summary(reference), n: reference.length },
    fit_flow_on_a_product_with_outcomes: { sequential: { flows: learned.flow.length, warmup_flows: 30, ms: report(learned) } },
  };
}

/** A third service process with the profiler preloaded, under the ingestion load of `kind`; its profile, summarised. */
async function profileIngestion(
  bench: BenchStore,
  eventsPath: string,
  mode: 'single' | 'batch',
  kind: EventKind,
  seconds: number,
  runId: string,
  start: (name: keyof typeof PORTS, application: string, extra?: Parameters<typeof startService>[2]) => Promise<RunningService>,
  stop: (name: string, service: RunningService) => Promise<void>,
): Promise<Json> {
  const dir = 'bench/.state/profiles';
  mkdirSync(dir, { recursive: true });
  const label = mode === 'batch' ? 'batch' : `single-${kind}`;
  const file = join(dir, `ingestion-${label}-${new Date().toISOString().slice(0, 10)}.cpuprofile`);
  rmSync(file, { force: true });
  const preload = pathToFileURL('dist/bench/lib/profile-preload.js').href;
  const profiled = await start('profiled', APP.profiled, { nodeArgs: ['--import', preload], env: { BENCH_CPU_PROFILE: file } });
  try {
    const events = eventFactory(kind, bench, `bench-profile-${label}`, runId);
    const batch = mode === 'batch';
    const target: Target = {
      base: profiled.base,
      connections: batch ? BATCH_CONNECTIONS : CONNECTIONS,
      path: batch ? `${eventsPath}/batch` : eventsPath,
      key: bench.keys.events,
      body: batch ? () => events.batch(BATCH_SIZE) : events.one,
    };
    const expect = batch ? 200 : 201;
    await load([target], 3, expect);
    process.kill(profiled.pid, 'SIGWINCH');
    const node0 = cpuMsOf(profiled.pid);
    const result = await load([target], seconds, expect);
    const nodeMs = cpuMsOf(profiled.pid) - node0;
    process.kill(profiled.pid, 'SIGWINCH');
    for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
    if (!existsSync(file)) throw new Error('the profile was not written');
    const summaryOf = summariseProfile(file);
    log(`profile ${label}: ${brief(result)} while profiled; busy ${summaryOf.busy_ms} ms of ${Math.round(result.seconds * 1000)} ms`);
    return {
      file,
      kind,
      note:
        'V8 sampling profiler (500 µs) in the service process only; PostgreSQL and the load generator are not in it. ' +
        'Samples are wall-clock: on a loaded machine, time the thread spends descheduled inside a syscall (writev) is counted there.',
      load_while_profiled: {
        connections: target.connections,
        per_second: result.per_second,
        ms: result.ms,
        node_cpu_ms_per_request: round2(nodeMs / Math.max(1, result.ok)),
      },
      ...summaryOf,
    };
  } finally {
    await stop('profiled', profiled);
  }
}

function printSummary(o: Json): void {
  const lines: string[] = [];
  const i = o.ingestion;
  if (i) {
    const side = (r: Json) =>
      `${r.per_second}/s p50 ${r.ms.p50} p99 ${r.ms.p99} ms, cpu/event node ${r.node_cpu_ms_per_request} db ${r.db_cpu_ms_per_request} ms`;
    for (const [kind, k] of Object.entries(i.kinds as Json)) {
      const t = k.targets as IngestTarget;
      const bound = (x: number | undefined, sign: string) => (x === undefined ? '' : ` (${sign} ${x})`);
      const verdict = i.met[kind] === null ? 'no target' : i.met[kind] ? 'met' : 'MISSED';
      lines.push(
        `ingestion ${kind} ×${i.connections}: service ${side(k.service)} | floor ${side(k.floor)} | ` +
          `ratio ×${k.ratio.throughput}${bound(t.throughput_ratio_min, '≥')}, p99 ×${k.ratio.p99}${bound(t.p99_ratio_max, '≤')}: ${verdict}`,
      );
    }
    lines.push(`ingestion empty pipeline (GET /healthz): ${i.empty_pipeline.per_second}/s p99 ${i.empty_pipeline.ms.p99} ms`);
  }
  const b = o.batch;
  if (b)
    lines.push(
      `batch ${b.batch_size}: service ${b.service.events_per_second} events/s | floor ${b.floor.events_per_second} events/s (target ≥ 20000)`,
    );
  const m = o.metrics;
  if (m) {
    for (const [k, v] of Object.entries(m.ms as Json)) {
      lines.push(`${k}: p50 ${v.p50} p95 ${v.p95} ms | statement alone p50 ${m.reference_statement_alone_ms[k]?.p50} ms`);
    }
  }
  const f = o.fit;
  if (f) {
    lines.push(
      `fit sequential flow: p50 ${f.sequential.ms.flow.p50} p99 ${f.sequential.ms.flow.p99} ms | ×8: p50 ${f.concurrent.ms.flow.p50} p99 ${f.concurrent.ms.flow.p99} ms, ${f.concurrent.flows_per_second} flows/s`,
      `product-fit over ${f.product_fit.products} products: p50 ${f.product_fit.ms.p50} p99 ${f.product_fit.ms.p99} ms | GET /v1/stores/{id} p50 ${f.product_fit.reference_get_store_ms.p50} ms`,
      `fit sequential flow on a product with outcomes: p50 ${f.product_fit.fit_flow_on_a_product_with_outcomes.sequential.ms.flow.p50} p99 ${f.product_fit.fit_flow_on_a_product_with_outcomes.sequential.ms.flow.p99} ms`,
    );
  }
  if (o.memory)
    lines.push(
      `memory: service peak RSS ${o.memory.service_peak_rss_mb} MB (floor ${o.memory.reference_floor_peak_rss_mb} MB; target ≤ ${TARGETS.peak_rss_mb_max})`,
    );
  const s = o.scale_out;
  if (s) lines.push(`scale-out: one process ${s.one_process.per_second}/s, two ${s.two_processes.per_second}/s (×${s.ratio.throughput})`);
  console.log(lines.join('\n'));
}

await main();
