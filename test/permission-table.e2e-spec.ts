import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule, describeRule } from '../src/auth/access.decorators.js';
import { useApp, type TestApp } from './support/app.js';

/**
 * Who can reach which endpoint. The table is committed beside this test: a change to any route's credential rule
 * shows up as a diff of it, to be reviewed as a permission change. Regenerate with UPDATE_PERMISSION_TABLE=1.
 */
const TABLE_FILE = fileURLToPath(new URL('./permission-table.txt', import.meta.url));

interface Route {
  route: string;
  rule: AccessRule | undefined;
}

function registeredRoutes(t: TestApp): Route[] {
  const routes: Route[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      const classRule = Reflect.getMetadata(ACCESS_RULE, controller) as AccessRule | undefined;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        const full = `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/');
        routes.push({
          route: `${RequestMethod[method]} ${full.replace(/:([a-z_]+)/g, '{$1}')}`,
          rule: (Reflect.getMetadata(ACCESS_RULE, handler) as AccessRule | undefined) ?? classRule,
        });
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

describe('permission table', () => {
  const t = useApp();

  it('finds every route declaring either @Public() or a credential rule', () => {
    const routes = registeredRoutes(t);
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((r) => r.rule === undefined).map((r) => r.route)).toEqual([]);
  });

  it('keeps public routes out of /v1', () => {
    const publicV1 = registeredRoutes(t).filter((r) => r.rule?.kind === 'public' && r.route.includes(' /v1/'));
    expect(publicV1).toEqual([]);
  });

  it('binds every route that names a store to that store, and only those', () => {
    for (const { route, rule } of registeredRoutes(t)) {
      const namesStore = route.includes('{store_id}');
      const bound = rule?.kind === 'merchant' && rule.store;
      expect({ route, bound }).toEqual({ route, bound: namesStore });
    }
  });

  it('matches the reviewed route → credential table', () => {
    const table = registeredRoutes(t)
      .map((r) => `${r.route.padEnd(48)} ${describeRule(r.rule)}`)
      .join('\n')
      .concat('\n');
    if (process.env.UPDATE_PERMISSION_TABLE === '1') writeFileSync(TABLE_FILE, table);
    expect(table).toEqual(readFileSync(TABLE_FILE, 'utf8'));
  });
});
