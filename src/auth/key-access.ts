import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { ProblemError } from '../common/problems/problem-error.js';
import type { AccessRule } from './access.decorators.js';
import { unauthenticated } from './bearer-token.js';
import type { MerchantPrincipal, Principal } from './principal.js';

type KeyRule = Extract<AccessRule, { kind: 'operator' | 'merchant' }>;

/**
 * The API's credential: the bearer key, authenticated by passport's bearer strategy (bearer.strategy.ts) on every
 * request, then held to the rule's level and scope. Its store, if the rule names one, is resolved after.
 */
@Injectable()
export class KeyAccess extends AuthGuard('bearer') {
  /** The caller, once it may use a route with this rule: the operator, or a merchant key. */
  async admit(context: ExecutionContext, rule: KeyRule): Promise<Principal> {
    await super.canActivate(context);
    const principal = context.switchToHttp().getRequest<Request>().user as Principal;
    if (rule.kind === 'operator') {
      if (principal.kind !== 'operator') throw new ProblemError('insufficient_scope', 'Only the operator bootstrap key may do this');
      return principal;
    }
    if (principal.kind !== 'merchant') throw new ProblemError('insufficient_scope', 'The operator bootstrap key may only create merchants');
    assertAllowed(principal, rule);
    return principal;
  }

  /** Passport's verdict: anything but a principal is one and the same 401, whatever the reason. */
  override handleRequest<TUser>(error: unknown, principal: TUser): TUser {
    if (error) throw error;
    if (!principal) throw unauthenticated();
    return principal;
  }
}

function assertAllowed(principal: MerchantPrincipal, rule: Extract<KeyRule, { kind: 'merchant' }>): void {
  if (!rule.scopes.some((scope) => principal.scopes.includes(scope)) && !principal.scopes.includes('admin')) {
    throw new ProblemError('insufficient_scope', `This route needs a key with the ${rule.scopes.join(' or ')} scope`);
  }
  if (rule.unrestricted && principal.storeId !== null) {
    throw new ProblemError('insufficient_scope', 'This route needs an unrestricted admin key, not a store-bound one');
  }
}
