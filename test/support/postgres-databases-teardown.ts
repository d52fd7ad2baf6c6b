/**
 * Jest's global teardown on PostgreSQL: drops the workers' databases that the set-up made (`postgres-databases.ts`),
 * so that a run leaves the server as it found it. Jest loads this file without the test files' module mapping, so it
 * imports nothing of the project and finds what it drops where the set-up left it, in the environment.
 */
import pg from 'pg';

export default async function dropWorkerDatabases(): Promise<void> {
  const runUrl = process.env.SIZE_FIT_TEST_DATABASE_URL;
  const names = process.env.SIZE_FIT_TEST_WORKER_DATABASES?.split(',').filter(Boolean) ?? [];
  if (!runUrl || names.length === 0) return;
  const admin = new pg.Client({ connectionString: runUrl });
  await admin.connect();
  try {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
