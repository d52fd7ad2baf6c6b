import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../src/auth/access.decorators.js';

/** One route the running app registered, with the access rule the global guard applies to it. */
export interface RegisteredRoute {
  /** GET, POST, PATCH, DELETE… */
  readonly method: string;
  /** The path with `{name}` placeholders, e.g. `/v1/stores/{store_id}/products/{id}`. */
  readonly path: string;
  /** `METHOD path`, as test/api/auth/permission-table.txt writes it. */
  readonly route: string;
  /** The path's placeholders, in order. */
  readonly params: readonly string[];
  readonly rule: AccessRule | undefined;
}

/**
 * Every route of every controller the app registered, read from the same metadata the router and the guard use
 * (so a route cannot be served without appearing here), sorted by `METHOD path`.
 */
export function registeredRoutes(app: INestApplication<unknown>): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
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
        const own = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        const full = `/${[base, own].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/');
        const path = full.replace(/:([a-z_]+)/g, '{$1}');
        routes.push({
          method: RequestMethod[method],
          path,
          route: `${RequestMethod[method]} ${path}`,
          params: [...path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1]),
          rule: (Reflect.getMetadata(ACCESS_RULE, handler) as AccessRule | undefined) ?? classRule,
        });
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

/** `path` with each `{name}` replaced by `values[name]` (URL-encoded); throws on a placeholder without a value. */
export function fillPath(path: string, values: Readonly<Record<string, string>>): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(value);
  });
}
