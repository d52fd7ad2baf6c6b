/**
 * The service for `npm run eval:outcomes`, started as sim-service.ts's `startService()` starts it (in this process, on
 * a throw-away in-memory embedded database, rate limits off), with one thing more: `analyse()` runs `ANALYZE` on its
 * database, the statistics PostgreSQL's autovacuum keeps up to date by itself and the embedded database never does.
 *
 * Without them, a prepared statement keeps the plan it was given while the store's tables were nearly empty: the
 * statement that reads each outcome's sizes (`evidence.outcome-sizes`) then walks every order line of the store
 * linked to a session for every outcome, and a day's outcomes take seconds, then minutes, as the store fills. ANALYZE
 * also invalidates the cached plans, so the next call plans again on the statistics.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';
import { loadConfig } from '../../src/config/app.config.js';
import type { RunningService } from './sim-service.js';

export interface ReplayService extends RunningService {
  /** Runs ANALYZE on the service's database; answers how long it took (ms). */
  analyse(): Promise<number>;
}

export async function startReplayService(): Promise<ReplayService> {
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
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    operatorKey,
    close: () => app.close(),
    analyse: async () => {
      const started = performance.now();
      await database.query('ANALYZE');
      return performance.now() - started;
    },
  };
}
