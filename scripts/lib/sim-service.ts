/**
 * Starts the service in this process, listening on a free local port, on a throw-away in-memory embedded database
 * (never on PostgreSQL: DATABASE_URL is not read), with rate limits off so the simulation's thousands of calls pass.
 *
 * `analyse()` runs `ANALYZE` on its database, the statistics PostgreSQL's autovacuum keeps up to date by itself and the
 * embedded database never does. Without them a prepared statement keeps the plan it was given while the store's tables
 * were nearly empty (`evidence.outcome-sizes` then walks every order line linked to a session for every outcome, and a
 * replay's days take seconds, then minutes); ANALYZE also invalidates the cached plans.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';
import { loadConfig } from '../../src/config/app.config.js';

export interface RunningService {
  readonly baseUrl: string;
  /** The application, for a simulation that plays what no API call can (a fault past the API). */
  readonly app: INestApplication;
  readonly operatorKey: string;
  close(): Promise<void>;
  /** Runs ANALYZE on the service's database; answers how long it took (ms). */
  analyse(): Promise<number>;
}

export async function startService(): Promise<RunningService> {
  const operatorKey = generateSecret(OPERATOR_KEY_PREFIX);
  const config = loadConfig({
    DATA_DIR: 'memory://',
    OPERATOR_BOOTSTRAP_KEY: operatorKey,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
    MAX_CONNECTIONS_PER_ADDRESS: '0',
    PORT: '0',
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const database = app.get(DataSource);
  const analyse = async () => {
    const started = performance.now();
    await database.query('ANALYZE');
    return performance.now() - started;
  };
  return { baseUrl: `http://127.0.0.1:${port}`, app, operatorKey, close: () => app.close(), analyse };
}
