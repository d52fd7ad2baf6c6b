import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readForm } from '../common/http/form-body.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { AccessRule } from '../auth/access.decorators.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { ANONYMOUS_COOKIE, CSRF_FIELD, csrfMatches, csrfToken, newToken, readToken, setTokenCookie } from './console-credentials.js';
import type { ConsoleIdentity, MerchantPrincipal } from '../auth/principal.js';

type ConsoleRule = Extract<AccessRule, { kind: 'console' }>;

/**
 * The console's credential: the session cookie instead of a key, and on every POST a form whose CSRF token derives
 * from the cookie (the session's, or before sign-in an anonymous one). A signed-in session acts as an unrestricted
 * admin of its merchant, so its stores resolve exactly as for keys.
 */
@Injectable()
export class ConsoleSessionAccess {
  constructor(private readonly consoleAccounts: ConsoleAccountsService) {}

  /** Reads the form of a POST, checks the session and the CSRF token; the signed-in merchant, or null before sign-in. */
  async admit(request: Request, response: Response, rule: ConsoleRule): Promise<MerchantPrincipal | null> {
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    if (unsafe) await readForm(request, response);
    let seed: string;
    let identity: ConsoleIdentity | null = null;
    if (rule.signedIn) {
      const session = await this.consoleAccounts.sessionOf(request);
      if (session === null) throw new ProblemError('unauthenticated', 'Sign in to the console');
      ({ identity, token: seed } = session);
    } else {
      const existing = readToken(request, ANONYMOUS_COOKIE);
      seed = existing ?? newToken();
      if (existing === null) setTokenCookie(response, ANONYMOUS_COOKIE, seed, this.consoleAccounts.secureCookies);
    }
    if (unsafe) {
      const body = request.body as Record<string, unknown>;
      if (!fromThisOrigin(request) || !csrfMatches(seed, body[CSRF_FIELD])) {
        throw new ProblemError('csrf_failed', 'This form has expired or did not come from the console; reload the page and try again');
      }
    }
    request.console = { identity, csrfToken: csrfToken(seed) };
    if (identity === null) return null;
    return { kind: 'merchant', keyId: null, merchantId: identity.merchantId, storeId: null, scopes: ['admin'] };
  }
}

/**
 * What the browser says of where a form comes from (`Sec-Fetch-Site`): this origin, or the user (`none`: typed, a
 * bookmark). Another site, or a sibling subdomain (`same-site`, another origin all the same), is refused whatever
 * token it carries. A client that does not send the header is judged by its token alone.
 */
function fromThisOrigin(request: Request): boolean {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
