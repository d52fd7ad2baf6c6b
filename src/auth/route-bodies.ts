import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule, readsBody } from './access.decorators.js';

/**
 * The body of a request is read by the access guard, once the caller is known and allowed, and only on routes whose
 * rule reads one (`readsBody`): a handler that takes `@Body()` on a rule that reads none would always get `undefined`.
 * Checked once at start-up over every handler the app registered; the start fails, naming the handlers.
 */
export function assertBodiesRead(modules: ModulesContainer): void {
  const unread: string[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (controller) unread.push(...handlersWithUnreadBodies(controller));
    }
  }
  if (unread.length) {
    throw new Error(`${unread.join(', ')} take @Body() but their access rule reads no body: give them a rule that does`);
  }
}

/** The handlers of a controller (`Controller.method`) that take `@Body()` under a rule that reads no body. */
export function handlersWithUnreadBodies(controller: new (...args: never[]) => object): string[] {
  const classRule = Reflect.getMetadata(ACCESS_RULE, controller) as AccessRule | undefined;
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).flatMap((name) => {
    const handler = prototype[name];
    if (name === 'constructor' || typeof handler !== 'function') return [];
    const rule = (Reflect.getMetadata(ACCESS_RULE, handler) as AccessRule | undefined) ?? classRule;
    const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, unknown>;
    const takesBody = Object.keys(params).some((key) => Number(key.split(':')[0]) === RouteParamtypes.BODY);
    return takesBody && rule !== undefined && !readsBody(rule) ? [`${controller.name}.${name}`] : [];
  });
}
