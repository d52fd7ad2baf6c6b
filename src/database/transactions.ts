import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** Deadlock and serialization failure: the database rolled the transaction back and asks for it to be run again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

function isRetryable(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, driverError } = current as { code?: unknown; driverError?: unknown };
    if (typeof code === 'string' && RETRYABLE_SQLSTATES.has(code)) return true;
    current = driverError;
  }
  return false;
}

/** Runs `work` again (up to three times) when the database answers a deadlock or a serialization failure. */
export async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
    }
  }
}

/**
 * The one way to run a transaction in this service: `work` runs in a transaction, and again (up to three times) when
 * the database rolls it back for a deadlock or a serialization failure.
 *
 * The rule, for every caller:
 * - Writes that must stand or fall together go in one `transaction(dataSource, work)`; nothing calls
 *   `dataSource.transaction` or opens a query runner itself, so every transaction is retried the same way.
 * - Inside, every statement goes through `manager` (on the embedded database the pool has one connection, and the
 *   global repository would wait for it forever), and `work` builds its result from scratch, with no effect outside
 *   the database, so that running it again is safe.
 * - A single statement needs no transaction: it is atomic on its own. Wrap it in `retried` when it can deadlock.
 */
function transaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return retried(() => dataSource.transaction(work));
}

/**
 * `transaction` for services: they inject this and their repositories, never the `DataSource`. Repository methods
 * that may run inside a transaction take its `manager` as their first argument.
 */
@Injectable()
export class Transactions {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return transaction(this.dataSource, work);
  }

  /**
   * `work` without a transaction, retried like one: for a single statement (or statements each atomic and safe to
   * run again), which needs no `BEGIN` and `COMMIT` round trips. The manager it receives is the pool's: repositories
   * take it as they take a transaction's, so none of them hands out a manager of its own.
   */
  alone<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retried(() => work(this.dataSource.manager));
  }
}
