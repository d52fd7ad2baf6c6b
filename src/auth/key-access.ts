import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ProblemError } from '../common/problems/problem-error.js';
import type { AccessRule } from './access.decorators.js';
import { unauthenticated } from './bearer-token.js';
import { BearerStrategy } from './bearer.strategy.js';
import type { MerchantPrincipal, Principal } from './principal.js';

type KeyRule = Extract<AccessRule, { kind: 'operator' | 'merchant' }>;

/**
 * The API's credential: the bearer key, authenticated by passport's bearer strategy (bearer.strategy.ts) on every
 * request, then held to the rule's level and scope. Its store, if the rule names one, is resolved after.
 */
@Injectable()
export class KeyAccess {
  constructor(private readonly bearer: BearerStrategy) {}

  /** The caller, once it may use a route with this rule: the operator, or a merchant key. */
  async admit(context: ExecutionContext, rule: KeyRule): Promise<Principal> {
    const request = context.switchToHttp().getRequest<Request>();
    const principal = await authenticate(this.bearer, request);
    request.user = principal;
    if (rule.kind === 'operator') {
      if (principal.kind !== 'operator') throw new ProblemError('insufficient_scope', 'Only the operator bootstrap key may do this');
      return principal;
    }
    if (principal.kind !== 'merchant') throw new ProblemError('insufficient_scope', 'The operator bootstrap key may only create merchants');
    assertAllowed(principal, rule);
    return principal;
  }
}

/**
 * The strategy's verdict on the request, as `passport.authenticate` reaches it for a single strategy (an instance
 * deriving from the strategy, given `success`, `fail` and `error`), without the middleware, request helpers and option
 * objects passport builds per request for sessions and redirects, which a bearer API has none of. Anything but a
 * principal is one and the same 401, whatever the reason.
 */
function authenticate(strategy: BearerStrategy, request: Request): Promise<Principal> {
  return new Promise((resolve, reject) => {
    const attempt = Object.create(strategy) as BearerStrategy & StrategyOutcomes;
    attempt.success = resolve;
    attempt.fail = attempt.pass = attempt.redirect = () => reject(unauthenticated());
    attempt.error = reject;
    attempt.authenticate(request, {});
  });
}

/** What passport-strategy's `authenticate` reports through (passport assigns them per request). */
interface StrategyOutcomes {
  success(principal: Principal): void;
  fail(): void;
  pass(): void;
  redirect(): void;
  error(error: unknown): void;
}

function assertAllowed(principal: MerchantPrincipal, rule: Extract<KeyRule, { kind: 'merchant' }>): void {
  if (!rule.scopes.some((scope) => principal.scopes.includes(scope)) && !principal.scopes.includes('admin')) {
    throw new ProblemError('insufficient_scope', `This route needs a key with the ${rule.scopes.join(' or ')} scope`);
  }
  if (rule.unrestricted && principal.storeId !== null) {
    throw new ProblemError('insufficient_scope', 'This route needs an unrestricted admin key, not a store-bound one');
  }
}
