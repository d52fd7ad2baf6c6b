import type { DataSource } from 'typeorm';
import { MigrationExecutor } from 'typeorm';

/** Any constant shared by every instance of the service: it names the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 727_315_001;

/**
 * Runs the committed migrations that have not run yet. Several instances may start at once: the session-level
 * advisory lock lets one migrate while the others wait, then find nothing left to do. The lock is taken on the same
 * connection that runs the migrations, which also keeps the embedded database (one connection) from deadlocking.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  try {
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const executor = new MigrationExecutor(dataSource, queryRunner);
      await executor.executePendingMigrations();
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await queryRunner.release();
  }
}
