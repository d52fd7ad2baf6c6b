/**
 * What learning is told about order lines and their events by ingestion, which owns them: the events it stores, the
 * state of each line once they are summed up (under the line's lock), and the lines newly linked to sessions.
 */

/** A stored event, as far as learning reads it. */
export interface OutcomeEvent {
  readonly id: string;
  readonly type: string;
  readonly reason: string | null;
  readonly fitFeedback: string | null;
  readonly occurredAt: Date;
  readonly productId: string | null;
  readonly variantId: string | null;
  readonly orderId: string | null;
  readonly lineItemId: string | null;
}

/**
 * An order line under its row's lock: the variant its first purchase bought (null: no purchase stored yet), and
 * whether an outcome of it waits for that purchase.
 */
export interface OrderLineState {
  readonly orderId: string;
  readonly lineItemId: string;
  readonly purchasedVariantId: string | null;
  readonly lessonWaiting: boolean;
}

/** A line newly linked to the session its purchase names. */
export interface LinkedLine {
  readonly sessionId: string;
  readonly orderId: string;
  readonly lineItemId: string;
}

/** A line whose outcome now waits for its purchase, or no longer does: ingestion marks it on the line. */
export type WaitingChange = OrderLineState & { readonly waiting: boolean };

/** Order lines of one size of a product, by what happened to them (distinct lines, never units). */
export interface SizeOutcomes {
  readonly size_label: string;
  readonly purchased: number;
  readonly kept: number;
  readonly size_returns: number;
  readonly size_exchanges: number;
  readonly too_small: number;
  readonly too_large: number;
}

/**
 * The size labels of product `p`'s chart, smallest first, as `c.labels` (catalog's read model of its charts): what
 * learning reads sizes against, as positions in the chart (`array_position`). Joined by the chart's id alone: the
 * product's composite foreign key keeps its chart in its store, and naming the store here too would let PostgreSQL
 * read a new store's charts by store rather than by key (test/api/events/store-statistics.e2e-spec.ts).
 */
export const CHART_LABELS_OF_P = `JOIN catalog_size_charts c ON c.id = p.size_chart_id`;

/** An order line's key in maps of lines. */
export const lineKey = (orderId: string, lineItemId: string): string => JSON.stringify([orderId, lineItemId]);
