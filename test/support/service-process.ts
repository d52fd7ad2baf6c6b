/**
 * The service as a separate operating-system process, started from the TypeScript sources, so that a test can kill
 * it (SIGKILL: no shutdown hook, no flush, no lock release) and start it again on the same database.
 *
 * No build is needed: the child runs `src/main.ts` through a module hook that compiles each `.ts` file with SWC, with
 * the options Jest uses (decorator metadata included), and maps the `.js` import suffixes to the `.ts` sources. What it
 * compiles is kept in the temp directory under the hash of each file's path and content, for the next start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import request from 'supertest';
import { OPERATOR_KEY, type TestApp } from './app.js';
import { seededDataDir } from './embedded-template.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SWC = pathToFileURL(createRequire(import.meta.url).resolve('@swc/core')).href;
/** The compiler's version names the compile cache: another version compiles afresh. */
const SWC_VERSION = (createRequire(import.meta.url)('@swc/core/package.json') as { version: string }).version;

/** The module hooks, as the child loads them: `.ts` sources compiled on the fly. */
const HOOKS = `
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const CACHE = join(tmpdir(), 'size-fit-swc-cache-' + ${JSON.stringify(SWC_VERSION)});
mkdirSync(CACHE, { recursive: true });
const swc = await import(${JSON.stringify(SWC)});
const transform = (swc.default ?? swc).transform;
const options = {
  jsc: {
    target: 'es2023',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const local = specifier.startsWith('.') || specifier.startsWith('file:');
    if (!local || !specifier.endsWith('.js') || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return next(specifier.slice(0, -3) + '.ts', context);
  }
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return next(url, context);
  const filename = new URL(url).pathname;
  const source = await readFile(filename, 'utf8');
  // Compiled once per content: every start of a child reads the cache instead of compiling the whole service again.
  const cached = join(CACHE, createHash('sha256').update(JSON.stringify(options)).update(filename).update('\0').update(source).digest('hex') + '.js');
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {}
  const { code } = await transform(source, { ...options, filename });
  const partial = cached + '.' + process.pid + '.tmp';
  await writeFile(partial, code).then(() => rename(partial, cached), () => undefined);
  return { format: 'module', source: code, shortCircuit: true };
}
`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

export interface ServiceProcess {
  readonly base: string;
  readonly port: number;
  readonly pid: number;
  /** A supertest client on the process, as `TestApp.http()` is on an in-process app. */
  http(): ReturnType<typeof request>;
  /** This process as far as the fixtures need it (createTenant, createShop, issueKey: HTTP only). */
  readonly asTestApp: TestApp;
  /** Sends `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM (the service shuts down cleanly), then waits for the exit. */
  stop(): Promise<void>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything the process wrote to stdout so far (with `captureStdout`; else nothing). */
  stdout(): string;
}

/** A port nobody listens on now (the OS's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export interface ServiceOptions {
  /** The database: `DATABASE_URL` for PostgreSQL, or `DATA_DIR` for the embedded one. */
  readonly database: { DATABASE_URL: string } | { DATA_DIR: string };
  /** Default: a free port. A restart passes the port of the process it replaces. */
  readonly port?: number;
  readonly env?: Record<string, string>;
  /** How long to wait for /readyz. */
  readonly readyWithinMs?: number;
  /** Keeps what the process writes to stdout (its logs, the operator key of a first start), for `stdout()`. */
  readonly captureStdout?: boolean;
}

/** Thrown when the process exits before it is ready (for example: its data directory is locked). */
export class ServiceStartError extends Error {
  override readonly name = 'ServiceStartError';
}

/**
 * Starts `src/main.ts` in a child process with the operator key of the test apps, silent logs and no rate limit, and
 * waits until `/readyz` answers 200. Rejects with ServiceStartError when the process exits first.
 */
export async function startServiceProcess(options: ServiceOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: '',
      ...options.database,
      HOST: '127.0.0.1',
      PORT: String(port),
      OPERATOR_BOOTSTRAP_KEY: OPERATOR_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      ...options.env,
    },
    stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (running()) child.kill(signal);
    await exited;
  };

  const deadline = Date.now() + (options.readyWithinMs ?? 60_000);
  for (;;) {
    if (!running()) {
      await exited;
      throw new ServiceStartError(`the service exited (${child.exitCode ?? child.signalCode}) before it was ready: ${stderr.trim()}`);
    }
    const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await kill();
      throw new Error(`the service was not ready within ${options.readyWithinMs ?? 60_000} ms: ${stderr.trim()}`);
    }
    await sleep(100);
  }

  const http = () => request(base);
  const asTestApp = {
    http,
    get app(): never {
      throw new Error('a service process has no in-process application: use HTTP');
    },
    close: () => kill('SIGTERM'),
  } as TestApp;
  return {
    base,
    port,
    pid: child.pid as number,
    http,
    asTestApp,
    kill,
    stop: () => kill('SIGTERM'),
    stderr: () => stderr,
    stdout: () => stdout,
  };
}

/**
 * A database for a service process of its own, removed by `drop()`: a new PostgreSQL database when DATABASE_URL is
 * set, else a temporary data directory for the embedded one.
 */
export async function scratchDatabase(): Promise<{ env: { DATABASE_URL: string } | { DATA_DIR: string }; drop(): Promise<void> }> {
  const POSTGRES_URL = process.env.DATABASE_URL;
  if (!POSTGRES_URL) {
    const dir = await seededDataDir('size-fit-scratch-');
    return {
      env: { DATA_DIR: dir },
      drop: async () => {
        rmSync(dir, { recursive: true, force: true });
        rmSync(`${dir}.lock`, { recursive: true, force: true });
      },
    };
  }
  const name = `scratch_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
