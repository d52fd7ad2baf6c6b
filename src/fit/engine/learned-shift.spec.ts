import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { shiftProbabilities } from './learned-shift.js';

const distribution = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 })
  .filter((xs) => xs.reduce((a, b) => a + b, 0) > 1e-6)
  .map((xs) => {
    const total = xs.reduce((a, b) => a + b, 0);
    return xs.map((x) => x / total);
  });
const mean = (p: readonly number[]) => p.reduce((sum, x, i) => sum + x * i, 0);
/** Equal to the last bits that sums of floating-point numbers leave. */
const same = (actual: readonly number[], expected: readonly number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((x, i) => expect(x).toBeCloseTo(expected[i], 12));
};
/** The normal CDF the shift uses is exact to 1.5e-7 per size, so a mean over eight sizes to about 1e-5. */
const SLACK = 1e-5;

describe('shiftProbabilities', () => {
  it('keeps the total, and every probability between 0 and 1', () => {
    fc.assert(
      fc.property(distribution, fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: 0, max: 2, noNaN: true }), (p, steps, sd) => {
        const shifted = shiftProbabilities(p, steps, sd);
        expect(shifted.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
        for (const x of shifted) expect(x).toBeGreaterThanOrEqual(-1e-12);
      }),
    );
  });

  it('changes nothing with no offset known exactly, and moves a known offset by whole sizes, the ends taking the overflow', () => {
    same(shiftProbabilities([0.1, 0.7, 0.2, 0], 0, 0), [0.1, 0.7, 0.2, 0]);
    same(shiftProbabilities([0.1, 0.7, 0.2, 0], 1, 0), [0, 0.1, 0.7, 0.2]);
    same(shiftProbabilities([0.1, 0.7, 0.2, 0], -1, 0), [0.8, 0.2, 0, 0]);
    same(shiftProbabilities([0, 0.5, 0.5], 5, 0), [0, 0, 1]);
    same(shiftProbabilities([1], 2, 0.5), [1]);
  });

  it('moves the expected size the way of the offset, further for a larger offset (away from the ends)', () => {
    // at an end the shift can only go one way, so the sizes are padded with empty ones further than any offset reaches
    const padded = distribution.map((p) => [...Array(6).fill(0), ...p, ...Array(6).fill(0)]);
    fc.assert(
      fc.property(padded, fc.double({ min: 0.05, max: 2, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (p, steps, sd) => {
        expect(mean(shiftProbabilities(p, steps, sd))).toBeGreaterThanOrEqual(mean(p) - SLACK);
        expect(mean(shiftProbabilities(p, -steps, sd))).toBeLessThanOrEqual(mean(p) + SLACK);
        expect(mean(shiftProbabilities(p, steps + 0.5, sd))).toBeGreaterThanOrEqual(mean(shiftProbabilities(p, steps, sd)) - SLACK);
      }),
    );
  });

  it('is less sure of any size when the offset is less certain', () => {
    const p = [0, 0, 1, 0, 0];
    const sharp = Math.max(...shiftProbabilities(p, 0.3, 0.1));
    const vague = Math.max(...shiftProbabilities(p, 0.3, 0.8));
    expect(vague).toBeLessThan(sharp);
    expect(shiftProbabilities(p, 0.3, 0.8)).toEqual(shiftProbabilities(p, 0.3, 0.8));
  });
});
