import { type DataSource, type EntityManager, TypeORMError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner.js';

/** What node-postgres needs to run a named statement: the pool, or the client holding a transaction. */
interface Queryable {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A statement of the request path, prepared: PostgreSQL parses and plans it once per connection (a named prepared
 * statement) rather than at every call. Planning was most of PostgreSQL's work for an event: the one-statement
 * insert of an event naming a product cost its backend 0.8 ms unprepared and 0.35 ms prepared (docs/performance.md).
 * Names are unique in the service (`prepared` refuses a second one); the text never changes at run time.
 *
 * Prepared statements live on the connection, so a pooler in front of PostgreSQL must keep a server connection per
 * client connection (PgBouncer in session mode, or 1.21+ with `max_prepared_statements`).
 */
interface Prepared<Row> {
  readonly name: string;
  readonly text: string;
  /** Never read: it carries the row type. */
  readonly row?: Row;
}

const texts = new Map<string, string>();

/**
 * A statement that finds rows by their key within a store compares the store as `(SELECT $n::uuid)`, not `$n`.
 * Given the value, PostgreSQL estimates the store's rows from its statistics, and a store they have not seen (a new
 * one, on tables another store fills, until the next ANALYZE) counts as one row: the cheapest plan then reads the
 * store's rows by its id alone and filters them for the key, once per key, so the statement grows with the store
 * (marking a purchase's shared session links went quadratic: 20 purchases a second instead of 600,
 * docs/performance.md). Behind an InitPlan the value is unknown when planning, the estimate is the average store's,
 * and the key's index is used. Reads of a whole store (lists, metrics) keep the value in sight: its estimate is
 * what they need.
 */
export function prepared<Row>(name: string, text: string): Prepared<Row> {
  if (texts.has(name)) throw new Error(`a prepared statement is already named ${name}`);
  texts.set(name, text);
  return { name, text };
}

/** The text of the prepared statement `name` (for tests that read its plan). */
export function statementText(name: string): string {
  const text = texts.get(name);
  if (text === undefined) throw new Error(`no prepared statement is named ${name}`);
  return text;
}

/**
 * Runs a prepared statement and returns its rows: alone through the pool (autocommitted) when given the DataSource or
 * its own manager, or on the transaction's connection when given a transaction's manager.
 */
export async function run<Row>(on: DataSource | EntityManager, statement: Prepared<Row>, values: readonly unknown[]): Promise<Row[]> {
  const target = await queryable(on);
  const { rows } = await target.query({ name: statement.name, text: statement.text, values });
  return rows as Row[];
}

function queryable(on: DataSource | EntityManager): Queryable | Promise<Queryable> {
  const manager = 'manager' in on ? on.manager : on;
  const runner = manager.queryRunner as PostgresQueryRunner | undefined;
  if (runner) return runner.connect() as Promise<Queryable>;
  const pool = (manager.connection.driver as PostgresDriver).master as Queryable | undefined;
  // A closed DataSource has no pool: the error TypeORM's own queries give then (database-errors.ts: unavailable).
  if (!pool) throw new TypeORMError('Driver not Connected');
  return pool;
}
