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

/** The import of a store's shop catalog: one per store, resumable from `nextPage`. */
@Entity({ name: 'platform_imports' })
export class PlatformImport {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  state: 'running' | 'done' | 'failed';

  /** The platform's cursor of the next page to read; null: the first page (running) or none left. */
  @Column({ type: 'text', name: 'next_page', nullable: true })
  nextPage: string | null;

  @Column({ type: 'integer' })
  pages: number;

  @Column({ type: 'timestamptz', name: 'started_at' })
  startedAt: Date;

  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true })
  finishedAt: Date | null;

  /** Why it failed, in a sentence for the console (never what the platform answered). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** What started this read of the whole catalog. */
  @Column({ type: 'text' })
  trigger: ImportTrigger;

  /** Products this read found gone from the shop, removed from the catalog. */
  @Column({ type: 'integer' })
  removed: number;

  /** Catalog products whose variants this read brought in line with the shop's. */
  @Column({ type: 'integer' })
  repaired: number;
}

/** What starts a read of the whole catalog: connecting the store, "Import again" in the console, or the schedule. */
export type ImportTrigger = 'connection' | 'console' | 'schedule';

/** One variant of a shop's product: the platform's id and its size (null when the product has no size option). */
export interface ImportedVariant {
  readonly id: string;
  readonly size: string | null;
}

/** A product of the connected shop, as the import last read it. */
@Entity({ name: 'platform_products' })
export class PlatformProduct {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'text', name: 'platform_id' })
  platformId: string;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', name: 'product_type' })
  productType: string;

  @Column({ type: 'text' })
  vendor: string;

  @Column({ type: 'text', array: true })
  tags: string[];

  /** The name of its size option (Size, Taille, Größe…), or null: skipped, it has no sizes to fit. */
  @Column({ type: 'text', name: 'size_option', nullable: true })
  sizeOption: string | null;

  @Column({ type: 'jsonb' })
  variants: ImportedVariant[];

  /** The store's catalog product whose `external_id` is the platform's id; null: it needs a chart. */
  @Column({ type: 'uuid', name: 'product_id', nullable: true })
  productId: string | null;

  @Column({ type: 'timestamptz', name: 'imported_at' })
  importedAt: Date;

  /** When the shop last changed it (its \`updated_at\`), when the shop said. */
  @Column({ type: 'timestamptz', name: 'shop_updated_at', nullable: true })
  shopUpdatedAt: Date | null;

  /** When it was found deleted on the shop; a tombstone, so that a late update does not bring it back. */
  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}

/** What an import has read so far. */
export interface ImportCounts {
  readonly products: number;
  readonly variants: number;
  /** In the catalog already (a product whose `external_id` is the platform's id). */
  readonly linked: number;
  /** With a size option and not in the catalog: they need a chart. */
  readonly needs_chart: number;
  /** Without a size option: nothing to fit. */
  readonly skipped: number;
}

/** Which imported products a chart and a product type are given to: those whose `field` is `value`. */
export interface AssignRule {
  readonly field: 'product_type' | 'vendor' | 'tag';
  readonly value: string;
}

/** What giving a chart by rule did. */
export interface Assignment {
  /** Catalog products created, each with the platform's id as `external_id` and a variant per size on the chart. */
  readonly created: number;
  /** Variants whose size is not a label of the chart: left out. */
  readonly sizesLeftOut: number;
  /** Products not created (their platform id taken meanwhile by another product, say), left needing a chart. */
  readonly notCreated: number;
  /** More products match than one request creates: send it again. */
  readonly more: boolean;
}

/** The entities of the platform connection and its sync, registered by its module. */
export const PLATFORM_ENTITIES = [PlatformOAuthState, PlatformConnection, PlatformNotice, PlatformImport, PlatformProduct];
