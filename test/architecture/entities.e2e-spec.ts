/**
 * Every table has an entity that describes it exactly, against a freshly migrated database: the same columns, of the
 * same PostgreSQL types, nullable alike, and the same primary key; no table without an entity (but TypeORM's own
 * `schema_migrations`) and no entity without a table. The migrations make the schema; the entities only describe it.
 *
 * How it fails: with a migration adding `ALTER TABLE merchants ADD COLUMN nickname text` appended to the list in
 * ormconfig.ts and the entity left as it was, the first test failed with `merchants.nickname: in the table, not in the
 * entity`; the last test makes such changes (a column added, one made nullable, a table renamed) in a transaction
 * it rolls back, and expects each to be reported.
 */
import { describe, expect, it } from '@jest/globals';
import { DataSource, type EntityManager } from 'typeorm';
import { useApp } from '../support/app.js';

/** Tables that no entity describes, on purpose. */
const WITHOUT_ENTITY = new Set(['schema_migrations', 'typeorm_metadata']);

interface Column {
  type: string;
  nullable: boolean;
  primary: boolean;
}

type Tables = Map<string, Map<string, Column>>;

/** The tables of the current schema as PostgreSQL describes them. */
async function databaseTables(manager: EntityManager): Promise<Tables> {
  const columns = await manager.query<{ table_name: string; column_name: string; type: string; is_nullable: string }[]>(
    `SELECT c.table_name, c.column_name, c.is_nullable,
            (quote_ident(c.udt_schema) || '.' || quote_ident(c.udt_name))::regtype::text AS type
       FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_catalog, table_schema, table_name)
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
  );
  const primary = await manager.query<{ table_name: string; column_name: string }[]>(
    `SELECT k.table_name, k.column_name
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage k USING (constraint_catalog, constraint_schema, constraint_name, table_name)
      WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = current_schema()`,
  );
  const keys = new Set(primary.map((row) => `${row.table_name}.${row.column_name}`));
  const tables: Tables = new Map();
  for (const row of columns) {
    const table = tables.get(row.table_name) ?? new Map<string, Column>();
    table.set(row.column_name, {
      type: row.type,
      nullable: row.is_nullable === 'YES',
      primary: keys.has(`${row.table_name}.${row.column_name}`),
    });
    tables.set(row.table_name, table);
  }
  return tables;
}

/** The tables as the entities describe them, types normalized as TypeORM's driver does (arrays as `type[]`). */
function entityTables(dataSource: DataSource): Tables {
  const tables: Tables = new Map();
  for (const entity of dataSource.entityMetadatas.filter((metadata) => metadata.tableType === 'regular')) {
    const table = new Map<string, Column>();
    for (const column of entity.columns) {
      table.set(column.databaseName, {
        type: dataSource.driver.normalizeType(column) + (column.isArray ? '[]' : ''),
        nullable: column.isNullable,
        primary: column.isPrimary,
      });
    }
    if (tables.has(entity.tableName)) throw new Error(`two entities describe ${entity.tableName}`);
    tables.set(entity.tableName, table);
  }
  return tables;
}

/** What differs between the tables and the entities, one line each. */
function differences(database: Tables, entities: Tables): string[] {
  const found: string[] = [];
  for (const name of database.keys()) {
    if (!entities.has(name) && !WITHOUT_ENTITY.has(name)) found.push(`${name}: a table without an entity`);
  }
  for (const [name, described] of entities) {
    const table = database.get(name);
    if (!table) {
      found.push(`${name}: an entity without a table`);
      continue;
    }
    for (const column of table.keys()) {
      if (!described.has(column)) found.push(`${name}.${column}: in the table, not in the entity`);
    }
    for (const [column, entity] of described) {
      const actual = table.get(column);
      if (!actual) {
        found.push(`${name}.${column}: in the entity, not in the table`);
        continue;
      }
      if (actual.type !== entity.type) found.push(`${name}.${column}: ${actual.type} in the table, ${entity.type} in the entity`);
      if (actual.nullable !== entity.nullable) {
        found.push(`${name}.${column}: ${actual.nullable ? 'nullable' : 'not null'} in the table, not in the entity`);
      }
      if (actual.primary !== entity.primary) {
        found.push(`${name}.${column}: ${actual.primary ? 'in' : 'not in'} the primary key of the table, not of the entity`);
      }
    }
  }
  return found.sort();
}

describe('the entities, against the migrated database', () => {
  const t = useApp();

  it('describe the read models they name with columns the views have', async () => {
    const dataSource = t.app.get(DataSource);
    const views = dataSource.entityMetadatas.filter((metadata) => metadata.tableType === 'view');
    expect(views.length).toBeGreaterThan(0);
    const columns = await dataSource.query<{ name: string }[]>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1)`,
      [views.map((view) => view.tableName)],
    );
    const actual = new Set(columns.map((column) => column.name));
    const described = views.flatMap((view) => view.columns.map((column) => `${view.tableName}.${column.databaseName}`));
    expect(described.filter((name) => !actual.has(name))).toEqual([]);
  });

  it('describe every table exactly, and no other', async () => {
    const dataSource = t.app.get(DataSource);
    expect(differences(await databaseTables(dataSource.manager), entityTables(dataSource))).toEqual([]);
  });

  it('finds a column a migration added, a column made nullable, a table renamed', async () => {
    const dataSource = t.app.get(DataSource);
    const rolledBack = new Error('rolled back');
    const before = differences(await databaseTables(dataSource.manager), entityTables(dataSource));
    let found: string[] = [];
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query(`ALTER TABLE merchants ADD COLUMN nickname text`);
        await manager.query(`ALTER TABLE stores ALTER COLUMN name DROP NOT NULL`);
        await manager.query(`ALTER TABLE platform_oauth_states RENAME TO strays`);
        found = differences(await databaseTables(manager), entityTables(dataSource));
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(found.filter((line) => !before.includes(line))).toEqual([
      'merchants.nickname: in the table, not in the entity',
      'platform_oauth_states: an entity without a table',
      'stores.name: nullable in the table, not in the entity',
      'strays: a table without an entity',
    ]);
  });
});
