/**
 * PostgreSQL error classes that mean "the database cannot serve us right now" rather than "bad query": connection
 * failures (08), resources exhausted (53), the server shutting down or the database dropped (57P01–57P04), the
 * database missing (3D000) and the login refused (28), as a server that answers but not for this service says it.
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|28|3D000$|57P0[1-4])/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);
/** node-postgres's pool, when a request waited POOL_WAIT_MS (ormconfig.ts) for a connection and none came free. */
const POOL_WAIT_OVER = 'timeout exceeded when trying to connect';
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout expired', // a new connection not opened within CONNECT_WITHIN_MS (ormconfig.ts)
  POOL_WAIT_OVER,
  'Query read timeout',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  'PGlite is closed',
  'Driver not Connected',
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return false;
    const { code, message, driverError, cause } = current as {
      code?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    current = driverError ?? cause;
  }
  return false;
}

/** Whether `error` is the pool's: every connection stayed busy while the request waited (the database is up). */
export function isPoolWaitOver(error: unknown): boolean {
  return error instanceof Error && error.message === POOL_WAIT_OVER;
}

/** The constraint a write broke, when it broke one (unique: 23505, foreign key: 23503). */
export function violatedConstraint(error: unknown): { sqlState: string; constraint: string } | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, constraint, driverError } = current as { code?: unknown; constraint?: unknown; driverError?: unknown };
    if ((code === '23505' || code === '23503') && typeof constraint === 'string') {
      return { sqlState: code, constraint };
    }
    current = driverError;
  }
  return undefined;
}
