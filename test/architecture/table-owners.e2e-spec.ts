/**
 * Every table and view of the migrated database has an owner in src/database/table-owners.ts, every owned one exists,
 * and a read model reads only tables of its owner.
 */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { READ_MODELS, TABLE_OWNERS } from '../../src/database/table-owners.js';
import { useApp } from '../support/app.js';

const OWNERS: Readonly<Record<string, string>> = TABLE_OWNERS;

describe('the owners of tables, against the database', () => {
  const t = useApp();
  const relations = (type: string) =>
    t.app
      .get(DataSource)
      .query<{ name: string }[]>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = $1`,
        [type],
      )
      .then((rows) => rows.map((row) => row.name).sort());

  it('name every table the migrations create, and no other', async () => {
    expect(await relations('BASE TABLE')).toEqual(Object.keys(TABLE_OWNERS).sort());
  });

  it('name every view the migrations create as a read model, and no other', async () => {
    expect(await relations('VIEW')).toEqual(Object.keys(READ_MODELS).sort());
  });

  it('keep a column a read model exposes from being dropped or retyped, until its view is recreated', async () => {
    const dataSource = t.app.get(DataSource);
    for (const change of [
      'ALTER TABLE products DROP COLUMN product_type_id',
      'ALTER TABLE sessions ALTER COLUMN recommendation TYPE text',
    ]) {
      await expect(dataSource.transaction((manager) => manager.query(change))).rejects.toMatchObject({
        driverError: expect.objectContaining({ code: expect.stringMatching(/^(2BP01|0A000)$/) }),
      });
    }
  });

  it('let a read model read only tables of its owner', async () => {
    const rows = await t.app.get(DataSource).query<{ view: string; table: string }[]>(
      `SELECT view_name AS view, table_name AS table FROM information_schema.view_table_usage
          WHERE view_schema = current_schema() ORDER BY view_name, table_name`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(Object.keys(READ_MODELS).length);
    expect(rows.filter(({ view, table }) => OWNERS[table] !== READ_MODELS[view]?.owner)).toEqual([]);
  });
});
