/** Points this test file at its Jest worker's own PostgreSQL database (see `postgres-databases.ts`). */
import { RUN_DATABASE_URL, workerDatabaseUrl } from './postgres-databases.js';

const runUrl = process.env[RUN_DATABASE_URL];
if (runUrl) process.env.DATABASE_URL = workerDatabaseUrl(runUrl, Number(process.env.JEST_WORKER_ID ?? '1'));
