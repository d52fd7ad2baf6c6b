import type { DataSource, EntityManager } from 'typeorm';

/**
 * How the service talks to the database, in three ways, each where it serves:
 *
 * 1. **TypeORM's repositories**, for plain reads and writes of one feature's rows: each feature lists its entities
 *    (`CATALOG_ENTITIES` in `catalog.entities.ts`, …), registers them with `TypeOrmModule.forFeature`, and its
 *    repositories take `@InjectRepository(Entity) Repository<Entity>`; in a transaction they use the caller's
 *    `manager` instead (`database/transactions.ts`). `src/entities.ts` gathers the lists for the DataSource.
 * 2. **TypeORM's query builder**, where a read varies in shape: lists and their filters and cursors (`paginate`,
 *    `queryInStore`), joins of a few entities.
 * 3. **Prepared statements** (this file), on the hot paths: the key lookup, the event inserts and read-backs, the
 *    references, the line summaries, learning and the fit flow's steps. `prepared(name, text)` declares one at load,
 *    `run(on, statement, values)` sends it by name, and PostgreSQL parses and plans it once per connection rather than
 *    at every call: planning was most of its work for an event, 0.8 ms of its CPU unprepared and 0.35 ms prepared for
 *    the insert of an event naming a product (docs/performance.md, docs/decisions/008-per-request-cost.md).
 *
 * `run` reaches the connection through TypeORM's public API only: in a transaction, the connection its query runner
 * holds (`manager.queryRunner.connect()`, which hands back the one already taken); alone, a query runner of the
 * DataSource (`createQueryRunner()`), connected, used and released, as TypeORM's own `DataSource.query` does. On the
 * connection it asks node-postgres for a named statement (`{ name, text, values }`), which TypeORM's `query` cannot
 * send. A closed DataSource fails as TypeORM's own queries do then, `Driver not Connected` (database-errors.ts: the
 * database is unavailable).
 *
 * Names are unique in the service (`prepared` refuses a second one); the text never changes at run time. Prepared
 * statements live on the connection, so a pooler in front of PostgreSQL must keep a server connection per client
 * connection (PgBouncer in session mode, or 1.21+ with `max_prepared_statements`).
 */

/** A statement of the request path, declared once by `prepared` and sent by name by `run`. */
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
 * Runs a prepared statement and returns its rows: on the transaction's connection when given a transaction's manager,
 * or alone (autocommitted) on a connection of the pool when given the DataSource or its own manager.
 */
export async function run<Row>(on: DataSource | EntityManager, statement: Prepared<Row>, values: readonly unknown[]): Promise<Row[]> {
  const manager = 'manager' in on ? on.manager : on;
  if (manager.queryRunner) return send(await manager.queryRunner.connect(), statement, values);
  const alone = manager.dataSource.createQueryRunner();
  try {
    return await send(await alone.connect(), statement, values);
  } finally {
    await alone.release();
  }
}

/** The connection a query runner holds, as node-postgres's client: it sends a statement by name. */
interface Connection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

async function send<Row>(connection: Connection, statement: Prepared<Row>, values: readonly unknown[]): Promise<Row[]> {
  const { rows } = await connection.query({ name: statement.name, text: statement.text, values });
  return rows as Row[];
}
