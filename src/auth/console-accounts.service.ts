import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { RateLimitStore } from '../common/http/rate-limit-store.js';
import type { FieldError } from '../common/problems/problem.error.js';
import { violatedConstraint } from '../database/database-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import { ApiKeysService } from './api-keys.service.js';
import { ConsoleAccount, ConsoleSession } from './console-account.entity.js';
import { newToken } from './console-credentials.js';
import { digestSecret } from './key-secret.js';
import { LoginThrottle } from './login-throttle.js';
import {
  dummyPasswordHash,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordLength,
  verifyPassword,
} from './passwords.js';

/** A session ends after this long without a request… */
export const SESSION_IDLE_MINUTES = 30;
/** …and this long after sign-in, whichever comes first. */
export const SESSION_MAX_HOURS = 12;
/** `refreshed_at` moves at most this often, so most requests only read the session. */
const REFRESH_RESOLUTION_SECONDS = 60;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX_LENGTH = 254;

export interface SignUp {
  readonly adminKey: string;
  readonly email: string;
  readonly password: string;
}

/** A signed-in console user, as the access guard establishes it. */
export interface ConsoleIdentity {
  readonly sessionId: string;
  readonly accountId: string;
  readonly merchantId: string;
  readonly email: string;
}

export type SignUpResult = { readonly ok: true; readonly token: string } | { readonly ok: false; readonly errors: FieldError[] };

export type LogInResult =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly reason: 'invalid_credentials' }
  | { readonly ok: false; readonly reason: 'too_many_attempts'; readonly retryAfterSeconds: number };

/** Console accounts and their browser sessions (docs/decisions/005-seller-console.md). */
@Injectable()
export class ConsoleAccountsService {
  private readonly throttle: LoginThrottle;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysService,
    limits: RateLimitStore,
  ) {
    this.throttle = new LoginThrottle(limits);
  }

  /** True when cookies must be Secure: the console is served over https. */
  get secureCookies(): boolean {
    return this.config.publicUrl.startsWith('https:');
  }

  /**
   * Creates an account of the merchant whose unrestricted admin key is presented, and signs it in. Whatever is
   * wrong with the key gets the same answer, and a bad key counts as a failed attempt of the client's address.
   */
  async signUp(form: SignUp, address: string): Promise<SignUpResult | Extract<LogInResult, { reason: 'too_many_attempts' }>> {
    const wait = await this.throttle.waitSeconds(null, address);
    if (wait > 0) return { ok: false, reason: 'too_many_attempts', retryAfterSeconds: wait };

    const email = normaliseEmail(form.email);
    const errors: FieldError[] = [];
    if (!EMAIL.test(email) || email.length > EMAIL_MAX_LENGTH) {
      errors.push({ field: 'email', code: 'invalid_email', message: 'Enter an email address such as name@example.com' });
    }
    const length = passwordLength(form.password);
    if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
      errors.push({
        field: 'password',
        code: 'invalid_password',
        message: `Choose a password of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
      });
    } else if (normaliseEmail(form.password) === email) {
      errors.push({ field: 'password', code: 'invalid_password', message: 'The password must not be your email address' });
    }
    const key = await this.apiKeys.authenticate(form.adminKey.trim());
    if (!key || key.storeId !== null || !key.scopes.includes('admin')) {
      await this.throttle.failed(null, address);
      errors.push({
        field: 'admin_key',
        code: 'invalid_admin_key',
        message: 'This is not an active, unrestricted admin key of a merchant',
      });
    }
    if (errors.length || !key) return { ok: false, errors };

    const passwordHash = await hashPassword(form.password);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const account = manager.getRepository(ConsoleAccount).create({ id: newId(), merchantId: key.merchantId, email, passwordHash });
        await manager.getRepository(ConsoleAccount).insert(account);
        return { ok: true as const, token: await this.startSession(manager.getRepository(ConsoleSession), account.id) };
      });
    } catch (error) {
      if (violatedConstraint(error)?.constraint !== 'console_accounts_email_key') throw error;
      return { ok: false, errors: [{ field: 'email', code: 'email_taken', message: 'An account with this email already exists' }] };
    }
  }

  /** Signs in. An unknown email and a wrong password are one answer, in the same time. */
  async logIn(rawEmail: string, password: string, address: string): Promise<LogInResult> {
    const email = normaliseEmail(rawEmail);
    const wait = await this.throttle.waitSeconds(email, address);
    if (wait > 0) return { ok: false, reason: 'too_many_attempts', retryAfterSeconds: wait };

    const account = await this.dataSource
      .getRepository(ConsoleAccount)
      .createQueryBuilder('account')
      .addSelect('account.passwordHash')
      .where('account.email = :email', { email })
      .getOne();
    const matches = await verifyPassword(password, account?.passwordHash ?? (await dummyPasswordHash()));
    if (!account || !matches) {
      await this.throttle.failed(email, address);
      return { ok: false, reason: 'invalid_credentials' };
    }
    await this.throttle.succeeded(email);
    const sessions = this.dataSource.getRepository(ConsoleSession);
    // Sign-in is when ended sessions are swept: people sign in far less often than they make requests.
    await sessions.createQueryBuilder().delete().where('expires_at <= now()').execute();
    return { ok: true, token: await this.startSession(sessions, account.id) };
  }

  /** The live session of a cookie token, refreshing its idle expiry; null when there is none. */
  async authenticate(token: string): Promise<ConsoleIdentity | null> {
    const [row] = (await this.dataSource.query(
      `SELECT s.id AS session_id, s.refreshed_at < now() - make_interval(secs => $2) AS stale,
              a.id AS account_id, a.merchant_id, a.email
         FROM console_sessions s JOIN console_accounts a ON a.id = s.account_id
        WHERE s.token_digest = $1 AND s.expires_at > now()`,
      [digestSecret(token), REFRESH_RESOLUTION_SECONDS],
    )) as Array<{ session_id: string; stale: boolean; account_id: string; merchant_id: string; email: string }>;
    if (!row) return null;
    if (row.stale) {
      await this.dataSource.query(
        `UPDATE console_sessions
            SET refreshed_at = now(),
                expires_at = least(now() + make_interval(mins => $2), created_at + make_interval(hours => $3))
          WHERE id = $1 AND expires_at > now()`,
        [row.session_id, SESSION_IDLE_MINUTES, SESSION_MAX_HOURS],
      );
    }
    return { sessionId: row.session_id, accountId: row.account_id, merchantId: row.merchant_id, email: row.email };
  }

  /** Ends the session of a cookie token, if it has one. */
  async logOut(token: string): Promise<void> {
    await this.dataSource
      .getRepository(ConsoleSession)
      .createQueryBuilder()
      .delete()
      .where('token_digest = :digest', { digest: digestSecret(token) })
      .execute();
  }

  private async startSession(sessions: Repository<ConsoleSession>, accountId: string): Promise<string> {
    const token = newToken();
    await sessions
      .createQueryBuilder()
      .insert()
      .values({
        id: newId(),
        accountId,
        tokenDigest: digestSecret(token),
        createdAt: () => 'now()',
        refreshedAt: () => 'now()',
        expiresAt: () => `now() + interval '${SESSION_IDLE_MINUTES} minutes'`,
      })
      .execute();
    return token;
  }
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
