/**
 * Every table has one owner (src/database/table-owners.ts): another module's SQL reads it only through a read model
 * the owner declares for it, and writes it only through one that names it a writer.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { READ_MODELS, TABLE_OWNERS } from '../../src/database/table-owners.js';
import { SRC, sourceFiles } from '../support/source-files.js';

const OWNERS: Readonly<Record<string, string>> = TABLE_OWNERS;

/** The relations a file's SQL names, each once: `write` after INTO or UPDATE, `read` after FROM, JOIN or USING. */
function relationsNamed(text: string): { name: string; write: boolean }[] {
  const named = [...text.matchAll(/\b(FROM|JOIN|USING|INTO|UPDATE)\s+([a-z_]+)\b/g)]
    .map((m) => ({ name: m[2], write: m[1] === 'INTO' || m[1] === 'UPDATE' }))
    .filter(({ name }) => name in OWNERS || name in READ_MODELS);
  return named.filter((one, i) => named.findIndex((other) => other.name === one.name && other.write === one.write) === i);
}

/** `file: relation (read|write)` for each table or read model a file names that its module may not. */
function trespasses(files: readonly string[], read: (file: string) => string): string[] {
  return files.flatMap((file) => {
    const module = file.split('/')[0];
    return relationsNamed(read(file))
      .filter(({ name, write }) => {
        if (name in OWNERS) return OWNERS[name] !== module;
        const model = READ_MODELS[name];
        return model.owner !== module && !(write ? (model.writers ?? []) : model.readers).includes(module);
      })
      .map(({ name, write }) => `${file}: ${name} (${write ? 'write' : 'read'})`);
  });
}

describe('the owners of tables', () => {
  const files = sourceFiles();
  const read = (file: string) => readFileSync(join(SRC, file), 'utf8');

  it("names another module's tables only through the read models it is given", () => {
    expect(trespasses(files, read)).toEqual([]);
  });

  it('gives no module a read model it does not use', () => {
    const used = new Set(
      files.flatMap((file) => relationsNamed(read(file)).map(({ name, write }) => `${file.split('/')[0]}: ${name} ${write}`)),
    );
    const unused = Object.entries(READ_MODELS).flatMap(([name, { readers, writers = [] }]) => [
      ...readers.filter((module) => !used.has(`${module}: ${name} false`)).map((module) => `${module} reads ${name}`),
      ...writers.filter((module) => !used.has(`${module}: ${name} true`)).map((module) => `${module} writes ${name}`),
    ]);
    expect(unused).toEqual([]);
  });

  it("finds another module's table, and a read model named by a module it does not list", () => {
    const sql = `SELECT p.title FROM products p JOIN sessions s ON s.product_id = p.id
                   JOIN catalog_variants v ON v.product_id = p.id JOIN fit_sessions f ON f.id = s.id`;
    expect(trespasses(['metrics/metrics.repository.ts'], () => sql)).toEqual([
      'metrics/metrics.repository.ts: products (read)',
      'metrics/metrics.repository.ts: sessions (read)',
      'metrics/metrics.repository.ts: catalog_variants (read)',
    ]);
  });

  it('finds a write through a read model that does not name the writer', () => {
    const sql = `UPDATE fit_sessions AS s SET outcome = NULL; UPDATE fit_session_purchases SET first_purchased_at = now()`;
    expect(trespasses(['events/line-summaries.repository.ts', 'learning/evidence.repository.ts'], () => sql)).toEqual([
      'events/line-summaries.repository.ts: fit_sessions (write)',
      'learning/evidence.repository.ts: fit_sessions (write)',
      'learning/evidence.repository.ts: fit_session_purchases (write)',
    ]);
  });
});
