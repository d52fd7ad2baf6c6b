import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './event-types.js';

export const REASONS = ['size', 'other'] as const;
export type Reason = (typeof REASONS)[number];
/** Which way a size problem went, on returns and exchanges for size: the item was too small or too large. */
export const FIT_FEEDBACK = ['too_small', 'too_large'] as const;
export type FitFeedback = (typeof FIT_FEEDBACK)[number];

/** The `source` of events the service records itself; reserved, so no delivery can collide with them. */
export const SERVICE_SOURCE = 'size-fit';

@Entity({ name: 'events' })
export class FitEvent {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  source: string;

  @Column({ type: 'text', name: 'external_id' })
  externalId: string;

  @Column({ type: 'text' })
  type: EventType;

  @Column({ type: 'uuid', name: 'product_id', nullable: true })
  productId: string | null;

  @Column({ type: 'uuid', name: 'variant_id', nullable: true })
  variantId: string | null;

  @Column({ type: 'uuid', name: 'session_id', nullable: true })
  sessionId: string | null;

  @Column({ type: 'text', name: 'order_id', nullable: true })
  orderId: string | null;

  @Column({ type: 'text', name: 'line_item_id', nullable: true })
  lineItemId: string | null;

  @Column({ type: 'text', nullable: true })
  reason: Reason | null;

  @Column({ type: 'integer', nullable: true })
  quantity: number | null;

  @Column({ type: 'text', name: 'fit_feedback', nullable: true })
  fitFeedback: FitFeedback | null;

  /** On a size exchange: the variant of the same product the shopper exchanged to. */
  @Column({ type: 'uuid', name: 'new_variant_id', nullable: true })
  newVariantId: string | null;

  @Column({ type: 'timestamptz', name: 'occurred_at' })
  occurredAt: Date;

  @Column({ type: 'timestamptz', name: 'received_at' })
  receivedAt: Date;

  /** The store's keyed digest of the shopper a purchase names (`shopper_ref`); never returned. */
  @Column({ type: 'bytea', name: 'shopper_digest', nullable: true, select: false })
  shopperDigest: Buffer | null;

  /** SHA-256 of the delivery's canonical form (see canonical-event.ts); null for the service's own events. */
  @Column({ type: 'bytea', name: 'payload_sha256', nullable: true, select: false })
  payloadSha256: Buffer | null;
}
