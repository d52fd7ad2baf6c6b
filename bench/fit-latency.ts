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
  const service = await startService(PORT, { DATA_DIR: join(dataDir, 'db') }, {
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean),
  });
  const call = (method: string, path: string, key: string, body?: unknown) => callService(service.base, method, path, key, body);
  try {
    const merchant = await call('POST', '/v1/merchants', service.operatorKey, { name: 'Bench' });
    const admin = merchant.api_key.secret as string;
    const store = (await call('POST', '/v1/stores', admin, { name: 'Bench store' })).id as string;
    const fitKey = (await call('POST', '/v1/api-keys', admin, { name: 'fit', store_id: store, scopes: ['fit'] })).secret;
    const s = `/v1/stores/${store}`;
    const type = await call('POST', `${s}/product-types`, admin, {
      name: 'Tee',
      category: 'tops',
      zone_weights: { chest: 1, waist: 0.5 },
    });
    const bounds: [string, number, number][] = [['XS', 78, 63], ['S', 86, 71], ['M', 94, 79], ['L', 102, 87], ['XL', 110, 95], ['XXL', 118, 103]];
    const chart = await call('POST', `${s}/size-charts`, admin, {
      name: 'Tops',
      unit: 'cm',
      measurement_type: 'body',
      sizes: bounds.map(([label, chest, waist]) => ({
        label,
        measurements: { chest: { min: chest, max: chest + 8 }, waist: { min: waist, max: waist + 8 } },
      })),
    });
    const product = await call('POST', `${s}/products`, admin, {
      title: 'Crew tee',
      product_type_id: type.id,
      size_chart_id: chart.id,
    });
    for (const [label] of bounds) await call('POST', `${s}/products/${product.id}/variants`, admin, { size_label: label });

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
          answers: {
            height: { value: 155 + (i % 40), unit: 'cm' },
            weight: { value: 50 + ((i * 7) % 60), unit: 'kg' },
            age: 20 + (i % 50),
            sex: i % 3 === 0 ? 'female' : 'male',
          },
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
