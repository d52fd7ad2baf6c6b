import { DataSource, type DataSourceOptions } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { CONNECT_WITHIN_MS, dataSourceOptions } from '../../ormconfig.js';
import { type AppConfig, ConfigError } from '../config/app.config.js';
import { ConnectionWatchdog } from './connection-watchdog.js';
import { isDatabaseUnavailable } from './database-errors.js';
import { EmbeddedDatabase } from './embedded-database.js';
import { runMigrations } from './migrate.js';

/**
 * A DataSource that also closes the embedded database it runs on, when there is one, and on PostgreSQL watches its
 * pool for connections that fell silent (connection-watchdog.ts).
 */
class ServiceDataSource extends DataSource {
  private watchdog: ConnectionWatchdog | null = null;

  constructor(
    options: DataSourceOptions,
    private readonly embedded: EmbeddedDatabase | null,
  ) {
    super(options);
  }

  watch(): void {
    const driver = this.driver as PostgresDriver;
    this.watchdog = ConnectionWatchdog.start(driver.master);
  }

  override async destroy(): Promise<void> {
    try {
      this.watchdog?.stop();
      if (this.isInitialized) await super.destroy();
    } finally {
      await this.embedded?.close();
    }
  }
}

export interface OpenOptions {
  /** For an in-memory embedded database: a snapshot to start from (see EmbeddedDatabase.open). */
  readonly template?: Blob;
}

/**
 * Opens the database the configuration names (PostgreSQL, or the embedded one) and brings its schema up to date.
 * Runs before the application is built, so that a database problem stops the start with one readable line.
 */
export async function openDatabase(config: AppConfig, options: OpenOptions = {}): Promise<DataSource> {
  const embedded = config.databaseUrl === null ? await EmbeddedDatabase.open(config.dataDir, options.template) : null;
  const target = embedded ? { pglite: embedded.pglite } : { url: config.databaseUrl as string };
  const dataSource = new ServiceDataSource(dataSourceOptions(target), embedded);
  try {
    await dataSource.initialize();
    await runMigrations(dataSource);
    if (!embedded && process.env.NO_WATCH !== '1') dataSource.watch();
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw startupError(error, config);
  }
  return dataSource;
}

function startupError(error: unknown, config: AppConfig): Error {
  if (config.databaseUrl === null) return error as Error;
  const url = new URL(config.databaseUrl);
  const where = `${url.hostname}:${url.port || 5432}${url.pathname}`;
  const { code, message } = error as { code?: string; message?: string };
  if (code && /^[A-Z]+$/.test(code)) return new ConfigError(`cannot reach PostgreSQL at ${where} (${code})`);
  // node-postgres's own words for a server that closed the connection, or never answered within the timeout.
  if (code === undefined && isDatabaseUnavailable(error)) {
    const why = message === 'timeout expired' ? `no answer within ${CONNECT_WITHIN_MS} ms` : message;
    return new ConfigError(`cannot reach PostgreSQL at ${where}: ${why}`);
  }
  // PostgreSQL's own messages name the user or database at fault, never the password.
  return new ConfigError(`PostgreSQL at ${where} refused to start the service: ${message ?? 'unknown error'}`);
}
