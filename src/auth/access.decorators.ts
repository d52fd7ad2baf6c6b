import { applyDecorators, SetMetadata, type Type, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiForbiddenResponse, ApiNotFoundResponse, ApiParam, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { IDEMPOTENT_EXTENSION } from '../common/openapi/openapi.js';
import { IdempotentCreates } from '../idempotency/idempotent-creates.interceptor.js';
import { IDEMPOTENT_ROUTE, type IdempotentRoute } from '../idempotency/idempotent-routes.js';
import type { Scope } from './scopes.js';

export const ACCESS_RULE = 'size-fit:access-rule';
export const STORE_PARAM = 'store_id';

/**
 * Who may call a route. Every route declares exactly one rule; the global guard refuses routes that declare none.
 * - `public`: no key (health, docs, problem pages).
 * - `operator`: only the operator bootstrap key.
 * - `console`: a seller-console page (cookie session, CSRF token on every POST). `signedIn` pages need a session,
 *   which acts as an unrestricted admin of its merchant; with `store`, as for keys, the path's store must be one of
 *   the merchant's. Pages without `signedIn` (sign-in, sign-up, assets) still check CSRF tokens.
 * - `merchant`: a merchant key holding `scope` (or `admin`). With `store`, the route names a store in its
 *   `store_id` path parameter and the key must be unrestricted or bound to that store. With `unrestricted`, a
 *   store-bound key is refused whatever its scopes.
 * - `platform`: a notification from the e-commerce platform, signed over its raw body with the app's secret
 *   (`X-Shop-Hmac-Sha256`); the body is read as bytes, checked, and only then handed to the route, unparsed.
 */
export type AccessRule =
  | { readonly kind: 'public' }
  | { readonly kind: 'operator' }
  | { readonly kind: 'merchant'; readonly scopes: readonly Scope[]; readonly store: boolean; readonly unrestricted: boolean }
  | { readonly kind: 'console'; readonly signedIn: boolean; readonly store: boolean }
  | { readonly kind: 'platform' };

/** The route needs no key. Only for health, documentation and problem pages. */
/** Whether the access guard reads a request's body under the rule: always once the caller is admitted, never on a public route. */
export const readsBody = (rule: AccessRule): rule is Exclude<AccessRule, { kind: 'public' }> => rule.kind !== 'public';

export const Public = () => applyDecorators(SetMetadata(ACCESS_RULE, { kind: 'public' } satisfies AccessRule));

/** A notification from the e-commerce platform; see AccessRule. Outside the OpenAPI document: the platform calls it. */
export const PlatformNotification = () => SetMetadata(ACCESS_RULE, { kind: 'platform' } satisfies AccessRule);

/** A seller-console page; see AccessRule. Excluded from the OpenAPI document with the rest of the console. */
export const ConsolePage = (options: { signedIn: boolean; store?: boolean }) =>
  SetMetadata(ACCESS_RULE, { kind: 'console', signedIn: options.signedIn, store: options.store ?? false } satisfies AccessRule);

/** The route takes only the operator bootstrap key. */
export const OperatorOnly = () =>
  applyDecorators(
    SetMetadata(ACCESS_RULE, { kind: 'operator' } satisfies AccessRule),
    ApiBearerAuth('operator'),
    ApiExtension('x-credential', 'operator bootstrap key'),
    ApiUnauthorizedResponse({ description: 'No key, or not the operator bootstrap key (`unauthenticated`).' }),
    ApiForbiddenResponse({ description: 'A merchant key (`insufficient_scope`).' }),
  );

/**
 * The route takes a merchant key with `scope`, or with one of several (an admin key always qualifies), optionally bound
 * to the path's store.
 */
export function RequireScope(scope: Scope | readonly Scope[], options: { store?: boolean; unrestricted?: boolean } = {}) {
  const rule: AccessRule = {
    kind: 'merchant',
    scopes: typeof scope === 'string' ? [scope] : scope,
    store: options.store ?? false,
    unrestricted: options.unrestricted ?? false,
  };
  return applyDecorators(
    SetMetadata(ACCESS_RULE, rule),
    ApiBearerAuth('api_key'),
    ApiExtension('x-credential', describeRule(rule)),
    ApiUnauthorizedResponse({ description: 'No key, or an unknown, revoked or expired key (`unauthenticated`).' }),
    ApiForbiddenResponse({
      description: rule.store
        ? 'The key lacks the scope (`insufficient_scope`) or is bound to another store (`store_forbidden`).'
        : 'The key lacks the scope or credential level (`insufficient_scope`).',
    }),
    // The guard binds the store (handlers take it with @CurrentStore()), so the parameter is declared here, once.
    ...(rule.store
      ? [
          ApiParam({
            name: STORE_PARAM,
            type: String,
            format: 'uuid',
            description: 'A store of the key’s merchant; a store-bound key may name only its own.',
          }),
          ApiNotFoundResponse({ description: 'No such store of this merchant (`not_found`).' }),
        ]
      : []),
  );
}

/** One line per rule, used in the OpenAPI document and in the reviewed permission table. */
export function describeRule(rule: AccessRule | undefined): string {
  if (rule === undefined) return 'UNDECLARED';
  switch (rule.kind) {
    case 'public':
      return 'public';
    case 'operator':
      return 'operator bootstrap key';
    case 'platform':
      return 'platform signature over the body';
    case 'console':
      return !rule.signedIn ? 'console, signed in or not' : rule.store ? 'console session; store of its merchant' : 'console session';
    case 'merchant': {
      const scope = rule.scopes.includes('admin') ? 'admin' : `${rule.scopes.join(' or ')} or admin`;
      const binding = rule.unrestricted ? 'unrestricted key' : rule.store ? 'key of that store or unrestricted' : 'any store binding';
      return `merchant key: ${scope}; ${binding}`;
    }
  }
}

/**
 * A `POST` that creates or moves a resource on (a session's answers and decision): it honours an `Idempotency-Key`
 * header, so a client may retry it after a timeout and get the first answer instead of a second resource or a
 * conflict; the OpenAPI document says so (common/openapi/openapi.ts). `route`, a provider of the route's module: the
 * person its request may name, and how a replay shows the resource as it is now (`IdempotentRoute`).
 */
export const Idempotent = (route?: Type<IdempotentRoute>) =>
  applyDecorators(
    UseInterceptors(IdempotentCreates),
    ApiExtension(IDEMPOTENT_EXTENSION, true),
    ...(route ? [SetMetadata(IDEMPOTENT_ROUTE, route)] : []),
  );
