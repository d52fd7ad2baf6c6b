/**
 * Transactions that cannot be dropped (src/database/transactions.ts): a method that may run inside a transaction takes
 * its manager as a required first parameter, and no class hands out a manager of its own. A forgotten manager would
 * run its statement outside the caller's transaction, and on the embedded database (one connection) wait for ever.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SRC, sourceFiles } from '../support/source-files.js';

/** Each `EntityManager` parameter or getter that breaks the rule, as `file: the code`. */
function breaches(text: string, file: string): string[] {
  const found: string[] = [];
  const flag = (pattern: RegExp) => {
    for (const match of text.matchAll(pattern)) found.push(`${file}: ${match[0].replace(/\s+/g, ' ').trim()}`);
  };
  // a getter of a manager
  flag(/\bget\s+\w+\s*\(\s*\)\s*:\s*EntityManager\b/g);
  // an optional or defaulted manager
  flag(/\b\w+\s*\?\s*:\s*EntityManager\b/g);
  flag(/\b\w+\s*:\s*EntityManager\s*=/g);
  // a manager after another parameter
  flag(/\(\s*(?:readonly\s+)?\w+\s*:\s*[^()]*?,\s*\w+\s*:\s*EntityManager\b/g);
  return found;
}

describe('transactions that cannot be dropped', () => {
  it('every manager is a required first parameter, and no class hands one out', () => {
    const found = sourceFiles().flatMap((file) => breaches(readFileSync(join(SRC, file), 'utf8'), file));
    expect(found).toEqual([]);
  });

  it('finds each kind of breach', () => {
    const code = `
      get manager(): EntityManager { return this.dataSource.manager; }
      find(id: string, manager?: EntityManager) {}
      load(store: Store, manager: EntityManager = this.fallback) {}
      save(store: Store, manager: EntityManager) {}
      fine(manager: EntityManager, store: Store) {}`;
    expect(breaches(code, 'x.ts')).toHaveLength(5);
  });
});
