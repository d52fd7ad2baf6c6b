/**
 * On PostgreSQL, each Jest worker runs its files on a database of its own, so files run side by side as they do on
 * the embedded database (where each file has its own), while the files of one worker still run one at a time on
 * theirs: a file that checks whole tables sees no other file's rows being written.
 *
 * Jest's global set-up (once per run, before the workers start) drops and creates `<name>_w1` … `<name>_wN` on the
 * server `DATABASE_URL` names; the first app a worker starts migrates its database. Each test file then points
 * `DATABASE_URL` at its worker's database (`worker-database.ts`, loaded by jest.config.js). The global teardown
 * (`postgres-databases-teardown.ts`) drops them when the run ends, so a run leaves the server as it found it.
 */
import pg from 'pg';

/** The URL given to the run, kept for the workers (they inherit the environment of the process that starts them). */
export const RUN_DATABASE_URL = 'SIZE_FIT_TEST_DATABASE_URL';

export function workerDatabaseUrl(runUrl: string, worker: number): string {
  const url = new URL(runUrl);
  url.pathname = `/${databaseName(url)}_w${worker}`;
  return url.toString();
}

function databaseName(url: URL): string {
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`DATABASE_URL: use a plain lower-case database name, not "${name}"`);
  return name;
}

/** The databases the set-up made, for the teardown (both run in Jest's parent process). */
const WORKER_DATABASES = 'SIZE_FIT_TEST_WORKER_DATABASES';

export default async function createWorkerDatabases(config: { maxWorkers: number }): Promise<void> {
  const runUrl = process.env.DATABASE_URL;
  if (!runUrl) return;
  process.env[RUN_DATABASE_URL] = runUrl;
  const names: string[] = [];
  for (let worker = 1; worker <= Math.max(1, config.maxWorkers); worker++) {
    names.push(new URL(workerDatabaseUrl(runUrl, worker)).pathname.slice(1));
  }
  const admin = new pg.Client({ connectionString: runUrl });
  await admin.connect();
  try {
    for (const name of names) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await admin.end();
  }
  process.env[WORKER_DATABASES] = names.join(',');
}
