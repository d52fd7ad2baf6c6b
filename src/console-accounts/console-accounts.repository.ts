import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { ApiKeyRecord } from '../api-keys/api-key-record.entity.js';
import { ConsoleAccount, ConsoleSession } from './console-account.entity.js';

/** A session ends after this long without a request… */
const SESSION_IDLE_MINUTES = 30;
/** …and this long after sign-in, whichever comes first. */
const SESSION_MAX_HOURS = 12;
/** `refreshed_at` moves at most this often, so most requests only read the session. */
const REFRESH_RESOLUTION_SECONDS = 60;

interface NewAccount {
  readonly id: string;
  readonly merchantId: string;
  readonly apiKeyId: string;
  readonly email: string;
  readonly passwordHash: string;
}

interface NewSession {
  readonly id: string;
  readonly accountId: string;
  /** SHA-256 of the cookie token: the token itself is never stored. */
  readonly tokenDigest: string;
}

/** A live session, as a cookie's digest finds it. */
interface LiveSessionRow {
  session_id: string;
  /** `refreshed_at` is older than the refresh resolution: the session's expiry should move. */
  stale: boolean;
  account_id: string;
  merchant_id: string;
  email: string;
}

/**
 * The queries of console accounts and their sessions. Methods that may run inside a transaction take its `manager`
 * first; a method that exists in both forms is named `…In` when it takes the manager.
 */
@Injectable()
export class ConsoleAccountsRepository {
  constructor(
    @InjectRepository(ConsoleAccount) private readonly accounts: Repository<ConsoleAccount>,
    @InjectRepository(ConsoleSession) private readonly sessions: Repository<ConsoleSession>,
  ) {}

  /** Removes the merchant's account with this email when its key is no longer live. */
  async deleteHeldByDeadKey(manager: EntityManager, merchantId: string, email: string): Promise<void> {
    await manager.query(
      `DELETE FROM console_accounts a USING api_keys_records k
          WHERE k.id = a.api_key_id AND a.merchant_id = $1 AND a.email = $2 AND NOT k.live`,
      [merchantId, email],
    );
  }

  /** Inserts the account and returns its id; null when the merchant already has an account with this email. */
  async insert(manager: EntityManager, account: NewAccount): Promise<string | null> {
    const inserted = (await manager.query(
      `INSERT INTO console_accounts (id, merchant_id, api_key_id, email, password_hash, last_signed_in_at)
         VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT ON CONSTRAINT console_accounts_merchant_email_key DO NOTHING RETURNING id`,
      [account.id, account.merchantId, account.apiKeyId, account.email, account.passwordHash],
    )) as Array<{ id: string }>;
    return inserted.length ? inserted[0].id : null;
  }

  /** Removes the accounts a key granted, once the key is revoked. */
  async deleteGrantedByRevokedKey(manager: EntityManager, keyId: string, merchantId: string): Promise<void> {
    await manager.query(
      `DELETE FROM console_accounts a USING api_keys_records k
          WHERE k.id = a.api_key_id AND k.id = $1 AND k.merchant_id = $2 AND k.revoked_at IS NOT NULL`,
      [keyId, merchantId],
    );
  }

  /** The accounts with this email whose key is live, the most recently signed in first, at most `limit`. */
  signInCandidates(email: string, limit: number): Promise<Array<{ id: string; password_hash: string }>> {
    return this.accounts.query(
      `SELECT a.id, a.password_hash FROM console_accounts a JOIN api_keys_records k ON k.id = a.api_key_id
        WHERE a.email = $1 AND k.live
        ORDER BY a.last_signed_in_at DESC NULLS LAST, a.id DESC LIMIT $2`,
      [email, limit],
    );
  }

  async markSignedIn(accountId: string): Promise<void> {
    await this.accounts.query(`UPDATE console_accounts SET last_signed_in_at = now() WHERE id = $1`, [accountId]);
  }

  /** The account's password hash, or undefined when there is no such account. */
  async findPasswordHash(accountId: string): Promise<{ password_hash: string } | undefined> {
    const [account] = (await this.accounts.query(`SELECT password_hash FROM console_accounts WHERE id = $1`, [accountId])) as Array<{
      password_hash: string;
    }>;
    return account;
  }

  async setPasswordHash(manager: EntityManager, accountId: string, passwordHash: string): Promise<void> {
    await manager.query(`UPDATE console_accounts SET password_hash = $2 WHERE id = $1`, [accountId, passwordHash]);
  }

  /** The merchant's accounts whose key is live, newest first. */
  listLive<T>(merchantId: string, page: PageQuery, present: (account: ConsoleAccount) => T): Promise<Page<T>> {
    const query = this.accounts
      .createQueryBuilder('account')
      .innerJoinAndMapOne('account.apiKey', ApiKeyRecord, 'k', 'k.id = account.api_key_id AND k.live')
      .where('account.merchant_id = :merchantId', { merchantId });
    return paginate(query, page, present);
  }

  /** Removes an account of the merchant (its sessions go with it); the number of accounts removed. */
  async delete(merchantId: string, accountId: string): Promise<number> {
    const removed = await this.accounts.delete({ id: accountId, merchantId });
    return removed.affected ?? 0;
  }

  /** Starts a session, idle for `SESSION_IDLE_MINUTES` at most. */
  insertSession(session: NewSession): Promise<void> {
    return this.insertSessionIn(this.sessions.manager, session);
  }

  /** `insertSession` inside the caller's transaction. */
  async insertSessionIn(manager: EntityManager, session: NewSession): Promise<void> {
    await manager
      .getRepository(ConsoleSession)
      .createQueryBuilder()
      .insert()
      .values({
        id: session.id,
        accountId: session.accountId,
        tokenDigest: session.tokenDigest,
        createdAt: () => 'now()',
        refreshedAt: () => 'now()',
        expiresAt: () => `now() + interval '${SESSION_IDLE_MINUTES} minutes'`,
      })
      .execute();
  }

  /** The live session with this token digest whose key is live, or undefined. */
  async findLiveSession(tokenDigest: string): Promise<LiveSessionRow | undefined> {
    const [row] = (await this.sessions.query(
      `SELECT s.id AS session_id, s.refreshed_at < now() - make_interval(secs => $2) AS stale,
              a.id AS account_id, a.merchant_id, a.email
         FROM console_sessions s
         JOIN console_accounts a ON a.id = s.account_id
         JOIN api_keys_records k ON k.id = a.api_key_id
        WHERE s.token_digest = $1 AND s.expires_at > now() AND k.live`,
      [tokenDigest, REFRESH_RESOLUTION_SECONDS],
    )) as LiveSessionRow[];
    return row;
  }

  /** Moves a live session's idle expiry, never past its maximum age. */
  async refreshSession(sessionId: string): Promise<void> {
    await this.sessions.query(
      `UPDATE console_sessions
            SET refreshed_at = now(),
                expires_at = least(now() + make_interval(mins => $2), created_at + make_interval(hours => $3))
          WHERE id = $1 AND expires_at > now()`,
      [sessionId, SESSION_IDLE_MINUTES, SESSION_MAX_HOURS],
    );
  }

  /**
   * True when the console session is live, and so are its account and the key the account stands on; the key's row
   * is then share-locked as by `ApiKeysService.lockIfLive`, and the account's and the session's rows are held against
   * deletion, until the transaction ends. Taken in that order (clause by clause), the order in which a revocation (the
   * key, then its accounts, then their sessions) and a removal (the account, then its sessions) take them.
   */
  async lockSessionIfLive(manager: EntityManager, sessionId: string): Promise<boolean> {
    const [live] = (await manager.query(
      `SELECT 1 FROM console_sessions s
         JOIN console_accounts a ON a.id = s.account_id
         JOIN api_keys_records k ON k.id = a.api_key_id
        WHERE s.id = $1 AND s.expires_at > now() AND k.live
          FOR SHARE OF k FOR KEY SHARE OF a, s`,
      [sessionId],
    )) as unknown[];
    return Boolean(live);
  }

  /** Ends every session of the account. */
  async deleteSessionsOf(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query(`DELETE FROM console_sessions WHERE account_id = $1`, [accountId]);
  }

  /** Sweeps the sessions that have ended. */
  async deleteEndedSessions(): Promise<void> {
    await this.sessions.query(`DELETE FROM console_sessions WHERE expires_at <= now()`);
  }

  /** Ends the session with this token digest, if there is one. */
  async deleteSession(tokenDigest: string): Promise<void> {
    await this.sessions.query(`DELETE FROM console_sessions WHERE token_digest = $1`, [tokenDigest]);
  }
}
