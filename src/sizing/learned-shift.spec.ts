import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { offsetNodes, shiftedChart } from './learned-shift.js';
import { recommend } from './recommend.js';
import { bodyChart } from '../../test/support/charts.js';
import type { Chart, RecommendInput } from './types.js';

/** Chest ranges 8 cm wide, waist ranges 6 cm wide. */
const CHART = bodyChart(
  ['chest', 'waist'],
  [
    ['S', 86, 94, 71, 77],
    ['M', 94, 102, 77, 83],
    ['L', 102, 110, 83, 89],
    ['XL', 110, 118, 89, 95],
  ],
);

/** A shopper who measured both zones, on CHART, with what outcomes taught (if anything). */
const measured = (chest: number, waist: number, learned?: RecommendInput['learned']) =>
  recommend({
    chart: CHART,
    zoneWeights: { chest: 1, waist: 1 },
    fitAdjustment: 'true_to_size',
    shopper: { measured: { chest, waist } },
    learned,
  });

describe('shiftedChart', () => {
  it('gives every size the ranges stated the offset’s sizes below it, down for a product that runs small', () => {
    const moved = shiftedChart(CHART, 0.5);
    expect(moved.sizes[1].measurements).toEqual({ chest: { min: 90, max: 98 }, waist: { min: 74, max: 80 } });
    expect(shiftedChart(CHART, 0)).toBe(CHART);
    const back = shiftedChart(shiftedChart(CHART, 1.3), -1.3);
    back.sizes.forEach((size, i) => expect(size.measurements.chest?.min).toBeCloseTo(CHART.sizes[i].measurements.chest?.min as number, 9));
  });

  it('moves each size by its own neighbours’ distance where ranges widen with size, and past the ends by the end size’s width', () => {
    const widening = bodyChart(
      ['waist'],
      [
        ['S', 60, 68],
        ['M', 68, 76],
        ['L', 76, 86],
        ['XL', 86, 100],
      ],
    );
    const waists = (chart: Chart) => chart.sizes.map((s) => [s.measurements.waist?.min, s.measurements.waist?.max]);
    expect(waists(shiftedChart(widening, 1))).toEqual([
      [52, 60],
      [60, 68],
      [68, 76],
      [76, 86],
    ]);
    expect(waists(shiftedChart(widening, -1))).toEqual([
      [68, 76],
      [76, 86],
      [86, 100],
      [100, 114],
    ]);
    expect(waists(shiftedChart(widening, 0.5))[2]).toEqual([72, 81]);
  });

  it('moves only the sizes that measure a zone, one size of the chart a step, also across a size that leaves it out', () => {
    const partial: Chart = {
      ...CHART,
      sizes: CHART.sizes.map((size, i) => (i === 1 ? { ...size, measurements: { chest: size.measurements.chest } } : size)),
    };
    const moved = shiftedChart(partial, 1);
    expect(moved.sizes[1].measurements).toEqual({ chest: { min: 86, max: 94 } });
    // one size below L is the M, which states no waist: halfway between the S's waist and the L's
    expect(moved.sizes[2].measurements.waist).toEqual({ min: 77, max: 83 });
    expect(moved.sizes[3].measurements.waist).toEqual({ min: 83, max: 89 });
    expect(shiftedChart(partial, 2).sizes[2].measurements.waist).toEqual({ min: 71, max: 77 });
    expect(shiftedChart(partial, -1).sizes[0].measurements.waist).toEqual({ min: 77, max: 83 });
  });
});

describe('offsetNodes', () => {
  it('weighs to 1, with the offset’s mean and variance', () => {
    fc.assert(
      fc.property(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: 0.001, max: 2, noNaN: true }), (steps, sd) => {
        const nodes = offsetNodes(steps, sd);
        const weight = nodes.reduce((a, n) => a + n.weight, 0);
        const mean = nodes.reduce((a, n) => a + n.weight * n.steps, 0);
        const variance = nodes.reduce((a, n) => a + n.weight * (n.steps - steps) ** 2, 0);
        expect(weight).toBeCloseTo(1, 12);
        expect(mean).toBeCloseTo(steps, 9);
        expect(variance).toBeCloseTo(sd * sd, 9);
      }),
    );
    expect(offsetNodes(0.4, 0)).toEqual([{ steps: 0.4, weight: 1 }]);
  });
});

describe('recommend with a learned offset', () => {
  it('moves the shoppers in the upper half of their size a size up for half a step, and not those in the lower half', () => {
    expect(measured(100, 81).sizeLabel).toBe('M');
    expect(measured(96, 78).sizeLabel).toBe('M');
    expect(measured(100, 81, { steps: 0.5, sd: 0 }).sizeLabel).toBe('L');
    expect(measured(96, 78, { steps: 0.5, sd: 0 }).sizeLabel).toBe('M');
    expect(measured(96, 78, { steps: -0.5, sd: 0 }).sizeLabel).toBe('S');
    expect(measured(96, 78, { steps: 1, sd: 0 }).sizeLabel).toBe('L');
  });

  it('says what the stated chart answered, and names the offset it used in the model version', () => {
    const plain = measured(100, 81);
    const learned = measured(100, 81, { steps: 0.5, sd: 0.1 });
    expect(plain.chartSizeLabel).toBe('M');
    expect(learned.chartSizeLabel).toBe('M');
    expect(learned.modelVersion).toBe(`${plain.modelVersion}+learned.0.50.0.10`);
    // her own part of the offset changes what her usual size means, so it is named too
    expect(measured(100, 81, { steps: 0.5, sd: 0.1, shopperSteps: 0.25 }).modelVersion).toBe(
      `${plain.modelVersion}+learned.0.50.0.10.shopper.0.25`,
    );
    expect(measured(100, 81, { steps: 0, sd: 0 })).toMatchObject({ sizeLabel: 'M', confidence: plain.confidence });
  });

  it('is less sure where the offset is less certain', () => {
    const sure = measured(100, 81, { steps: 0.5, sd: 0.05 });
    const unsure = measured(100, 81, { steps: 0.5, sd: 0.6 });
    expect(unsure.confidence).toBeLessThan(sure.confidence);
    expect(measured(100, 81, { steps: 0.5, sd: 0.6 })).toEqual(unsure);
  });
});
