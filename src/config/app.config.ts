/** The service's configuration, read once from the environment and validated before anything starts. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly production: boolean;
  readonly logLevel: string;
  /** PostgreSQL connection string; `null` selects the embedded database. */
  readonly databaseUrl: string | null;
  /** Where the embedded database lives; `memory://` keeps it in memory. */
  readonly dataDir: string;
  /** The operator bootstrap secret from the environment, if one was given. */
  readonly operatorBootstrapKey: string | null;
  /** Requests per minute per credential on /v1; 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
}

/** A configuration problem, reported as one readable line instead of a stack trace. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const production = env.NODE_ENV === 'production';
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== null) assertPostgresUrl(databaseUrl);

  const operatorBootstrapKey = nonEmpty(env.OPERATOR_BOOTSTRAP_KEY);
  if (operatorBootstrapKey === null && (production || databaseUrl !== null)) {
    throw new ConfigError(
      'OPERATOR_BOOTSTRAP_KEY is required when NODE_ENV=production or DATABASE_URL is set ' +
        '(only an embedded, non-production start creates one by itself)',
    );
  }
  if (operatorBootstrapKey !== null && operatorBootstrapKey.length < 32) {
    throw new ConfigError('OPERATOR_BOOTSTRAP_KEY must be at least 32 characters long');
  }

  const logLevel = nonEmpty(env.LOG_LEVEL) ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  }

  return {
    port: parsePort(env.PORT),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    production,
    logLevel,
    databaseUrl,
    dataDir: nonEmpty(env.DATA_DIR) ?? './data',
    operatorBootstrapKey,
    rateLimitPerMinute: parseCount('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 6000),
  };
}

/** Injection token of the validated AppConfig: `@Inject(APP_CONFIG) config: AppConfig`. */
export const APP_CONFIG = Symbol('AppConfig');

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function parsePort(value: string | undefined): number {
  const raw = nonEmpty(value) ?? '3000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, not "${raw}"`);
  }
  return port;
}

function parseCount(name: string, value: string | undefined, fallback: number): number {
  const raw = nonEmpty(value);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(`${name} must be a whole number, not "${raw}"`);
  return Number(raw);
}

function assertPostgresUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL (expected postgres://user@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, not "${url.protocol}//"`);
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError('DATABASE_URL must name a host and a database (postgres://user@host:5432/database)');
  }
}
