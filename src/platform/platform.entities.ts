import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A connection started in the console and not yet completed: single use, ten minutes. */
@Entity({ name: 'platform_oauth_states' })
export class PlatformOAuthState {
  /** SHA-256 (hex) of the `state` sent to the platform. */
  @PrimaryColumn({ type: 'text', name: 'state_digest' })
  stateDigest: string;

  @Column({ type: 'uuid', name: 'session_id' })
  sessionId: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  shop: string;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;
}

/** A store's link to its shop on the platform. The access token is sealed (common/crypto/seal.ts) and never leaves. */
@Entity({ name: 'platform_connections' })
export class PlatformConnection {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  shop: string;

  /** As granted by the platform, comma-separated. */
  @Column({ type: 'text' })
  scopes: string;

  @Column({ type: 'bytea', name: 'token_ciphertext', select: false })
  tokenCiphertext: Buffer;

  @Column({ type: 'timestamptz', name: 'connected_at' })
  connectedAt: Date;

  @Column({ type: 'uuid', name: 'connected_by', nullable: true })
  connectedBy: string | null;
}

/**
 * Where a notification is: waiting for its job, processed, unreadable (`failed`), not one the service acts on
 * (`ignored`), or failed at every attempt (`dead_letter`: its job waits for a retry from the console).
 */
export type NoticeState = 'queued' | 'processed' | 'failed' | 'ignored' | 'dead_letter';

/** One line of an order notification, as processing it ended. */
export interface LineResult {
  /** The event's `external_id` (`purchase:{order}:{line}`, `return:{return}:{line}`…). */
  readonly external_id: string;
  /** `recorded` (now), `duplicate` (before), `not_in_catalog` (no product of the store has that external id),
   * `unknown_variant` (the product has no variant of that external id) or `refused` (the event was refused: `code`). */
  readonly status: 'recorded' | 'duplicate' | 'not_in_catalog' | 'unknown_variant' | 'refused';
  readonly product: string;
  readonly variant: string;
  readonly code?: string;
}

export interface NoticeOutcome {
  /** What was done, in a sentence for the console. */
  readonly summary: string;
  readonly lines?: readonly LineResult[];
}

/** A notification from a connected shop's platform, kept once per store and delivery (docs/platform-sync.md). */
@Entity({ name: 'platform_webhooks' })
export class PlatformNotice {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  shop: string;

  /** The platform's id of the delivery (`X-Shop-Webhook-Id`): the same on every redelivery. */
  @Column({ type: 'text', name: 'delivery_id' })
  deliveryId: string;

  @Column({ type: 'text' })
  topic: string;

  @Column({ type: 'timestamptz', name: 'received_at' })
  receivedAt: Date;

  /** The body, kept only until it is processed (it names customers). */
  @Column({ type: 'jsonb', nullable: true, select: false })
  payload: unknown;

  @Column({ type: 'text' })
  state: NoticeState;

  @Column({ type: 'jsonb', nullable: true })
  outcome: NoticeOutcome | null;

  @Column({ type: 'timestamptz', name: 'processed_at', nullable: true })
  processedAt: Date | null;
}

/** The entities of the platform connection and its sync, registered by its module. */
export const PLATFORM_ENTITIES = [PlatformOAuthState, PlatformConnection, PlatformNotice];
