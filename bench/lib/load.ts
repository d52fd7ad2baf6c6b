/**
 * Closed-loop HTTP load with autocannon: `connections` keep-alive connections per target, each sending its next
 * request as soon as the previous answer arrives, for `seconds`. Every request gets a fresh body (unique events).
 * Latencies are kept raw (autocannon's own histogram has 1 ms resolution) and read with `percentile`.
 */
import autocannon from 'autocannon';
import { percentile } from './service.js';

export interface Target {
  /** http://127.0.0.1:port */
  readonly base: string;
  readonly connections: number;
  readonly path: string;
  readonly key: string;
  /** A new request body for every request: a POST. Without one, a GET. */
  readonly body?: () => string;
}

export interface LoadResult {
  readonly seconds: number;
  readonly connections: number;
  /** Answers with the expected status. */
  readonly ok: number;
  /** `ok` per second of the run. */
  readonly per_second: number;
  /** Latency of the answers with the expected status, in ms. */
  readonly ms: { p50: number; p90: number; p99: number; max: number };
  /** Every status seen, with its count. */
  readonly statuses: Record<string, number>;
  /** Socket errors and timeouts. */
  readonly errors: number;
}

/** Runs every target at once for `seconds`; answers other than `expect` are counted, not timed. */
export async function load(targets: readonly Target[], seconds: number, expect: number): Promise<LoadResult & { samples: number[] }> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    targets.map(
      (target) =>
        new Promise<void>((resolve, reject) => {
          const instance = autocannon(
            {
              url: target.base,
              connections: target.connections,
              duration: seconds,
              timeout: 30,
              requests: [
                target.body === undefined
                  ? { method: 'GET', path: target.path, headers: target.key ? { authorization: `Bearer ${target.key}` } : {} }
                  : {
                      method: 'POST',
                      path: target.path,
                      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
                      setupRequest: (request) => ({ ...request, body: (target.body as () => string)() }),
                    },
              ],
            },
            (error, result) => {
              if (error) return reject(error);
              errors += result.errors + result.timeouts;
              resolve();
            },
          );
          instance.on('response', (_client, status, _bytes, ms) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status === expect) samples.push(ms);
          });
        }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    seconds: Math.round(elapsed * 100) / 100,
    connections: targets.reduce((sum, t) => sum + t.connections, 0),
    ok: samples.length,
    per_second: Math.round(samples.length / elapsed),
    ms: summary(samples),
    statuses,
    errors,
    samples,
  };
}

export function summary(samples: readonly number[]): { p50: number; p90: number; p99: number; max: number } {
  if (!samples.length) return { p50: NaN, p90: NaN, p99: NaN, max: NaN };
  return { p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), max: percentile(samples, 100) };
}

/** Several runs of the same case read as one: counts and seconds added, percentiles over every sample. */
export function pooled(runs: ReadonlyArray<LoadResult & { samples: number[] }>): LoadResult {
  const samples = runs.flatMap((r) => r.samples);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [k, v] of Object.entries(run.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    seconds: Math.round(seconds * 100) / 100,
    connections: runs[0].connections,
    ok: samples.length,
    per_second: Math.round(samples.length / seconds),
    ms: summary(samples),
    statuses,
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}
