import type { Evidence } from '../fit/engine/learning.js';
import type { FitFeedback, Reason } from './event.entity.js';

/** What an outcome says about sizes, as positions in its product's chart (1 = the smallest; null: not in the chart). */
interface OutcomeSizes {
  /** The size bought: the event's variant. */
  readonly bought: number | null;
  /** The size exchanged to, on a size exchange that names it. */
  readonly exchangedTo: number | null;
  /** The size the chart recommended, when the line was bought after a fit session that recommended one. */
  readonly recommended: number | null;
}

/** The fields of a stored event that decide what it teaches. */
export interface Outcome {
  readonly type: string;
  readonly reason: Reason | null;
  readonly fitFeedback: FitFeedback | null;
  readonly occurredAt: Date;
}

/** Whether an event can teach anything about fit: kept items, and returns and exchanges for size. */
export const teachesFit = (event: Pick<Outcome, 'type' | 'reason'>): boolean =>
  event.type === 'item_kept' || (event.reason === 'size' && (event.type === 'return_requested' || event.type === 'size_exchange'));

/**
 * The evidence an outcome gives, in size steps from the chart's own answer. The reference is the size the chart
 * recommended when the line came from a fit session; otherwise the size the shopper chose herself, which is what a
 * shopper reading the chart would choose. A kept size says her size was the one bought; a return or exchange for size
 * says it was one step the other side of the bought size (`fit_feedback`), or exactly the size exchanged to; one that
 * says neither is a size problem with no direction. `null` when the outcome teaches nothing (or names a size the
 * product's chart no longer has).
 */
export function evidenceOf(outcome: Outcome, sizes: OutcomeSizes): Evidence | null {
  if (!teachesFit(outcome) || sizes.bought === null) return null;
  const at = outcome.occurredAt;
  const reference = sizes.recommended ?? sizes.bought;
  const fromReference = sizes.bought - reference;
  const direction = outcome.fitFeedback === 'too_small' ? 1 : outcome.fitFeedback === 'too_large' ? -1 : null;
  if (outcome.type === 'item_kept') {
    return { kind: fromReference === 0 ? 'kept' : 'kept_after_override', steps: fromReference, at };
  }
  if (outcome.type === 'size_exchange' && sizes.exchangedTo !== null && sizes.exchangedTo !== sizes.bought) {
    return { kind: 'size_exchange', steps: sizes.exchangedTo - reference, at };
  }
  return {
    kind: outcome.type === 'size_exchange' ? 'size_exchange' : 'size_return',
    steps: direction === null ? null : fromReference + direction,
    at,
  };
}
