import { describe, expect, it } from '@jest/globals';
import { evidenceOf, type Outcome, overrideEvidence, teachesFit } from './evidence-rules.js';

const at = new Date('2026-11-01T10:00:00Z');
const outcome = (type: string, fields: Partial<Outcome> = {}): Outcome => ({
  type,
  reason: null,
  fitFeedback: null,
  occurredAt: at,
  ...fields,
});
/** Positions in a chart of five sizes. */
const sizes = (bought: number | null, recommended: number | null = null, exchangedTo: number | null = null, count = 5) => ({
  bought,
  recommended,
  exchangedTo,
  count,
});

describe('evidenceOf', () => {
  it('reads a kept item as the shopper’s size, measured from what the chart recommended', () => {
    expect(evidenceOf(outcome('item_kept'), sizes(2, 2))).toEqual({ kind: 'kept', steps: 0, bought: 0, at });
    expect(evidenceOf(outcome('item_kept'), sizes(3, 2))).toEqual({ kind: 'kept_after_override', steps: 1, bought: 1, at });
    // bought without a session: the shopper's own choice is the reference
    expect(evidenceOf(outcome('item_kept'), sizes(3))).toEqual({ kind: 'kept', steps: 0, bought: 0, at });
  });

  it('reads the chart’s largest or smallest size kept as her size or beyond it', () => {
    expect(evidenceOf(outcome('item_kept'), sizes(5, 5))).toEqual({ kind: 'kept', steps: 0, bound: 'at_least', bought: 0, at });
    expect(evidenceOf(outcome('item_kept'), sizes(5, 4))).toEqual({
      kind: 'kept_after_override',
      steps: 1,
      bound: 'at_least',
      bought: 1,
      at,
    });
    expect(evidenceOf(outcome('item_kept'), sizes(1, 1))).toEqual({ kind: 'kept', steps: 0, bound: 'at_most', bought: 0, at });
    // a chart of one size shows nothing
    expect(evidenceOf(outcome('item_kept'), sizes(1, 1, null, 1))).toBeNull();
  });

  it('reads a return for size as the next size the way it says, or as a size problem with no direction', () => {
    const small = outcome('return_requested', { reason: 'size', fitFeedback: 'too_small' });
    expect(evidenceOf(small, sizes(2, 2))).toEqual({ kind: 'size_return', steps: 1, bought: 0, at });
    expect(evidenceOf(small, sizes(3, 2))).toEqual({ kind: 'size_return', steps: 2, bought: 1, at });
    expect(evidenceOf({ ...small, fitFeedback: 'too_large' }, sizes(2))).toEqual({ kind: 'size_return', steps: -1, bought: 0, at });
    expect(evidenceOf({ ...small, fitFeedback: null }, sizes(3, 2))).toEqual({ kind: 'size_return', steps: null, bought: 1, at });
  });

  it('reads an exchange by the way it went, to the next size or beyond, never by the distance to the size named', () => {
    const exchange = outcome('size_exchange', { reason: 'size' });
    // to the next size: that size, as a directed return
    expect(evidenceOf(exchange, sizes(3, 2, 2))).toEqual({ kind: 'size_exchange', steps: 0, bought: 1, at });
    // two sizes down, or ten: the next size down or beyond
    expect(evidenceOf(exchange, sizes(3, 2, 1))).toEqual({ kind: 'size_exchange', steps: 0, bound: 'at_most', bought: 1, at });
    expect(evidenceOf({ ...exchange, fitFeedback: 'too_small' }, sizes(2, null, 4, 12))).toEqual({
      kind: 'size_exchange',
      steps: 1,
      bound: 'at_least',
      bought: 0,
      at,
    });
    expect(evidenceOf({ ...exchange, fitFeedback: 'too_large' }, sizes(2))).toEqual({ kind: 'size_exchange', steps: -1, bought: 0, at });
    expect(evidenceOf(exchange, sizes(2))).toEqual({ kind: 'size_exchange', steps: null, bought: 0, at });
  });

  it('reads a decision bought in another size than the chart said as one step that way, however far', () => {
    expect(overrideEvidence({ chosen: 1, reference: 4 }, at)).toEqual({ kind: 'override', steps: -1, bought: -1, at });
    expect(overrideEvidence({ chosen: 3, reference: 2 }, at)).toEqual({ kind: 'override', steps: 1, bought: 1, at });
    expect(overrideEvidence({ chosen: 2, reference: 2 }, at)).toBeNull();
    expect(overrideEvidence({ chosen: null, reference: 2 }, at)).toBeNull();
  });

  it('learns nothing from other events, from returns for other reasons, or from a size the chart no longer has', () => {
    expect(evidenceOf(outcome('purchase'), sizes(2))).toBeNull();
    expect(evidenceOf(outcome('return_requested', { reason: 'other' }), sizes(2))).toBeNull();
    expect(evidenceOf(outcome('item_kept'), sizes(null, 2))).toBeNull();
    expect(teachesFit({ type: 'size_exchange', reason: 'other' })).toBe(false);
    expect(teachesFit({ type: 'item_kept', reason: null })).toBe(true);
  });
});
