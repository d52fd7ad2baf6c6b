import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { recommend } from './recommend.js';
import { bodyChart } from '../../../test/support/charts.js';
import { usualSizeIndex, withUsualSize } from './usual-size.js';

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

/** A shopper who measured her chest, naming the size she usually wears (or not), on a product running `steps` small. */
const shopper = (chest: number, usualSize?: string, steps?: number) =>
  recommend({
    chart: CHART,
    zoneWeights: { chest: 1 },
    fitAdjustment: 'true_to_size',
    shopper: { measured: { chest }, usualSize },
    learned: steps === undefined ? undefined : { steps, sd: 0 },
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
    expect(shopper(101.5, 'l').chartSizeLabel).toBe('L');
    expect(shopper(96, 'L').sizeLabel).toBe('M');
    expect(shopper(101.5, 'M').confidence).toBeGreaterThan(plain.confidence);
    expect(shopper(101.5, '40')).toEqual(plain);
  });

  it('reads her usual M as an L on a product that runs a size small', () => {
    expect(shopper(101.5, 'M', 1).sizeLabel).toBe('L');
    expect(shopper(101.5, 'M', 1).chartSizeLabel).toBe('M');
  });
});
