import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { SERVICE_SOURCE } from './event.entity.js';
import type { ServiceEventType } from './event-types.js';
import { EventsRepository } from './events.repository.js';
import { LineSummariesRepository } from './line-summaries.repository.js';

/** What an event needs of the session it records. */
interface SessionRef {
  readonly id: string;
  readonly merchantId: string;
  readonly storeId: string;
  readonly productId: string;
}

/**
 * What the fit flow asks of the events module: the events the service is the source of, written through the manager
 * of the transaction that changes the session, so the change and its events commit together or not at all.
 */
@Injectable()
export class SessionEventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly lineSummaries: LineSummariesRepository,
  ) {}

  /**
   * Records events the service itself is the source of, through the manager of the transaction that changes the
   * session: the change and its event commit together or not at all. `key` makes the delivery id unique (the session
   * for once-per-session events, the recommendation for per-recommendation ones), so the event is never counted twice.
   */
  record(
    manager: EntityManager,
    session: SessionRef,
    at: Date,
    events: readonly { type: ServiceEventType; key: string; variantId?: string | null }[],
  ): Promise<void> {
    return this.events.insert(
      manager,
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
        fitFeedback: null,
        newVariantId: null,
        quantity: null,
        occurredAt: at,
        receivedAt: at,
        payloadSha256: null,
        shopperDigest: null,
      })),
    );
  }

  /** The session got its first recommendation: its order lines count as assisted from now on. */
  markRecommended(manager: EntityManager, storeId: string, sessionId: string): Promise<void> {
    return this.lineSummaries.markSessionRecommended(manager, storeId, sessionId);
  }
}
