import { describe, expect, it } from '@jest/globals';
import { BEHAVIOUR, chooseSize, outcomeOf, shuffled, staysSilent } from './sim-shopper.js';

/** A random stream that returns `values` in turn. */
const stream = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length];
};

describe('a simulated shopper', () => {
  it('follows the recommendation unless she overrides it', () => {
    expect(chooseSize(3, 5, 8, stream(BEHAVIOUR.override))).toBe(3);
  });

  it('overrides by one size, towards her fit or away from it', () => {
    expect(chooseSize(3, 5, 8, stream(0, 0))).toBe(4);
    expect(chooseSize(3, 1, 8, stream(0, 0))).toBe(2);
    expect(chooseSize(3, 5, 8, stream(0, 0.99))).toBe(2);
  });

  it('stays within the chart when overriding at its ends', () => {
    expect(chooseSize(0, 0, 8, stream(0, 0.9, 0))).toBe(1);
    expect(chooseSize(7, 7, 8, stream(0, 0.1, 0))).toBe(6);
  });

  it('keeps the size that fits, and sends back one that does not with what she says', () => {
    expect(outcomeOf(4, 4, stream(0))).toEqual({ kind: 'kept' });
    expect(outcomeOf(3, 4, stream(0, 0.99))).toEqual({ kind: 'return', feedback: 'too_small' });
    expect(outcomeOf(5, 4, stream(0.99, 0.99))).toEqual({ kind: 'return', feedback: null });
    expect(outcomeOf(5, 4, stream(0, 0, 0))).toEqual({ kind: 'exchange', feedback: 'too_large', newSize: 4 });
    expect(outcomeOf(3, 4, stream(0.99, 0, 0.99))).toEqual({ kind: 'exchange', feedback: null, newSize: null });
  });

  it('sometimes never reports', () => {
    expect(staysSilent(stream(0))).toBe(true);
    expect(staysSilent(stream(BEHAVIOUR.silent))).toBe(false);
  });

  it('shuffles into a permutation, the same for the same stream', () => {
    const items = [1, 2, 3, 4, 5, 6];
    const a = shuffled(items, stream(0.3, 0.7, 0.1, 0.9, 0.5));
    expect([...a].sort()).toEqual(items);
    expect(shuffled(items, stream(0.3, 0.7, 0.1, 0.9, 0.5))).toEqual(a);
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
