/**
 * Latency of the fit flow over HTTP on the embedded database: start a session, answer it (the recommendation), decide.
 * Starts the built service as a child process on a fresh data directory, drives it sequentially with keep-alive
 * connections, and writes the percentiles to bench/results/fit-latency-<date>.json.
 *
 *   npm run bench:fit            (ROUNDS=500 by default)
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchStore, shopper } from './lib/fixtures.js';
import { call as callService, type Json, percentile, startService } from './lib/service.js';

const PORT = 3917;
const ROUNDS = Number(process.env.ROUNDS ?? 500);

async function timed(samples: number[], work: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await work();
  samples.push(performance.now() - start);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'size-fit-bench-'));
  const service = await startService(
    PORT,
    { DATA_DIR: join(dataDir, 'db') },
    {
      nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean),
    },
  );
  const call = (method: string, path: string, key: string, body?: unknown) => callService(service.base, method, path, key, body);
  try {
    const bench = await createBenchStore(service.base, service.operatorKey);
    const fitKey = bench.keys.fit;
    const s = `/v1/stores/${bench.storeId}`;
    const product = { id: bench.productId };

    const start: number[] = [];
    const answers: number[] = [];
    const decision: number[] = [];
    for (let i = 0; i < ROUNDS + 50; i++) {
      const warm = i < 50; // the first rounds warm the JIT and the database's caches
      let session: Json = {};
      await timed(warm ? [] : start, async () => {
        session = await call('POST', `${s}/sessions`, fitKey, { product_id: product.id });
      });
      let answered: Json = {};
      await timed(warm ? [] : answers, async () => {
        answered = await call('POST', `${s}/sessions/${session.id}/answers`, fitKey, {
          answers: shopper(i),
        });
      });
      await timed(warm ? [] : decision, () =>
        call('POST', `${s}/sessions/${session.id}/decision`, fitKey, { size_label: answered.recommendation.size_label }),
      );
    }
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      database: 'embedded (PGlite, data directory)',
      rounds: ROUNDS,
      ms: Object.fromEntries(
        Object.entries({ start, answers, decision }).map(([name, samples]) => [
          name,
          { p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99) },
        ]),
      ),
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/fit-latency-${result.date.slice(0, 10)}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result.ms), `→ ${file}`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
