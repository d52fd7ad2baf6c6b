import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { CONNECT_WITHIN_MS, dataSourceOptions } from '../../ormconfig.js';
import { asProblem } from '../common/problems/problem-details.filter.js';
import { isDatabaseUnavailable, isPoolWaitOver } from './database-errors.js';

/**
 * The two ways a request can fail to get a connection, told apart on node-postgres's own errors: a server that never
 * answers a new connection (away: 503 within a second) and a pool whose connections all stay busy (up, but full).
 */
describe('a connection that is not had', () => {
  // Takes connections and never answers them, as a vanished host behind a proxy does.
  let silent: Server;
  const sockets = new Set<Socket>();
  let url: string;

  beforeAll(async () => {
    silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `postgres://size@127.0.0.1:${(silent.address() as AddressInfo).port}/nowhere`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  /** The service's own pool options (ormconfig.ts), with `overrides`. */
  function servicePool(overrides: pg.PoolConfig = {}): pg.Pool {
    const { extra } = dataSourceOptions({ url }) as { extra: pg.PoolConfig };
    return new pg.Pool({ connectionString: url, max: 10, ...extra, ...overrides });
  }

  async function failure(query: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const startedAt = Date.now();
    const error = await query.then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, ms: Date.now() - startedAt };
  }

  it('gives up opening a connection after CONNECT_WITHIN_MS, and answers 503 unavailable: the database is away', async () => {
    const pool = servicePool();
    try {
      const { error, ms } = await failure(pool.query('SELECT 1'));
      expect(ms).toBeGreaterThanOrEqual(CONNECT_WITHIN_MS - 50);
      expect(ms).toBeLessThan(CONNECT_WITHIN_MS + 1000);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(isPoolWaitOver(error)).toBe(false);
      expect(asProblem(error)).toMatchObject({ status: 503, code: 'unavailable', detail: 'The database is unreachable' });
    } finally {
      await pool.end();
    }
  });

  it('tells a request that waited its whole turn for a busy pool to retry shortly, not that the database is away', async () => {
    // One connection, taken (still opening), and a wait shorter than the opening: the second request's wait runs out.
    const pool = servicePool({ max: 1, connectionTimeoutMillis: 100 });
    try {
      const first = failure(pool.query('SELECT 1'));
      const { error, ms } = await failure(pool.query('SELECT 1'));
      expect(ms).toBeLessThan(CONNECT_WITHIN_MS);
      expect(isPoolWaitOver(error)).toBe(true);
      expect(asProblem(error)).toMatchObject({
        status: 503,
        code: 'unavailable',
        detail: 'Every database connection stayed busy while this request waited its turn; retry shortly',
        headers: { 'Retry-After': '1' },
      });
      expect(isPoolWaitOver((await first).error)).toBe(false);
    } finally {
      await pool.end();
    }
  });
});
