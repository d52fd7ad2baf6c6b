import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ApiKeyRecord } from '../api-keys/api-key-record.entity.js';

/**
 * A person who signs in to the seller console on behalf of a merchant, for as long as the admin key presented at
 * sign-up stays live (docs/decisions/006-console-access.md).
 */
@Entity({ name: 'console_accounts' })
export class ConsoleAccount {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  /** The unrestricted admin key that granted the access: revoked, the account goes; expired, it cannot sign in. */
  @Column({ type: 'uuid', name: 'api_key_id' })
  apiKeyId: string;

  /** That key as the api-keys module lets others read it, when a read joins it (`listLive`). */
  apiKey?: ApiKeyRecord;

  /** Trimmed and lower-cased; unique within the merchant. */
  @Column({ type: 'text' })
  email: string;

  /** `scrypt$N$r$p$salt$hash` (see passwords.ts). */
  @Column({ type: 'text', name: 'password_hash', select: false })
  passwordHash: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'last_signed_in_at', nullable: true })
  lastSignedInAt: Date | null;
}

/** A signed-in browser. The cookie holds the token; only its digest is stored. */
@Entity({ name: 'console_sessions' })
export class ConsoleSession {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'account_id' })
  accountId: string;

  @Column({ type: 'text', name: 'token_digest', select: false })
  tokenDigest: string;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'refreshed_at' })
  refreshedAt: Date;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;
}

/** The entities of console accounts, registered by their module. */
export const CONSOLE_ACCOUNTS_ENTITIES = [ConsoleAccount, ConsoleSession];
