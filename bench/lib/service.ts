/** What every bench and seed script shares: the built service as a child process, a JSON client, percentiles. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface RunningService {
  readonly base: string;
  readonly operatorKey: string;
  /** The service's process id (for /proc/<pid>: memory and CPU time). */
  readonly pid: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * The Node options `npm start` gives the service (the words between `node` and `dist/src/main.js` in the start script
 * of `dir`'s package.json), so that benches measure the service as it is run.
 */
export function startNodeArgs(dir = '.'): string[] {
  const scripts = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  const words = (scripts.start ?? '').trim().split(/\s+/);
  const main = words.indexOf('dist/src/main.js');
  return words[0] === 'node' && main > 0 ? words.slice(1, main) : [];
}

/**
 * Starts `dist/src/main.js` (build first) with the Node options of `npm start`, on port `port` with the given
 * database settings (`DATABASE_URL`, or `DATA_DIR` for the embedded database), no rate limit and silent logs, and
 * waits until `/readyz` answers.
 * `options.script` starts another built server instead (the bench's floor), with the same environment.
 */
export async function startService(
  port: number,
  database: { DATABASE_URL: string } | { DATA_DIR: string },
  options: { nodeArgs?: readonly string[]; env?: Record<string, string>; script?: string } = {},
): Promise<RunningService> {
  const base = `http://127.0.0.1:${port}`;
  // A server left running by an interrupted run would answer in the new one's place, with another operator key.
  if (
    await fetch(`${base}/readyz`).then(
      () => true,
      () => false,
    )
  ) {
    throw new Error(`port ${port} already has a server (left by an interrupted run?): stop it first`);
  }
  const operatorKey = generateSecret(OPERATOR_KEY_PREFIX);
  const nodeArgs = [...(options.script ? [] : startNodeArgs()), ...(options.nodeArgs ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, options.script ?? 'dist/src/main.js'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      ...database,
      PORT: String(port),
      OPERATOR_BOOTSTRAP_KEY: operatorKey,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 150 || child.exitCode !== null) {
      await stop();
      throw new Error('the service did not start (is it built? npm run build)');
    }
    await sleep(200);
  }
  return { base, operatorKey, pid: child.pid as number, stop };
}

/** A JSON call that throws on any answer other than 2xx. */
export async function call(base: string, method: string, path: string, key: string, body?: unknown): Promise<Json> {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Json;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** The p-th percentile (nearest rank) of `samples`, in their unit, to 0.1. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}
