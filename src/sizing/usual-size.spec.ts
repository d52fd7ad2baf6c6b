import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { recommend, sizeProbabilities } from './recommend.js';
import { shiftedChart } from './learned-shift.js';
import { bodyChart } from '../../test/support/charts.js';
import { usualSizeIndex, withUsualSize } from './usual-size.js';
import type { LearnedShift } from './types.js';

/** Chest ranges 8 cm wide. */
const CHART = bodyChart(
  ['chest'],
  [
    ['S', 86, 94],
    ['M', 94, 102],
    ['L', 102, 110],
    ['XL', 110, 118],
  ],
);

/**
 * A shopper who measured her chest, naming the size she usually wears (or not), on a product running `steps` small
 * (or with what outcomes taught, given whole).
 */
const shopper = (chest: number, usualSize?: string, steps?: number | LearnedShift) =>
  recommend({
    chart: CHART,
    zoneWeights: { chest: 1 },
    fitAdjustment: 'true_to_size',
    shopper: { measured: { chest }, usualSize },
    learned: steps === undefined ? undefined : typeof steps === 'number' ? { steps, sd: 0 } : steps,
  });

describe('the size she usually wears', () => {
  it('is found among the chart’s labels whatever its case and spaces, and only there', () => {
    expect(usualSizeIndex(['S', 'M', 'L'], ' m ')).toBe(1);
    expect(usualSizeIndex(['S', 'M', 'L'], 'XL')).toBe(-1);
    expect(usualSizeIndex(['S', 'M', 'L'], undefined)).toBe(-1);
  });

  it('weighs the sizes towards it and keeps them a distribution', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 2, maxLength: 8 }), fc.nat(7), (raw, at) => {
        const total = raw.reduce((a, b) => a + b, 0);
        fc.pre(total > 0 && at < raw.length);
        const p = raw.map((x) => x / total);
        const weighed = withUsualSize(p, at);
        expect(weighed.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
        // the named size gains against every other size
        p.forEach((x, s) => {
          if (s !== at && x > 0 && p[at] > 0) expect(weighed[at] / weighed[s]).toBeGreaterThanOrEqual(p[at] / x - 1e-12);
        });
      }),
    );
  });

  it('moves a shopper near a boundary to the size she names, and not one it would have to move far', () => {
    const plain = shopper(101.5);
    expect(plain.sizeLabel).toBe('M');
    expect(shopper(101.5, 'l').sizeLabel).toBe('L');
    // the stated chart's answer is for her body alone: what outcomes are measured from
    expect(shopper(101.5, 'l').chartSizeLabel).toBe('M');
    expect(shopper(96, 'L').sizeLabel).toBe('M');
    expect(shopper(101.5, 'M').confidence).toBeGreaterThan(plain.confidence);
    expect(shopper(101.5, '40')).toEqual(plain);
  });

  it('leaves the stated chart’s answer to her body alone, whatever size she names and whatever was learned', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 800, max: 1250 }).map((mm) => mm / 10),
        fc.constantFrom('S', 'M', 'L', 'XL'),
        fc.integer({ min: -150, max: 150 }).map((c) => c / 100),
        (chest, usual, steps) => {
          const body = shopper(chest).sizeLabel;
          expect(shopper(chest, usual).chartSizeLabel).toBe(body);
          expect(shopper(chest, usual, steps).chartSizeLabel).toBe(body);
        },
      ),
    );
  });

  it('reads her usual M as an L on a product that runs a size small', () => {
    expect(shopper(101.5, 'M', 1).sizeLabel).toBe('L');
    expect(shopper(101.5, 'M', 1).chartSizeLabel).toBe('M');
  });

  it('is read at how the product runs, not again at her own learned offset, which moves her body only', () => {
    // a returning shopper who keeps a size up on a true-to-size product: the chart moves a step for her body, and the
    // L she names is an L (her own preference is already in it), not an XL
    const own: LearnedShift = { steps: 1, sd: 0, shopperSteps: 1 };
    const body = sizeProbabilities({
      chart: shiftedChart(CHART, 1),
      zoneWeights: { chest: 1 },
      fitAdjustment: 'true_to_size',
      shopper: { measured: { chest: 101.5 } },
    }).map((s) => s.probability);
    const expected = withUsualSize(body, 2);
    const r = shopper(101.5, 'L', own);
    expect(r.sizeLabel).toBe('L');
    expect(r.confidence).toBeCloseTo(expected[2], 3);
    for (const a of r.alternatives) expect(a.confidence).toBeCloseTo(expected[['S', 'M', 'L', 'XL'].indexOf(a.sizeLabel)], 3);
    // centred at XL, the double count, XL would take far more than this
    expect(r.alternatives.find((a) => a.sizeLabel === 'XL')?.confidence ?? 0).toBeLessThan(0.3);
    // half of it the product's, half hers: the named size moves by the product's half only
    const split = shopper(101.5, 'L', { steps: 1, sd: 0, shopperSteps: 0.5 });
    const halfExpected = withUsualSize(body, 2.5);
    expect(split.confidence).toBeCloseTo(halfExpected[['S', 'M', 'L', 'XL'].indexOf(split.sizeLabel)], 3);
    // for anyone else the whole offset is the product's
    const product = shopper(101.5, 'L', 1);
    expect(product.confidence).toBeCloseTo(withUsualSize(body, 3)[['S', 'M', 'L', 'XL'].indexOf(product.sizeLabel)], 3);
  });
});
