import { type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import { isId } from '../common/http/ids.js';
import { ProblemError } from '../common/problems/problem.error.js';
import { Store } from '../stores/store.entity.js';
import { readForm } from '../common/http/form-body.js';
import { ACCESS_RULE, type AccessRule, STORE_PARAM } from './access.decorators.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import {
  ANONYMOUS_COOKIE,
  CSRF_FIELD,
  csrfMatches,
  csrfToken,
  newToken,
  readToken,
  SESSION_COOKIE,
  setTokenCookie,
} from './console-credentials.js';
import { CREDENTIAL_PARAMS } from './key-secret.js';
import type { ConsoleIdentity, MerchantPrincipal, Principal } from './principal.js';

/**
 * The global guard: every route is denied unless it declares a rule (see access.decorators.ts). It authenticates
 * the bearer key, checks the rule's credential level and scope, and, for routes that name a store, resolves that
 * store for the caller — the one place where tenancy is enforced.
 */
@Injectable()
export class AccessGuard extends AuthGuard('bearer') {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly reflector: Reflector,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly consoleAccounts: ConsoleAccountsService,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    refuseCredentialsOutsideHeader(request);

    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (rule === undefined) {
      this.logger.error(`route ${request.method} ${request.route?.path ?? ''} declares no access rule; denied`);
      throw new ProblemError('insufficient_scope', 'This route is not open to any key');
    }
    if (rule.kind === 'public') return true;
    if (rule.kind === 'console') {
      await this.admitToConsole(request, context.switchToHttp().getResponse<Response>(), rule);
      return true;
    }

    await super.canActivate(context);
    const principal = request.user as Principal;

    if (rule.kind === 'operator') {
      if (principal.kind !== 'operator') {
        throw new ProblemError('insufficient_scope', 'Only the operator bootstrap key may do this');
      }
      return true;
    }
    if (principal.kind !== 'merchant') {
      throw new ProblemError('insufficient_scope', 'The operator bootstrap key may only create merchants');
    }
    if (!principal.scopes.includes(rule.scope) && !principal.scopes.includes('admin')) {
      throw new ProblemError('insufficient_scope', `This route needs a key with the ${rule.scope} scope`);
    }
    if (rule.unrestricted && principal.storeId !== null) {
      throw new ProblemError('insufficient_scope', 'This route needs an unrestricted admin key, not a store-bound one');
    }
    if (rule.store) request.store = await this.resolveStore(principal, request.params[STORE_PARAM]);
    return true;
  }

  /**
   * Console pages: the session cookie instead of a key, and on every POST a form whose CSRF token derives from the
   * cookie (the session's, or before sign-in an anonymous one). A signed-in session acts as an unrestricted admin of
   * its merchant, so stores resolve exactly as for keys.
   */
  private async admitToConsole(request: Request, response: Response, rule: ConsoleRule): Promise<void> {
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    if (unsafe) await readForm(request, response);
    let seed: string;
    let identity: ConsoleIdentity | null = null;
    if (rule.signedIn) {
      const token = readToken(request, SESSION_COOKIE);
      identity = token === null ? null : await this.consoleAccounts.authenticate(token);
      if (token === null || identity === null) throw new ProblemError('unauthenticated', 'Sign in to the console');
      seed = token;
      request.user = { kind: 'merchant', keyId: null, merchantId: identity.merchantId, storeId: null, scopes: ['admin'] } satisfies MerchantPrincipal;
    } else {
      const existing = readToken(request, ANONYMOUS_COOKIE);
      seed = existing ?? newToken();
      if (existing === null) setTokenCookie(response, ANONYMOUS_COOKIE, seed, this.consoleAccounts.secureCookies);
    }
    if (unsafe) {
      const body = request.body as Record<string, unknown>;
      if (request.headers['sec-fetch-site'] === 'cross-site' || !csrfMatches(seed, body[CSRF_FIELD])) {
        throw new ProblemError('csrf_failed', 'This form has expired or did not come from the console; reload the page and try again');
      }
    }
    request.console = { identity, csrfToken: csrfToken(seed) };
    if (rule.store) request.store = await this.resolveStore(request.user as MerchantPrincipal, request.params[STORE_PARAM]);
  }

  /** Passport's verdict: anything but a principal is one and the same 401, whatever the reason. */
  override handleRequest<TUser>(error: unknown, principal: TUser): TUser {
    if (error) throw error;
    if (!principal) {
      throw new ProblemError('unauthenticated', 'A valid API key is required: Authorization: Bearer <API_KEY>', undefined, {
        'WWW-Authenticate': 'Bearer realm="size-fit"',
      });
    }
    return principal;
  }

  /**
   * A store-bound key may name only its own store: any other id is 403, whether or not that store exists, so a key
   * cannot probe for stores. An unrestricted key sees its merchant's stores; anyone else's are simply not found.
   */
  private async resolveStore(principal: MerchantPrincipal, storeId: unknown): Promise<Store> {
    if (principal.storeId !== null && storeId !== principal.storeId) {
      throw new ProblemError('store_forbidden', 'This key is bound to another store');
    }
    if (principal.boundStore) return principal.boundStore;
    const store = isId(storeId)
      ? await this.dataSource.getRepository(Store).findOneBy({ id: storeId, merchantId: principal.merchantId })
      : null;
    if (!store) throw ProblemError.notFound('store');
    return store;
  }
}

type ConsoleRule = Extract<AccessRule, { kind: 'console' }>;

function looksLikeSecret(value: unknown): boolean {
  return (Array.isArray(value) ? value : [value]).some((item) => typeof item === 'string' && /sf[ko]_/.test(item));
}

function refuseCredentialsOutsideHeader(request: Request): void {
  const query = request.query as Record<string, unknown>;
  const body = request.body as Record<string, unknown> | undefined;
  const misplaced =
    [...CREDENTIAL_PARAMS].find((name) => query[name] !== undefined) ??
    Object.keys(query).find((name) => looksLikeSecret(query[name])) ??
    (typeof body === 'object' && body !== null && 'access_token' in body ? 'access_token' : undefined);
  if (misplaced !== undefined) {
    throw ProblemError.field(
      misplaced,
      'credentials_not_allowed_here',
      'API keys are accepted only in the Authorization header, never in the URL or the body',
    );
  }
}
