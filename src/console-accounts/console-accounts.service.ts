import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { EntityManager } from 'typeorm';
import { isId, newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { RateLimitStore } from '../common/http/rate-limit-store.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { CreatedApiKeyResponse } from '../api-keys/dto/api-key.response.js';
import type { CreateApiKeyRequest } from '../api-keys/dto/create-api-key.request.js';
import { ConsoleAccountsRepository } from './console-accounts.repository.js';
import { ConsoleAccountResponse } from './dto/console-account.response.js';
import { newToken, readToken, SESSION_COOKIE } from './console-credentials.js';
import { digestSecret } from '../common/crypto/key-secret.js';
import { LoginThrottle } from './login-throttle.js';
import type { ConsoleIdentity, MerchantPrincipal } from '../auth/principal.js';
import { dummyPasswordHash, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordLength, verifyPassword } from './passwords.js';
import { Transactions } from '../database/transactions.js';

const EMAIL_MAX_LENGTH = 254;
/** An email names accounts in at most a few merchants; each one costs a password check at sign-in. */
const ACCOUNTS_PER_EMAIL_CHECKED = 5;

interface SignUp {
  readonly adminKey: string;
  readonly email: string;
  readonly password: string;
}

type SignUpResult = { readonly ok: true; readonly token: string } | { readonly ok: false; readonly errors: FieldError[] };

type TooManyAttempts = { readonly ok: false; readonly reason: 'too_many_attempts'; readonly retryAfterSeconds: number };

type LogInResult =
  { readonly ok: true; readonly token: string } | { readonly ok: false; readonly reason: 'invalid_credentials' } | TooManyAttempts;

type PasswordChangeResult =
  { readonly ok: true; readonly token: string } | { readonly ok: false; readonly errors: FieldError[] } | TooManyAttempts;

/** Console accounts and their browser sessions (docs/decisions/005-seller-console.md, 006-console-access.md). */
@Injectable()
export class ConsoleAccountsService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: ConsoleAccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysService,
    limits: RateLimitStore,
  ) {
    this.throttle = new LoginThrottle(limits);
    // Console access granted with a key ends with it (docs/decisions/006-console-access.md), in the key's revocation.
    apiKeys.onRevocation((manager, keyId, merchantId) => this.accounts.deleteGrantedByRevokedKey(manager, keyId, merchantId));
  }

  /** True when cookies must be Secure: the console is served over https. */
  get secureCookies(): boolean {
    return this.config.publicUrl.startsWith('https:');
  }

  /**
   * Creates an account of the merchant whose unrestricted admin key is presented, bound to that key, and signs it in.
   * Whatever is wrong with the key gets the same answer; a bad key and an email the merchant already has count as
   * failed attempts of the client's address (the second so that a key holder cannot list the merchant's people fast). An email is unique within the merchant only, so the answer never depends on another
   * merchant's people.
   */
  async signUp(form: SignUp, address: string): Promise<SignUpResult | TooManyAttempts> {
    const attempt = await this.throttle.attempt(null, address);
    if (!attempt.ok) return { ok: false, reason: 'too_many_attempts', retryAfterSeconds: attempt.retryAfterSeconds };

    const email = normaliseEmail(form.email);
    const errors: FieldError[] = [];
    if (!isEmailAddress(email)) {
      errors.push({ field: 'email', code: 'invalid_email', message: 'Enter an email address such as name@example.com' });
    }
    errors.push(...passwordErrors(form.password, email));
    const key = await this.apiKeys.authenticate(form.adminKey.trim());
    const unrestrictedAdmin = key !== null && key.storeId === null && key.scopes.includes('admin');
    if (!unrestrictedAdmin) {
      await this.throttle.failed(attempt);
      errors.push({
        field: 'admin_key',
        code: 'invalid_admin_key',
        message: 'This is not an active, unrestricted admin key of a merchant',
      });
    }
    if (errors.length || !key) {
      // a good key with a bad email or password is no guess: its place is given back
      if (unrestrictedAdmin) await this.throttle.succeeded(attempt);
      return { ok: false, errors };
    }

    const passwordHash = await hashPassword(form.password, this.config.passwordHashCost);
    const created = await this.transactions.run(async (manager) => {
      // The key's row lock orders this sign-up with a revocation of the key: either the revocation sees the account
      // and removes it, or this sees the key revoked and creates nothing.
      const live = await this.apiKeys.lockIfLive(manager, key.id);
      if (!live) return 'key_gone' as const;
      // An account whose key has expired holds its email until someone signs up with a live key.
      await this.accounts.deleteHeldByDeadKey(manager, key.merchantId, email);
      const accountId = await this.accounts.insert(manager, {
        id: newId(),
        merchantId: key.merchantId,
        apiKeyId: key.id,
        email,
        passwordHash,
      });
      if (accountId === null) return 'email_taken' as const;
      return { token: await this.startSession(manager, accountId) };
    });
    if (typeof created === 'object') {
      await this.throttle.succeeded(attempt);
      return { ok: true, token: created.token };
    }
    await this.throttle.failed(attempt);
    return {
      ok: false,
      errors: [
        created === 'key_gone'
          ? { field: 'admin_key', code: 'invalid_admin_key', message: 'This is not an active, unrestricted admin key of a merchant' }
          : { field: 'email', code: 'email_taken', message: 'This merchant already has an account with this email; log in instead' },
      ],
    };
  }

  /**
   * Signs in. An unknown email and a wrong password are one answer, in about the same time. An email may have an
   * account in several merchants (each with its own password): the one whose password matches is signed in, the
   * most recently used first.
   */
  async logIn(rawEmail: string, password: string, address: string): Promise<LogInResult> {
    const email = normaliseEmail(rawEmail);
    const attempt = await this.throttle.attempt(email, address);
    if (!attempt.ok) return { ok: false, reason: 'too_many_attempts', retryAfterSeconds: attempt.retryAfterSeconds };

    const candidates = await this.accounts.signInCandidates(email, ACCOUNTS_PER_EMAIL_CHECKED);
    let accountId: string | null = null;
    for (const candidate of candidates) {
      if (await verifyPassword(password, candidate.password_hash)) {
        accountId = candidate.id;
        break;
      }
    }
    if (candidates.length === 0) await verifyPassword(password, await dummyPasswordHash(this.config.passwordHashCost));
    if (accountId === null) {
      await this.throttle.failed(attempt);
      return { ok: false, reason: 'invalid_credentials' };
    }
    await this.throttle.succeeded(attempt);
    // Sign-in is when ended sessions are swept: people sign in far less often than they make requests.
    await this.accounts.deleteEndedSessions();
    await this.accounts.markSignedIn(accountId);
    return { ok: true, token: await this.startSession(null, accountId) };
  }

  /** The browser's console session, from its cookie: its token and who it is; null when it has none that is live. */
  async sessionOf(request: Request): Promise<{ token: string; identity: ConsoleIdentity } | null> {
    const token = readToken(request, SESSION_COOKIE);
    const identity = token === null ? null : await this.authenticate(token);
    return token === null || identity === null ? null : { token, identity };
  }

  /** The live session of a cookie token, refreshing its idle expiry; null when there is none or its key is not live. */
  async authenticate(token: string): Promise<ConsoleIdentity | null> {
    const row = await this.accounts.findLiveSession(digestSecret(token));
    if (!row) return null;
    if (row.stale) await this.accounts.refreshSession(row.session_id);
    return { sessionId: row.session_id, accountId: row.account_id, merchantId: row.merchant_id, email: row.email };
  }

  /**
   * Changes the signed-in account's password after checking the current one, and ends every session of the account
   * (a thief's too): the browser that changed it gets a new one. A wrong current password counts as a failed sign-in.
   */
  async changePassword(identity: ConsoleIdentity, current: string, next: string, address: string): Promise<PasswordChangeResult> {
    const attempt = await this.throttle.attempt(identity.email, address);
    if (!attempt.ok) return { ok: false, reason: 'too_many_attempts', retryAfterSeconds: attempt.retryAfterSeconds };
    const account = await this.accounts.findPasswordHash(identity.accountId);
    if (!account || !(await verifyPassword(current, account.password_hash))) {
      await this.throttle.failed(attempt);
      return {
        ok: false,
        errors: [{ field: 'current_password', code: 'invalid_credentials', message: 'This is not your current password' }],
      };
    }
    await this.throttle.succeeded(attempt);
    const errors = passwordErrors(next, identity.email);
    if (errors.length) return { ok: false, errors: errors.map((error) => ({ ...error, field: 'new_password' })) };
    const passwordHash = await hashPassword(next, this.config.passwordHashCost);
    const token = await this.transactions.run(async (manager) => {
      await this.accounts.setPasswordHash(manager, identity.accountId, passwordHash);
      await this.accounts.deleteSessionsOf(manager, identity.accountId);
      return this.startSession(manager, identity.accountId);
    });
    return { ok: true, token };
  }

  /** The merchant's accounts whose key is live, newest first: everyone who can sign in to its console. */
  list(merchantId: string, page: PageQuery): Promise<Page<ConsoleAccountResponse>> {
    return this.accounts.listLive(merchantId, page, ConsoleAccountResponse.from);
  }

  /** Removes an account of the merchant, and with it every session: its next request is signed out. */
  async remove(merchantId: string, accountId: string): Promise<void> {
    const removed = isId(accountId) ? await this.accounts.delete(merchantId, accountId) : 0;
    if (!removed) throw ProblemError.notFound('console account');
  }

  /** Ends the session of a cookie token, if it has one. */
  async logOut(token: string): Promise<void> {
    await this.accounts.deleteSession(digestSecret(token));
  }

  /**
   * Issues a key as the signed-in session (`principal`, its merchant's): the session stands on its account and on the
   * key the account signed up with, all three locked in the issuing transaction, so that ending any of them first
   * issues nothing (docs/decisions/001-credential-edge-cases.md).
   */
  issueKey(principal: MerchantPrincipal, identity: ConsoleIdentity, request: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const issuer = { ...principal, lockIfLive: (manager: EntityManager) => this.accounts.lockSessionIfLive(manager, identity.sessionId) };
    return this.apiKeys.issue(issuer, request);
  }

  /** Starts a session of the account, in the transaction of `manager` when one is given, and returns its cookie token. */
  private async startSession(manager: EntityManager | null, accountId: string): Promise<string> {
    const token = newToken();
    const session = { id: newId(), accountId, tokenDigest: digestSecret(token) };
    if (manager === null) await this.accounts.insertSession(session);
    else await this.accounts.insertSessionIn(manager, session);
    return token;
  }
}

/**
 * `local@domain.tld` without white space, checked in linear time and only below the length limit: a regular
 * expression with two unbounded runs that can match the same characters takes quadratic time on a crafted address.
 */
function isEmailAddress(email: string): boolean {
  if (email.length > EMAIL_MAX_LENGTH || /\s/.test(email)) return false;
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@')) return false;
  const domain = email.slice(at + 1);
  const dot = domain.indexOf('.', 1);
  return dot > 0 && dot < domain.length - 1;
}

function passwordErrors(password: string, email: string): FieldError[] {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    return [
      {
        field: 'password',
        code: 'invalid_password',
        message: `Choose a password of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
      },
    ];
  }
  if (normaliseEmail(password) === email) {
    return [{ field: 'password', code: 'invalid_password', message: 'The password must not be your email address' }];
  }
  return [];
}

const normaliseEmail = (email: string): string => email.trim().toLowerCase();
