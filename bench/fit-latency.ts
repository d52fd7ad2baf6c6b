/**
 * Latency of the fit flow over HTTP on the embedded database: start a session, answer it (the recommendation), decide.
 * Starts the built service as a child process on a fresh data directory, drives it sequentially with keep-alive
 * connections, and writes the percentiles to bench/results/fit-latency-<date>.json.
 *
 *   npm run bench:fit            (ROUNDS=500 by default)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const PORT = 3917;
const BASE = `http://127.0.0.1:${PORT}`;
const OPERATOR_KEY = 'sfo_bench_operator_key_0123456789abcdefghij';
const ROUNDS = Number(process.env.ROUNDS ?? 500);

type Json = Record<string, any>;

async function call(method: string, path: string, key: string, body?: unknown): Promise<Json> {
  const response = await fetch(BASE + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Json;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function timed(samples: number[], work: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await work();
  samples.push(performance.now() - start);
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 100) / 100;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'size-fit-bench-'));
  const service = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/src/main.js'], {
    env: { ...process.env, PORT: String(PORT), DATA_DIR: join(dataDir, 'db'), OPERATOR_BOOTSTRAP_KEY: OPERATOR_KEY, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: '' },
    stdio: 'inherit',
  });
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${BASE}/readyz`).then((r) => r.ok, () => false)) break;
      if (i > 100) throw new Error('the service did not start');
      await sleep(200);
    }
    const merchant = await call('POST', '/v1/merchants', OPERATOR_KEY, { name: 'Bench' });
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
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
