import { lineOutcome } from '../events/event-types.js';
import type { Evidence } from '../sizing/learning.js';

/** What an outcome says about sizes, as positions in its product's chart (1 = the smallest; null: not in the chart). */
interface OutcomeSizes {
  /** The size bought: the event's variant. */
  readonly bought: number | null;
  /** The size exchanged to, on a size exchange that names it. */
  readonly exchangedTo: number | null;
  /** The size the chart recommended, when the line was bought after a fit session that recommended one. */
  readonly recommended: number | null;
  /** How many sizes the chart has. */
  readonly count: number;
}

/** The fields of a stored event that decide what it teaches. */
export interface Outcome {
  readonly type: string;
  readonly reason: string | null;
  readonly fitFeedback: string | null;
  readonly occurredAt: Date;
}

/** Whether an event can teach anything about fit: the outcomes of a line (kept items, returns and exchanges for size). */
export const teachesFit = (event: Pick<Outcome, 'type' | 'reason'>): boolean => lineOutcome(event) !== null;

/**
 * The evidence an outcome gives, in size steps from the chart's own answer. The reference is the size the chart
 * recommended when the line came from a fit session; otherwise the size the shopper chose herself, which is what a
 * shopper reading the chart would choose. A kept size says her size was the one bought, or, in the chart's largest or
 * smallest size, that it lay there or beyond (no size could show more); an exchange to a named size says which way
 * and no more, as a directed return does (the next size that way; named two or more sizes off, the next size or
 * beyond, never the raw distance, which one forged event could make ten sizes); a return or exchange for size that
 * says which way (`fit_feedback`) says it was the next size that way (most size problems are one size off, and
 * reading them so validates better on RentTheRunway than "a step or more"); one that says neither is a size problem
 * with no direction. `null` when the outcome teaches nothing (or names a size the
 * product's chart no longer has, or the chart has one size).
 */
export function evidenceOf(outcome: Outcome, sizes: OutcomeSizes): Evidence | null {
  const set = lineOutcome(outcome);
  if (set === null || sizes.bought === null || sizes.count < 2) return null;
  const at = outcome.occurredAt;
  const reference = sizes.recommended ?? sizes.bought;
  const bought = sizes.bought - reference;
  const direction = outcome.fitFeedback === 'too_small' ? 1 : outcome.fitFeedback === 'too_large' ? -1 : null;
  if (set === 'kept_at') {
    const kind = bought === 0 ? 'kept' : 'kept_after_override';
    const edge = sizes.bought === sizes.count ? 'at_least' : sizes.bought === 1 ? 'at_most' : undefined;
    return edge ? { kind, steps: bought, bound: edge, bought, at } : { kind, steps: bought, bought, at };
  }
  if (set === 'size_exchanged_at' && sizes.exchangedTo !== null && sizes.exchangedTo !== sizes.bought) {
    // the size named says which way, and no more than a directed return does: the next size that way, or, named
    // further off, that her size lay there or beyond (a bound, as for the largest size kept)
    const way = Math.sign(sizes.exchangedTo - sizes.bought);
    if (Math.abs(sizes.exchangedTo - sizes.bought) === 1) return { kind: 'size_exchange', steps: bought + way, bought, at };
    return { kind: 'size_exchange', steps: bought + way, bound: way > 0 ? 'at_least' : 'at_most', bought, at };
  }
  const kind = set === 'size_exchanged_at' ? 'size_exchange' : 'size_return';
  if (direction === null) return { kind, steps: null, bought, at };
  return { kind, steps: bought + direction, bought, at };
}

/**
 * What a fit session's decision for another size than the stated chart's answer says, once the line bought after it is
 * in that size: a direction, one step that way, weighed as an override (learning.ts). `null` when it says nothing (the
 * chart's own answer chosen, or a size the chart no longer has).
 */
export function overrideEvidence(positions: { chosen: number | null; reference: number | null }, at: Date): Evidence | null {
  const { chosen, reference } = positions;
  if (chosen === null || reference === null || chosen === reference) return null;
  const way = Math.sign(chosen - reference);
  return { kind: 'override', steps: way, bought: way, at };
}
