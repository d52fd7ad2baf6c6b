import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Scope } from './scopes.js';
import type { Store } from '../stores/store.entity.js';

/** A signed-in console user, as the access guard establishes it. */
export interface ConsoleIdentity {
  readonly sessionId: string;
  readonly accountId: string;
  readonly merchantId: string;
  readonly email: string;
}

/** What the guard establishes for a console page: who is signed in (if anyone) and the token its forms carry. */
export interface ConsoleRequest {
  readonly identity: ConsoleIdentity | null;
  readonly csrfToken: string;
}

/** Who is calling, as established by the bearer guard. */
export type Principal = OperatorPrincipal | MerchantPrincipal;

interface OperatorPrincipal {
  readonly kind: 'operator';
}

export interface MerchantPrincipal {
  readonly kind: 'merchant';
  /** The key calling; `null` for a console session, which acts as an unrestricted admin of its merchant. */
  readonly keyId: string | null;
  readonly merchantId: string;
  /** `null`: the key is unrestricted (merchant-wide). */
  readonly storeId: string | null;
  readonly scopes: readonly Scope[];
  /** The store of a store-bound key, read with the key (so the guard need not read it again). */
  readonly boundStore?: Store | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the guard on routes that name a store the caller may use. */
    store?: Store;
    /** Set by the guard on console routes. */
    console?: ConsoleRequest;
  }
}

/** The authenticated merchant key. Throws if the route was not guarded by a merchant rule (a programming error). */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): MerchantPrincipal => {
  const principal = context.switchToHttp().getRequest<Request>().user as Principal | undefined;
  if (principal?.kind !== 'merchant') throw new Error('CurrentPrincipal used on a route without a merchant rule');
  return principal;
});

/** The store named by the path, already checked against the caller's merchant and store binding. */
export const CurrentStore = createParamDecorator((_: unknown, context: ExecutionContext): Store => {
  const store = context.switchToHttp().getRequest<Request>().store;
  if (!store) throw new Error('CurrentStore used on a route without a store rule');
  return store;
});
