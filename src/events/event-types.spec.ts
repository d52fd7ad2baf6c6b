import { describe, expect, it } from '@jest/globals';
import {
  BUYING_TYPES,
  EVENT_TYPES,
  INTEGRATION_EVENT_TYPES,
  lineOutcome,
  NEW_SIZE_TYPES,
  ORDER_OUTCOME_TYPES,
  REASON_TYPES,
  SERVICE_EVENT_TYPES,
  sqlOutcome,
} from './event-types.js';

describe('the table of event types', () => {
  it('gives the lists the rules read', () => {
    expect([...SERVICE_EVENT_TYPES, ...INTEGRATION_EVENT_TYPES]).toEqual(EVENT_TYPES);
    expect(ORDER_OUTCOME_TYPES).toEqual(['purchase', 'return_requested', 'size_exchange', 'item_kept']);
    expect(REASON_TYPES).toEqual(['return_requested', 'size_exchange']);
    expect(BUYING_TYPES).toEqual(['purchase']);
    expect(NEW_SIZE_TYPES).toEqual(['size_exchange']);
  });

  it('says which outcome of its line an event sets: kept, or returned or exchanged for size', () => {
    expect(lineOutcome({ type: 'item_kept', reason: null })).toBe('kept_at');
    expect(lineOutcome({ type: 'return_requested', reason: 'size' })).toBe('size_returned_at');
    expect(lineOutcome({ type: 'size_exchange', reason: 'size' })).toBe('size_exchanged_at');
    expect(lineOutcome({ type: 'return_requested', reason: 'other' })).toBeNull();
    expect(lineOutcome({ type: 'purchase', reason: null })).toBeNull();
    expect(lineOutcome({ type: 'no_such_type', reason: 'size' })).toBeNull();
  });

  it('writes the same rule as SQL', () => {
    expect(sqlOutcome('kept_at')).toBe("(e.type IN ('item_kept'))");
    expect(sqlOutcome('size_returned_at', 'x')).toBe("((x.type IN ('return_requested') AND x.reason = 'size'))");
  });
});
