import { Column, Entity, PrimaryColumn } from 'typeorm';
import { FitEvent } from './event.entity.js';

/**
 * The per-line summaries the cohort metrics read, written by ingestion in SQL of its own (line-summaries.repository.ts;
 * docs/metrics.md), as the migrations make them.
 */

/** An order line of a store, with the earliest outcome times seen for it: what both summaries hold of a line. */
abstract class LineOutcomeTimes {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'text', name: 'order_id' })
  orderId: string;

  @PrimaryColumn({ type: 'text', name: 'line_item_id' })
  lineItemId: string;

  @Column({ type: 'timestamptz', name: 'size_returned_at', nullable: true })
  sizeReturnedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'kept_at', nullable: true })
  keptAt: Date | null;

  @Column({ type: 'timestamptz', name: 'size_exchanged_at', nullable: true })
  sizeExchangedAt: Date | null;
}

/** `order_lines`: one row per purchased or returned line of a store. */
@Entity({ name: 'order_lines' })
class OrderLineSummary extends LineOutcomeTimes {
  /** The variant of the line's first stored purchase. */
  @Column({ type: 'uuid', name: 'purchased_variant_id', nullable: true })
  purchasedVariantId: string | null;

  /** An outcome of the line is stored and waits for its purchase (learning). */
  @Column({ type: 'boolean', name: 'lesson_waiting' })
  lessonWaiting: boolean;
}

/** `session_lines`: one row per line a purchase links to a session, with copies of the line's outcome times. */
@Entity({ name: 'session_lines' })
class SessionLineSummary extends LineOutcomeTimes {
  @PrimaryColumn({ type: 'uuid', name: 'session_id' })
  sessionId: string;

  @Column({ type: 'timestamptz', name: 'session_created_at' })
  sessionCreatedAt: Date;

  @Column({ type: 'boolean', name: 'session_recommended' })
  sessionRecommended: boolean;

  /** The line is linked to other sessions too. */
  @Column({ type: 'boolean' })
  shared: boolean;

  @Column({ type: 'timestamptz', name: 'purchased_at' })
  purchasedAt: Date;
}

/** The entities of events, registered by its module: the events (event.entity.ts) and the line summaries. */
export const EVENTS_ENTITIES = [FitEvent, OrderLineSummary, SessionLineSummary];
