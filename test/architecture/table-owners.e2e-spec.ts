/** Every table of the migrated database has an owner in src/database/table-owners.ts, and every owned table exists. */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { TABLE_OWNERS } from '../../src/database/table-owners.js';
import { useApp } from '../support/app.js';

describe('the owners of tables, against the database', () => {
  const t = useApp();

  it('name every table the migrations create, and no other', async () => {
    const rows = await t.app
      .get(DataSource)
      .query<{ name: string }[]>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      );
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(TABLE_OWNERS).sort());
  });
});
