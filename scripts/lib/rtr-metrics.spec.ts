import { describe, expect, it } from '@jest/globals';
import { auc, rowLogLosses, scoreVerdicts } from './rtr-metrics.js';

describe('verdict scores', () => {
  it('computes AUC as the share of positive–negative pairs ranked right, ties counting half', () => {
    expect(auc([0.1, 0.4, 0.35, 0.8], [false, false, true, true])).toBeCloseTo(0.75, 12);
    expect(auc([1, 2, 3], [false, true, true])).toBe(1);
    expect(auc([3, 2, 1], [false, true, true])).toBe(0);
    expect(auc([0.5, 0.5, 0.5, 0.5], [true, false, true, false])).toBe(0.5);
    expect(auc([1, 2], [true, true])).toBeNaN();
  });

  it('scores accuracy, calibration and log loss of the most probable verdict', () => {
    const predicted = [
      [0.7, 0.2, 0.1],
      [0.1, 0.8, 0.1],
      [0.2, 0.2, 0.6],
      [0.1, 0.6, 0.3],
    ] as const;
    const s = scoreVerdicts(predicted, ['small', 'fit', 'large', 'large']);
    expect(s.n).toBe(4);
    expect(s.accuracy).toBeCloseTo(0.75, 12);
    expect(s.logLoss).toBeCloseTo(-(Math.log(0.7) + Math.log(0.8) + Math.log(0.6) + Math.log(0.3)) / 4, 12);
    expect(s.aucByVerdict.small).toBe(1);
    expect(s.aucByVerdict.large).toBe(1);
    expect(s.auc).toBeCloseTo((1 + 1 + s.aucByVerdict.fit) / 3, 12);
    // bins 0.6–0.7 (two rows, one hit, mean conf. 0.6), 0.7–0.8 (hit, 0.7), 0.8–0.9 (hit, 0.8)
    expect(s.ece).toBeCloseTo((2 / 4) * Math.abs(0.5 - 0.6) + (1 / 4) * 0.3 + (1 / 4) * 0.2, 12);
    expect(Array.from(rowLogLosses(predicted, ['fit', 'fit', 'fit', 'fit']))).toEqual([0.2, 0.8, 0.2, 0.6].map((p) => -Math.log(p)));
  });
});
