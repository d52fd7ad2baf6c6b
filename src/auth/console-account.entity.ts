import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A person who signs in to the seller console on behalf of a merchant. */
@Entity({ name: 'console_accounts' })
export class ConsoleAccount {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  /** Trimmed and lower-cased. */
  @Column({ type: 'text' })
  email: string;

  /** `scrypt$N$r$p$salt$hash` (see passwords.ts). */
  @Column({ type: 'text', name: 'password_hash', select: false })
  passwordHash: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
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
