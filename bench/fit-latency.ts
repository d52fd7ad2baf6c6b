/**
 * Latency of the fit flow over HTTP on the embedded database: start a session, answer it (the recommendation), decide.
 * Then the start of a session naming a shopper, before any experiment and with one running on the product: her first
 * (which exposes her) and her next (one more indexed read), each against the start naming a shopper of the same run.
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
    // starts naming a shopper, before any experiment and then with one running on the product (both arms size help)
    const withShopper: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await timed(withShopper, () => call('POST', `${s}/sessions`, fitKey, { product_id: product.id, shopper_ref: `plain-${i}` }));
    }
    const experiment = await call('POST', `${s}/experiments`, bench.adminKey, {
      name: 'Bench',
      arms: [
        { name: 'A', share: 0.5, treatment: 'size_help' },
        { name: 'B', share: 0.5, treatment: 'size_help' },
      ],
      product_ids: [product.id],
      primary_metric: 'conversion',
      minimum_effect: 0.02,
    });
    await call('POST', `${s}/experiments/${experiment.id}/start`, bench.adminKey, {});
    const firstInExperiment: number[] = [];
    const againInExperiment: number[] = [];
    for (const samples of [firstInExperiment, againInExperiment]) {
      for (let i = 0; i < ROUNDS; i++) {
        await timed(samples, () => call('POST', `${s}/sessions`, fitKey, { product_id: product.id, shopper_ref: `bench-${i}` }));
      }
    }
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      database: 'embedded (PGlite, data directory)',
      rounds: ROUNDS,
      ms: Object.fromEntries(
        Object.entries({ start, answers, decision, withShopper, firstInExperiment, againInExperiment }).map(([name, samples]) => [
          name,
          { p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99) },
        ]),
      ),
      /** Starts naming a shopper in an experiment, as multiples of the same start without one (p50), in this run. */
      ratioToStartWithShopper: {
        firstInExperiment: percentile(firstInExperiment, 50) / percentile(withShopper, 50),
        againInExperiment: percentile(againInExperiment, 50) / percentile(withShopper, 50),
      },
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
