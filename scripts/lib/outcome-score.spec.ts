import { describe, expect, it } from '@jest/globals';
import {
  answerFigures,
  modelFigures,
  observedShares,
  offsetAuc,
  quantile,
  sizeDistribution,
  UNLISTED_FLOOR,
  verdictsAt,
} from './outcome-score.js';

const LABELS = ['S', 'M', 'L', 'XL'];

describe('the size distribution an answer publishes', () => {
  it('keeps the sizes listed and shares the rest equally among the others', () => {
    const p = sizeDistribution(LABELS, [
      { label: 'M', p: 0.6 },
      { label: 'L', p: 0.2 },
    ]);
    [0.1, 0.6, 0.2, 0.1].forEach((x, i) => expect(p[i]).toBeCloseTo(x, 12));
  });

  it('gives a size not listed at least the floor, then normalises', () => {
    const p = sizeDistribution(LABELS, [
      { label: 'M', p: 0.7 },
      { label: 'L', p: 0.3 },
    ]);
    const total = 1 + 2 * UNLISTED_FLOOR;
    expect(p[0]).toBeCloseTo(UNLISTED_FLOOR / total, 12);
    expect(p[1]).toBeCloseTo(0.7 / total, 12);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('refuses a size the chart does not have', () => {
    expect(() => sizeDistribution(LABELS, [{ label: 'XXL', p: 1 }])).toThrow(RangeError);
  });

  it('reads the verdicts at the size rented: too small above it, a fit at it, too large below', () => {
    const [small, fit, large] = verdictsAt([0.1, 0.2, 0.3, 0.4], 1);
    expect(small).toBeCloseTo(0.7, 12);
    expect(fit).toBeCloseTo(0.2, 12);
    expect(large).toBeCloseTo(0.1, 12);
    const first = verdictsAt([0.1, 0.2, 0.3, 0.4], 0);
    expect(first[0]).toBeCloseTo(0.9, 12);
    expect(first.slice(1)).toEqual([0.1, 0]);
  });
});

describe('figures', () => {
  it('scores verdict probabilities, with the calibration of P(fit) and the mean of each verdict', () => {
    const predicted = [
      [0.1, 0.8, 0.1],
      [0.6, 0.3, 0.1],
      [0.1, 0.3, 0.6],
      [0.2, 0.7, 0.1],
    ] as const;
    const f = modelFigures(predicted, ['fit', 'small', 'large', 'small']);
    expect(f.n).toBe(4);
    expect(f.accuracy).toBeCloseTo(0.75, 12);
    expect(f.auc).toBeCloseTo((1 + 1 + 1) / 3, 12);
    expect(f.meanSmall).toBeCloseTo(0.25, 12);
    expect(f.meanFit).toBeCloseTo(0.525, 12);
    expect(f.meanLarge).toBeCloseTo(0.225, 12);
    // P(fit) bins: 0.3 (two rows, no fit), 0.7 (no fit), 0.8 (a fit)
    expect(f.eceFit).toBeCloseTo((2 / 4) * 0.3 + (1 / 4) * 0.7 + (1 / 4) * 0.2, 12);
  });

  it('counts observed shares and the answer’s own figures', () => {
    expect(observedShares(['fit', 'fit', 'small', 'large'])).toEqual({ small: 0.25, fit: 0.5, large: 0.25 });
    const a = answerFigures(
      [
        { confidence: 0.9, rentedRecommended: true },
        { confidence: 0.9, rentedRecommended: true },
        { confidence: 0.5, rentedRecommended: false },
        { confidence: 0.5, rentedRecommended: true },
      ],
      ['fit', 'small', 'fit', 'fit'],
    );
    expect(a.rentedRecommended).toBeCloseTo(0.75, 12);
    expect(a.recommendedAndFit).toBeCloseTo(0.5, 12);
    expect(a.meanConfidence).toBeCloseTo(0.7, 12);
    expect(a.eceConfidence).toBeCloseTo(0.5 * 0.4 + 0.5 * 0, 12);
  });

  it('ranks verdicts by a learned offset: small up, large down, fit near zero', () => {
    expect(offsetAuc([1, 0, -1], ['small', 'fit', 'large'])).toBe(1);
    expect(offsetAuc([-1, 0, 1], ['small', 'fit', 'large'])).toBeCloseTo((0 + 1 + 0) / 3, 12);
  });

  it('interpolates quantiles', () => {
    expect(quantile([4, 1, 3, 2], 0.5)).toBeCloseTo(2.5, 12);
    expect(quantile([1, 2, 3, 4, 5], 0.99)).toBeCloseTo(4.96, 12);
    expect(quantile([], 0.5)).toBeNaN();
  });
});
