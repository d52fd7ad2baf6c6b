import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { describeRule } from '../../../src/auth/access.decorators.js';
import { useApp } from '../../support/app.js';
import { registeredRoutes } from '../../support/route-table.js';

/**
 * Who can reach which endpoint. The table is committed beside this test: a change to any route's credential rule
 * shows up as a diff of it, to be reviewed as a permission change. Regenerate with UPDATE_PERMISSION_TABLE=1.
 */
const TABLE_FILE = fileURLToPath(new URL('./permission-table.txt', import.meta.url));

describe('permission table', () => {
  const t = useApp();

  it('finds every route declaring either @Public() or a credential rule', () => {
    const routes = registeredRoutes(t.app);
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((r) => r.rule === undefined).map((r) => r.route)).toEqual([]);
  });

  it('keeps public routes out of /v1', () => {
    const publicV1 = registeredRoutes(t.app).filter((r) => r.rule?.kind === 'public' && r.route.includes(' /v1/'));
    expect(publicV1).toEqual([]);
  });

  it('binds every route that names a store to that store, and only those', () => {
    for (const { route, rule } of registeredRoutes(t.app)) {
      const namesStore = route.includes('{store_id}');
      const bound = (rule?.kind === 'merchant' || rule?.kind === 'console') && rule.store;
      expect({ route, bound }).toEqual({ route, bound: namesStore });
    }
  });

  it('matches the reviewed route → credential table', () => {
    const table = registeredRoutes(t.app)
      .map((r) => `${r.route.padEnd(48)} ${describeRule(r.rule)}`)
      .join('\n')
      .concat('\n');
    if (process.env.UPDATE_PERMISSION_TABLE === '1') writeFileSync(TABLE_FILE, table);
    expect(table).toEqual(readFileSync(TABLE_FILE, 'utf8'));
  });
});
