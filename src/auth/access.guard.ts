import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { LARGE_BODY, readJson } from '../common/http/json-body.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { ACCESS_RULE, type AccessRule, readsBody, STORE_PARAM } from './access.decorators.js';
import { ConsoleSessionAccess } from '../console-accounts/console-session-access.js';
import { CREDENTIAL_PARAMS } from '../common/crypto/key-secret.js';
import { KeyAccess } from './key-access.js';
import { PlatformNoticeAccess } from './platform-notice-access.js';
import type { MerchantPrincipal } from './principal.js';
import { StoreAccess } from './store-access.js';

/**
 * The global guard: every route is denied unless it declares a rule (see access.decorators.ts). It admits the
 * caller by the rule's credential — a bearer key (key-access.ts), a console session (console-session-access.ts) or the
 * platform's signature over a notification (platform-notice-access.ts) —
 * resolves the store a route names for that caller (store-access.ts), and only then reads the body.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyAccess,
    private readonly consoleSessions: ConsoleSessionAccess,
    private readonly stores: StoreAccess,
    private readonly platformNotices: PlatformNoticeAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    refuseCredentialsOutsideHeader(request);
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    if (rule === undefined) {
      this.logger.error(`route ${request.method} ${request.route?.path ?? ''} declares no access rule; denied`);
      throw new ProblemError('insufficient_scope', 'This route is not open to any key');
    }
    if (!readsBody(rule)) return true; // health, problem pages, assets: public, and none reads a body (route-bodies.ts)
    const response = context.switchToHttp().getResponse<Response>();

    if (rule.kind === 'console') {
      const principal = await this.consoleSessions.admit(request, response, rule);
      if (principal !== null) request.user = principal;
      if (rule.store && principal !== null) request.store = await this.stores.resolve(principal, request.params[STORE_PARAM]);
      return true;
    }

    if (rule.kind === 'platform') {
      await this.platformNotices.admit(request, response);
      return true;
    }

    const principal = await this.keys.admit(context, rule);
    if (rule.kind === 'merchant' && rule.store)
      request.store = await this.stores.resolve(principal as MerchantPrincipal, request.params[STORE_PARAM]);
    // Only now, the caller known and allowed: the body.
    await readJson(request, response, this.reflector.get<string | undefined>(LARGE_BODY, context.getHandler()));
    refuseCredentialsInBody(request);
    return true;
  }
}

function looksLikeSecret(value: unknown): boolean {
  return (Array.isArray(value) ? value : [value]).some((item) => typeof item === 'string' && /sf[ko]_/.test(item));
}

function refuseCredentialsOutsideHeader(request: Request): void {
  const query = request.query as Record<string, unknown>;
  const misplaced =
    [...CREDENTIAL_PARAMS].find((name) => query[name] !== undefined) ?? Object.keys(query).find((name) => looksLikeSecret(query[name]));
  if (misplaced !== undefined) throw credentialsNotAllowedHere(misplaced);
}

/** Passport would read a key from `access_token` in the body: refused, like a key in the URL. */
function refuseCredentialsInBody(request: Request): void {
  const body = request.body as unknown;
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'access_token')) throw credentialsNotAllowedHere('access_token');
}

const credentialsNotAllowedHere = (field: string): ProblemError =>
  ProblemError.field(
    field,
    'credentials_not_allowed_here',
    'API keys are accepted only in the Authorization header, never in the URL or the body',
  );
