import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '../auth/scopes.js';
import { ApiKeyRecord } from './api-key-record.entity.js';

@Entity({ name: 'api_keys' })
@Index('api_keys_merchant_id_idx', ['merchantId', 'id'])
export class ApiKey {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  /** `null` for an unrestricted (merchant-wide) admin key. */
  @Column({ type: 'uuid', name: 'store_id', nullable: true })
  storeId: string | null;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', array: true })
  scopes: Scope[];

  /** The first characters of the secret, so a person can recognise the key. */
  @Column({ type: 'text' })
  prefix: string;

  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  @Column({ type: 'text', name: 'secret_digest', unique: true, select: false })
  secretDigest: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;
}

/** The operator bootstrap key's digest, when the service generated the key itself (embedded, non-production). */
@Entity({ name: 'operator_keys' })
export class OperatorKey {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'text', name: 'secret_digest', unique: true })
  secretDigest: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}

/** The entities of keys, registered by their module. */
export const API_KEYS_ENTITIES = [ApiKey, OperatorKey, ApiKeyRecord];
