import { describe, expect, it } from '@jest/globals';
import { accuracyDifference, score } from './sim-metrics.js';

describe('simulation scores', () => {
  it('scores exact sizes and calibration', () => {
    const s = score([
      { truth: 2, predicted: 2, confidence: 0.55 },
      { truth: 2, predicted: 3, confidence: 0.55 },
    ]);
    expect(s).toMatchObject({ n: 2, exact: 0.5, meanConfidence: 0.55 });
    expect(s.ece).toBeCloseTo(0.05, 12);
  });

  it('states no calibration for an engine without confidence', () => {
    const s = score([{ truth: 1, predicted: 1, confidence: NaN }]);
    expect(s.exact).toBe(1);
    expect(s.ece).toBeNaN();
  });

  it('compares two engines on the same shoppers', () => {
    const a = [1, 1, 1, 0].map((hit) => ({ truth: 1, predicted: hit ? 1 : 0, confidence: 0.5 }));
    const b = [1, 0, 0, 0].map((hit) => ({ truth: 1, predicted: hit ? 1 : 0, confidence: 0.5 }));
    const d = accuracyDifference(a, b);
    expect(d.difference).toBeCloseTo(0.5, 12);
    // differences 0, 1, 1, 0: sample variance 1/3, standard error √(1/12)
    expect(d.se).toBeCloseTo(Math.sqrt(1 / 12), 12);
    expect(() => accuracyDifference(a, b.slice(1))).toThrow(RangeError);
  });
});
