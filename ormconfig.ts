import { DataSource, type DataSourceOptions } from 'typeorm';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { ENTITIES } from './src/entities.js';
import { InitialSchema1763776800000 } from './src/database/migrations/1763776800000-initial-schema.js';
import { CatalogAndSessions1763820000000 } from './src/database/migrations/1763820000000-catalog-and-sessions.js';
import { EventIngestionAndMetrics1763900000000 } from './src/database/migrations/1763900000000-event-ingestion-and-metrics.js';
import { SellerConsole1764000000000 } from './src/database/migrations/1764000000000-seller-console.js';
import { ConsoleAccess1764100000000 } from './src/database/migrations/1764100000000-console-access.js';
import { IdempotencyKeys1764200000000 } from './src/database/migrations/1764200000000-idempotency-keys.js';
import { FitLearning1764300000000 } from './src/database/migrations/1764300000000-fit-learning.js';
import { ReturningShoppers1764400000000 } from './src/database/migrations/1764400000000-returning-shoppers.js';
import { BoundedEvidence1764500000000 } from './src/database/migrations/1764500000000-bounded-evidence.js';
import { EvidenceByType1764600000000 } from './src/database/migrations/1764600000000-evidence-by-type.js';
import { IdempotentSubjects1764700000000 } from './src/database/migrations/1764700000000-idempotent-subjects.js';
import { LineLessons1764800000000 } from './src/database/migrations/1764800000000-line-lessons.js';
import { EventTypes1764900000000 } from './src/database/migrations/1764900000000-event-types.js';
import { ReadModels1765000000000 } from './src/database/migrations/1765000000000-read-models.js';
import { OrderHistory1765100000000 } from './src/database/migrations/1765100000000-order-history.js';
import { AnswerLinks1765200000000 } from './src/database/migrations/1765200000000-answer-links.js';
import { VerdictOdds1765300000000 } from './src/database/migrations/1765300000000-verdict-odds.js';
import { Experiments1765400000000 } from './src/database/migrations/1765400000000-experiments.js';
import { PlatformWebhooks1765500000000 } from './src/database/migrations/1765500000000-platform-webhooks.js';
import { PlatformImports1765600000000 } from './src/database/migrations/1765600000000-platform-imports.js';
import { PlatformSync1765700000000 } from './src/database/migrations/1765700000000-platform-sync.js';

/** Where the data lives: a PostgreSQL server, or an embedded PGlite instance owned by the caller. */
export type DatabaseTarget = { url: string } | { pglite: PGlite };

export const migrations = [
  InitialSchema1763776800000,
  CatalogAndSessions1763820000000,
  EventIngestionAndMetrics1763900000000,
  SellerConsole1764000000000,
  ConsoleAccess1764100000000,
  IdempotencyKeys1764200000000,
  FitLearning1764300000000,
  ReturningShoppers1764400000000,
  BoundedEvidence1764500000000,
  EvidenceByType1764600000000,
  IdempotentSubjects1764700000000,
  LineLessons1764800000000,
  EventTypes1764900000000,
  ReadModels1765000000000,
  OrderHistory1765100000000,
  AnswerLinks1765200000000,
  VerdictOdds1765300000000,
  Experiments1765400000000,
  PlatformWebhooks1765500000000,
  PlatformImports1765600000000,
  PlatformSync1765700000000,
];

/** A database that does not answer a new connection within this long is treated as down: 503 within a second. */
export const CONNECT_WITHIN_MS = 750;
/** How long a request waits for one of the pool's connections while all of them are busy, before 503 `unavailable`. */
export const POOL_WAIT_MS = 10_000;

/**
 * node-postgres's pool applies its `connectionTimeoutMillis` both to opening a connection and to waiting for a free
 * one. The two differ: a server that takes 750 ms to accept a connection is away, but a burst of requests larger than
 * the pool only waits its turn. So the pool waits `POOL_WAIT_MS`, and its connections, opened by this client, give up
 * opening after `CONNECT_WITHIN_MS` ("timeout expired").
 */
class PromptClient extends pg.Client {
  constructor(config: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_WITHIN_MS });
  }
}

/**
 * The one TypeORM options object, shared by the service and the migration CLI.
 * Schema changes are committed migrations; the service runs them at start-up under an advisory lock.
 */
export function dataSourceOptions(target: DatabaseTarget): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    entities: ENTITIES,
    migrations,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
  };
  if ('pglite' in target) {
    // PGlite serves one connection; node-postgres talks to it in-process through PGlite's adapter.
    return { ...common, poolSize: 1, extra: createPgConfig(target.pglite) };
  }
  return {
    ...common,
    url: target.url,
    poolSize: 10,
    // Answer fast when the database is unreachable instead of hanging the request.
    // JIT compilation pays off for long analytical queries only; here it added seconds to the metrics statement.
    // A database that does not answer a connection within 750 ms is treated as down: requests get 503 within a
    // second rather than hanging (test/runtime/db-outage.e2e-spec.ts); a request waiting for a busy pool waits longer.
    extra: {
      Client: PromptClient,
      connectionTimeoutMillis: POOL_WAIT_MS,
      statement_timeout: 15000,
      query_timeout: 20000,
      options: '-c jit=off',
    },
  };
}

/** For the TypeORM CLI (`npm run migration:generate -- src/database/migrations/name`), against PostgreSQL. */
export default new DataSource(dataSourceOptions({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' }));
