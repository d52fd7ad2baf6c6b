import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { hazard, upperTail } from './normal.js';

describe('the standard normal', () => {
  it('has the tail probabilities of the tables', () => {
    for (const [x, q] of [
      [0, 0.5],
      [1, 0.158655254],
      [1.959964, 0.025],
      [-1, 0.841344746],
      [3, 0.001349898],
      [6, 9.865876e-10],
    ]) {
      expect(Math.abs(upperTail(x) - q) / q).toBeLessThan(2e-7);
    }
  });

  it('has a hazard that is φ / (1 − Φ), finite far out, and tends to x', () => {
    expect(hazard(0)).toBeCloseTo(Math.sqrt(2 / Math.PI), 6);
    expect(hazard(-1)).toBeCloseTo(0.2419707 / 0.8413447, 6);
    expect(hazard(2)).toBeCloseTo(0.05399097 / 0.02275013, 5);
    expect(hazard(40)).toBeGreaterThan(40);
    expect(hazard(40)).toBeLessThan(40.03);
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), fc.double({ min: 1e-3, max: 5, noNaN: true }), (x, d) => {
        expect(Number.isFinite(hazard(x))).toBe(true);
        // the mean beyond x lies beyond x, and moves out with x
        expect(hazard(x)).toBeGreaterThan(x);
        expect(hazard(x + d)).toBeGreaterThan(hazard(x));
      }),
    );
  });
});
