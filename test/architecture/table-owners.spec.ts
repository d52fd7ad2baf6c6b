/** Every table has one owner (src/database/table-owners.ts): another module's SQL names it only where declared. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SRC, sourceFiles } from '../support/source-files.js';

const OWNERS: Readonly<Record<string, string>> = TABLE_OWNERS;
import { CROSSINGS, TABLE_OWNERS } from '../../src/database/table-owners.js';

/** The tables a file's SQL names after FROM, JOIN, INTO or UPDATE, each once. */
function tablesNamed(text: string): string[] {
  return [...new Set([...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)\b/g)].map((m) => m[1]).filter((t) => t in OWNERS))];
}

/** `file: table` for each table a file names that its module does not own. */
function crossings(files: readonly string[], read: (file: string) => string): string[] {
  return files.flatMap((file) => {
    const module = file.split('/')[0];
    return tablesNamed(read(file))
      .filter((table) => OWNERS[table] !== module)
      .map((table) => `${file}: ${table}`);
  });
}

describe('the owners of tables', () => {
  const found = crossings(sourceFiles(), (file) => readFileSync(join(SRC, file), 'utf8'));
  const declared = CROSSINGS.flatMap(({ file, tables }) => tables.map((table) => `${file}: ${table}`));

  it("names another module's table only in the statements declared", () => {
    expect(found.filter((crossing) => !declared.includes(crossing))).toEqual([]);
  });

  it('declares nothing that is no longer there', () => {
    expect(declared.filter((crossing) => !found.includes(crossing))).toEqual([]);
  });

  it('finds a table named outside its owner', () => {
    const sql = 'SELECT p.title FROM products p JOIN sessions s ON s.product_id = p.id';
    expect(crossings(['metrics/metrics.repository.ts'], () => sql)).toEqual([
      'metrics/metrics.repository.ts: products',
      'metrics/metrics.repository.ts: sessions',
    ]);
  });
});
