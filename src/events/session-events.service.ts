import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ServiceEventType } from './event.entity.js';
import { markSessionRecommended } from './line-summaries.js';
import { recordSessionEvents, type SessionRef } from './session-events.js';

/**
 * What the fit flow asks of the events module: the events the service is the source of, written through the manager
 * of the transaction that changes the session, so the change and its events commit together or not at all.
 */
@Injectable()
export class SessionEventsService {
  record(
    manager: EntityManager,
    session: SessionRef,
    at: Date,
    events: readonly { type: ServiceEventType; key: string; variantId?: string | null }[],
  ): Promise<void> {
    return recordSessionEvents(manager, session, at, events);
  }

  /** The session got its first recommendation: its order lines count as assisted from now on. */
  markRecommended(manager: EntityManager, storeId: string, sessionId: string): Promise<void> {
    return markSessionRecommended(manager, storeId, sessionId);
  }
}
