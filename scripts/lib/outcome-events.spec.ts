import { describe, expect, it } from '@jest/globals';
import { importLine, lineEvents, type LineOf, outcomeOf, refusalKey } from './outcome-events.js';

const line: LineOf = {
  key: 'h7',
  productId: 'p',
  variantId: 'v',
  shopperRef: 'u1',
  verdict: 'small',
  purchasedAt: new Date('2026-01-02T00:00:00Z'),
  outcomeAt: new Date('2026-01-02T12:00:00Z'),
};

describe('a rental as an order line', () => {
  it('reads the verdict as an outcome: kept, or returned for size in the direction she said', () => {
    expect(outcomeOf('fit')).toEqual({ type: 'item_kept' });
    expect(outcomeOf('small')).toEqual({ type: 'return_requested', reason: 'size', fit_feedback: 'too_small' });
    expect(outcomeOf('large')).toEqual({ type: 'return_requested', reason: 'size', fit_feedback: 'too_large' });
  });

  it('sends a purchase (naming its session when it has one) and the outcome, on one order line', () => {
    const [purchase, outcome] = lineEvents({ ...line, sessionId: 's' });
    expect(purchase).toEqual({
      source: 'rtr-replay',
      external_id: 'h7/purchase',
      type: 'purchase',
      product_id: 'p',
      variant_id: 'v',
      order_id: 'order-h7',
      line_item_id: 'line-h7',
      occurred_at: '2026-01-02T00:00:00.000Z',
      session_id: 's',
    });
    expect(outcome).toMatchObject({ external_id: 'h7/outcome', type: 'return_requested', fit_feedback: 'too_small', order_id: 'order-h7' });
    expect(outcome.occurred_at).toBe('2026-01-02T12:00:00.000Z');
    expect(lineEvents(line)[0]).not.toHaveProperty('session_id');
  });

  it('imports the same line with its shopper', () => {
    expect(importLine({ ...line, verdict: 'fit' })).toEqual({
      order_id: 'order-h7',
      line_item_id: 'line-h7',
      product_id: 'p',
      variant_id: 'v',
      shopper_ref: 'u1',
      purchased_at: '2026-01-02T00:00:00.000Z',
      outcome: { type: 'item_kept', occurred_at: '2026-01-02T12:00:00.000Z' },
    });
  });

  it('names a refusal by its first field error', () => {
    expect(refusalKey({ status: 201 })).toBe('201');
    expect(refusalKey({ status: 400, error: { code: 'validation_failed', errors: [{ field: 'occurred_at', code: 'too_old' }] } })).toBe(
      '400 occurred_at too_old',
    );
    expect(refusalKey({ status: 409, error: { code: 'event_conflict' } })).toBe('409 event_conflict');
  });
});
