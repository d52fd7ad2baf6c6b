/**
 * `npm run bench:compare`: several builds of the service (and the floor) under the same ingestion load, interleaved
 * (A B C, C B A, …), on one database: the way to tell whether a change to the service helps on a machine too noisy
 * for two separate runs to be compared. Each build is a checkout with `dist/` built (`npm run build` there) and
 * node_modules reachable from it; `floor` names bench/floor.ts.
 *
 *   npm run bench:compare -- before=/tmp/size-fit-before after=. floor=floor
 *   npm run bench:compare -- --batch --seconds 4 --rounds 3 before=/tmp/a after=.
 *   npm run bench:compare -- small=.:NODE_OPTIONS=--max-old-space-size=192 default=.
 *   npm run bench:compare -- --kind purchase_session after=. floor=floor
 *
 * `--kind` chooses the single event (bench/lib/events.ts): add_to_cart naming nothing by default, fit_viewed,
 * add_to_cart_product, purchase_line or purchase_session. The floor takes batches of the kinds that name nothing only.
 *
 * A build may carry environment variables after a colon (NAME=DIR:VAR=value,VAR=value). Figures per build: answers
 * per second, latency, CPU ms per request of the server process and of its PostgreSQL backends, peak RSS.
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_ingest; created when missing, names bench_… only).
 */
import { resolve } from 'node:path';
import pg from 'pg';
import { type EventFactory, type EventKind, eventFactory, namesNothing, parseKinds } from './lib/events.js';
import { BENCH_MERCHANT, createBenchStore } from './lib/fixtures.js';
import { load, type LoadResult, pooled, type Target } from './lib/load.js';
import { backendCpu, cpuBetween, cpuMsOf, readProcess } from './lib/proc.js';
import { type RunningService, startNodeArgs, startService } from './lib/service.js';
import { deleteBenchRows, ensureDatabase, vacuumBenchTables, withApplication } from './lib/database.js';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_ingest';
const BATCH_SIZE = 500;

interface Build {
  readonly name: string;
  readonly script: string;
  /** The checkout, whose package.json gives the Node options of its `npm start`. */
  readonly dir: string;
  readonly env: Record<string, string>;
  service?: RunningService;
  readonly runs: Array<LoadResult & { samples: number[]; node: number; db: number }>;
}

function parse(argv: string[]) {
  const options = { seconds: 4, rounds: 2, batch: false, kind: 'add_to_cart' as EventKind, connections: 0, builds: [] as Build[] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--seconds') options.seconds = Number(argv[++i]);
    else if (arg === '--rounds') options.rounds = Number(argv[++i]);
    else if (arg === '--connections') options.connections = Number(argv[++i]);
    else if (arg === '--batch') options.batch = true;
    else if (arg === '--kind') [options.kind] = parseKinds(argv[++i]);
    else {
      const eq = arg.indexOf('=');
      if (eq < 1) throw new Error(`expected NAME=DIR[:VAR=value,…] or an option, not ${arg}`);
      const name = arg.slice(0, eq);
      const [dir, vars = ''] = splitOnce(arg.slice(eq + 1), ':');
      const env = Object.fromEntries(
        vars
          .split(',')
          .filter(Boolean)
          .map((kv) => splitOnce(kv, '=')),
      );
      const script = dir === 'floor' ? resolve('dist/bench/floor.js') : resolve(dir, 'dist/src/main.js');
      options.builds.push({ name, script, dir: resolve(dir), env, runs: [] });
    }
  }
  if (!options.builds.length) throw new Error('name at least one build: NAME=DIR (DIR with a built dist/), or floor=floor');
  if (!options.connections) options.connections = options.batch ? 4 : 16;
  if (options.batch && !namesNothing(options.kind) && options.builds.some((b) => b.script.endsWith('floor.js'))) {
    throw new Error(`the floor takes batches of events that name nothing only, not of ${options.kind}`);
  }
  return options;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  await ensureDatabase(DATABASE_URL);
  const application = (b: Build) => `sizefit-compare-${b.name}`;
  const db = new pg.Client({ connectionString: withApplication(DATABASE_URL, 'sizefit-compare') });
  try {
    let port = 3940;
    for (const build of options.builds) {
      build.service = await startService(
        port++,
        { DATABASE_URL: withApplication(DATABASE_URL, application(build)) },
        {
          script: build.script,
          // A build of the service runs with the Node options of its own `npm start` (its heap cap among them).
          nodeArgs: build.script.endsWith('floor.js') ? [] : startNodeArgs(build.dir),
          env: { POOL: '10', ...build.env },
        },
      );
    }
    await db.connect();
    process.stderr.write(`[bench] vacuumed the tables the bench writes in ${await vacuumBenchTables(db)} s\n`);
    const first = options.builds.find((b) => !b.script.endsWith('floor.js'))?.service ?? options.builds[0].service;
    const bench = await createBenchStore((first as RunningService).base, (first as RunningService).operatorKey, BENCH_MERCHANT);
    const runId = Date.now().toString(36);
    const events = new Map<Build, EventFactory>(
      options.builds.map((b) => [b, eventFactory(options.kind, bench, `compare-${b.name}`, runId)]),
    );
    const target = (b: Build): Target => {
      const factory = events.get(b) as EventFactory;
      return {
        base: (b.service as RunningService).base,
        connections: options.connections,
        path: `/v1/stores/${bench.storeId}/events${options.batch ? '/batch' : ''}`,
        key: bench.keys.events,
        body: options.batch ? () => factory.batch(BATCH_SIZE) : factory.one,
      };
    };
    const expect = options.batch ? 200 : 201;
    for (const b of options.builds) await load([target(b)], 3, expect);
    for (let round = 0; round < options.rounds; round++) {
      for (const b of round % 2 ? [...options.builds].reverse() : options.builds) {
        const pid = (b.service as RunningService).pid;
        const node0 = cpuMsOf(pid);
        const db0 = await backendCpu(db, application(b));
        const result = await load([target(b)], options.seconds, expect);
        const answers = Object.values(result.statuses).reduce((x, y) => x + y, 0) || 1;
        const run = {
          ...result,
          node: (cpuMsOf(pid) - node0) / answers,
          db: cpuBetween(db0, await backendCpu(db, application(b))) / answers,
        };
        b.runs.push(run);
        process.stderr.write(
          `${b.name}: ${result.per_second}/s p50 ${result.ms.p50} p99 ${result.ms.p99} ms ${JSON.stringify(result.statuses)}\n`,
        );
      }
    }
    const unit = `${options.batch ? `batches of ${BATCH_SIZE} ` : ''}${options.kind} events`;
    console.log(`${options.connections} connections, ${options.rounds} × ${options.seconds} s per build, ${unit}`);
    for (const b of options.builds) {
      const p = pooled(b.runs);
      const mean = (pick: (r: Build['runs'][number]) => number) => (b.runs.reduce((s, r) => s + pick(r), 0) / b.runs.length).toFixed(2);
      console.log(
        `${b.name.padEnd(14)} ${String(p.per_second).padStart(6)}/s${options.batch ? ` (${p.per_second * BATCH_SIZE} events/s)` : ''}` +
          `  p50 ${p.ms.p50} ms  p99 ${p.ms.p99} ms  cpu/request: node ${mean((r) => r.node)} ms, db ${mean((r) => r.db)} ms` +
          `  peak RSS ${readProcess((b.service as RunningService).pid).peakRssMb} MB`,
      );
    }
  } finally {
    for (const b of options.builds) await b.service?.stop();
    await deleteBenchRows(db).catch(() => 0);
    await db.end().catch(() => undefined);
  }
}

await main();
