import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';

/** One query parameter a route reads, as its handler declares it. */
export interface QueryParameter {
  readonly name: string;
  /** Converted to a number before validation, or validated as one. */
  readonly numeric: boolean;
  /** The `@Min` / `@Max` bounds, when declared. */
  readonly min?: number;
  readonly max?: number;
}

const NUMERIC_RULES = new Set(['isInt', 'isNumber', 'min', 'max', 'isPositive', 'isNegative', 'isDivisibleBy']);

/**
 * Routes that read their query string raw rather than through `@Query`, with the names they read: the platform's
 * signed callback (its signature covers exactly the bytes sent).
 */
const RAW_QUERY_ROUTES: Readonly<Record<string, readonly string[]>> = {
  'GET /console/platform/callback': ['code', 'hmac', 'shop', 'state', 'timestamp'],
};

/**
 * The query parameters of every route the app registered, keyed `METHOD path` as in test/support/route-table.ts:
 * the names of `@Query('name')` arguments, and every property of a `@Query()` DTO, read from the same validation
 * metadata the validation pipe applies. A whole-query argument without a DTO class fails loudly, so a new
 * parameter cannot go unseen.
 */
export function queryParameters(app: INestApplication<unknown>): Map<string, QueryParameter[]> {
  const byRoute = new Map<string, QueryParameter[]>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const own = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        const path = `/${[base, own].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/').replace(/:([a-z_]+)/g, '{$1}');
        const route = `${RequestMethod[method]} ${path}`;
        const raw = (RAW_QUERY_ROUTES[route] ?? []).map((param) => ({ name: param, numeric: false }));
        byRoute.set(route, [...raw, ...handlerQuery(controller, name)]);
      }
    }
  }
  return byRoute;
}

function handlerQuery(controller: new (...args: never[]) => object, handler: string): QueryParameter[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler) ?? []) as unknown[];
  return Object.entries(args)
    .filter(([key]) => Number(key.split(':')[0]) === RouteParamtypes.QUERY)
    .flatMap(([, arg]): QueryParameter[] => {
      if (typeof arg.data === 'string') return [{ name: arg.data, numeric: false }];
      const dto = types[arg.index];
      if (typeof dto !== 'function' || dto === Object)
        throw new Error(`${controller.name}.${handler} reads the whole query without a DTO class`);
      return dtoFields(dto as new () => object);
    });
}

function dtoFields(dto: new () => object): QueryParameter[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const names = [...new Set(rules.map((rule) => rule.propertyName))];
  return names.map((name) => {
    const own = rules.filter((rule) => rule.propertyName === name);
    const bound = (rule: string) => own.find((r) => r.name === rule)?.constraints[0] as number | undefined;
    // as the validation pipe converts it
    const convertsToNumber = (plainToInstance(dto, { [name]: '7' }) as Record<string, unknown>)[name] === 7;
    const numeric = convertsToNumber || own.some((rule) => rule.name !== undefined && NUMERIC_RULES.has(rule.name));
    return { name, numeric, min: bound('min'), max: bound('max') };
  });
}
