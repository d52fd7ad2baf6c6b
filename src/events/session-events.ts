import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { FitEvent, SERVICE_SOURCE, type ServiceEventType } from './event.entity.js';

/** What an event needs of the session it records. */
export interface SessionRef {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId: string;
  readonly productId: string;
}

/**
 * Records events the service itself is the source of, through the manager of the transaction that changes the
 * session: the change and its event commit together or not at all. `key` makes the delivery id unique (the session
 * for once-per-session events, the recommendation for per-recommendation ones), so the event is never counted twice.
 */
export async function recordSessionEvents(
  manager: EntityManager,
  session: SessionRef,
  at: Date,
  events: readonly { type: ServiceEventType; key: string; variantId?: string | null }[],
): Promise<void> {
  await manager.insert(
    FitEvent,
    events.map((event) => ({
      id: newId(),
      merchantId: session.merchantId,
      storeId: session.storeId,
      source: SERVICE_SOURCE,
      externalId: `${event.type}:${event.key}`,
      type: event.type,
      productId: session.productId,
      variantId: event.variantId ?? null,
      sessionId: session.id,
      orderId: null,
      lineItemId: null,
      reason: null,
      quantity: null,
      occurredAt: at,
      receivedAt: at,
      payloadSha256: null,
    })),
  );
}
