import { describe, expect, it } from '@jest/globals';
import { oneStandardErrorChoice, pairedDifference } from './rtr-search.js';

const losses = (xs: number[]) => ({ losses: Float64Array.from(xs) });

describe('one-standard-error rule', () => {
  it('computes the paired difference and its standard error', () => {
    const d = pairedDifference(Float64Array.from([1, 2, 3, 4]), Float64Array.from([1, 1, 1, 1]));
    expect(d.mean).toBeCloseTo(1.5, 12);
    // differences 0, 1, 2, 3: sample variance 5/3, standard error √(5/12)
    expect(d.standardError).toBeCloseTo(Math.sqrt(5 / 12), 12);
  });

  it('takes the most preferred candidate within one standard error of the best, else the best', () => {
    const best = losses([0.5, 0.6, 0.4, 0.5]);
    const noisyTie = losses([0.6, 0.5, 0.45, 0.5]);
    const clearlyWorse = losses([0.9, 1.0, 0.8, 0.9]);
    expect(oneStandardErrorChoice([clearlyWorse, noisyTie, best], [0, 1, 2])).toBe(1);
    expect(oneStandardErrorChoice([clearlyWorse, best], [0, 1])).toBe(1);
    expect(oneStandardErrorChoice([best, noisyTie], [1, 0])).toBe(1);
  });
});
