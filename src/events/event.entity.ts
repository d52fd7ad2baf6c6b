import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Types the service records itself, in the transaction of the session change that causes them. */
export const SERVICE_EVENT_TYPES = [
  'fit_started',
  'fit_completed',
  'recommendation_generated',
  'recommendation_accepted',
  'recommendation_overridden',
] as const;
export type ServiceEventType = (typeof SERVICE_EVENT_TYPES)[number];

/** Types an integration sends to the events endpoint. */
export const INTEGRATION_EVENT_TYPES = [
  'fit_viewed',
  'add_to_cart',
  'checkout_started',
  'purchase',
  'return_requested',
  'size_exchange',
  'item_kept',
] as const;
export type IntegrationEventType = (typeof INTEGRATION_EVENT_TYPES)[number];

/** The types about one order line: they need product_id, variant_id, order_id and line_item_id. */
export const ORDER_OUTCOME_TYPES: readonly string[] = ['purchase', 'return_requested', 'size_exchange', 'item_kept'];
/** The types that carry a reason. */
export const REASON_TYPES: readonly string[] = ['return_requested', 'size_exchange'];
export const REASONS = ['size', 'other'] as const;
export type Reason = (typeof REASONS)[number];
/** Which way a size problem went, on returns and exchanges for size: the item was too small or too large. */
export const FIT_FEEDBACK = ['too_small', 'too_large'] as const;
export type FitFeedback = (typeof FIT_FEEDBACK)[number];

export type EventType = ServiceEventType | IntegrationEventType;
export const EVENT_TYPES: readonly EventType[] = [...SERVICE_EVENT_TYPES, ...INTEGRATION_EVENT_TYPES];

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

  /** SHA-256 of the delivery's canonical form (see canonical-event.ts); null for the service's own events. */
  @Column({ type: 'bytea', name: 'payload_sha256', nullable: true, select: false })
  payloadSha256: Buffer | null;
}
