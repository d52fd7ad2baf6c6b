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

/** The `source` of events the service records itself. */
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
  type: string;

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
  reason: 'size' | 'other' | null;

  @Column({ type: 'integer', nullable: true })
  quantity: number | null;

  @Column({ type: 'timestamptz', name: 'occurred_at' })
  occurredAt: Date;

  @Column({ type: 'timestamptz', name: 'received_at' })
  receivedAt: Date;
}
