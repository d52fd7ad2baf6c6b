import { describe, expect, it } from '@jest/globals';
import { SIZE_LABELS, STATED_CHART, trueChart, trueSize } from './sim-chart.js';

const waist = (chart: typeof STATED_CHART, i: number) => chart.sizes[i].measurements.waist!;

describe('the simulation charts', () => {
  it('leaves the stated chart as it is with no offset', () => {
    expect(trueChart(STATED_CHART, 0)).toEqual(STATED_CHART);
  });

  it('moves every boundary down by whole sizes for a product that runs small', () => {
    const small = trueChart(STATED_CHART, 1);
    for (let i = 1; i < SIZE_LABELS.length; i++) expect(waist(small, i)).toEqual(waist(STATED_CHART, i - 1));
    // past the smallest size, along its width
    expect(waist(small, 0)).toEqual({ min: 52, max: 60 });
  });

  it('moves boundaries halfway between sizes for half a step, up for a product that runs large', () => {
    const large = trueChart(STATED_CHART, -0.5);
    expect(waist(large, 0)).toEqual({ min: 64, max: 72 });
    expect(waist(large, 3)).toEqual({ min: 89, max: 99 });
    // past the largest size, along its width (14 cm)
    expect(waist(large, 7)).toEqual({ min: 135, max: 149 });
  });

  it('gives a body a size up on a product that runs a size small, a size down on one that runs a size large', () => {
    const body = { waistCm: 80, hipCm: 104 };
    const stated = trueSize(STATED_CHART, body);
    expect(SIZE_LABELS[stated]).toBe('M');
    expect(trueSize(trueChart(STATED_CHART, 1), body)).toBe(stated + 1);
    expect(trueSize(trueChart(STATED_CHART, -1), body)).toBe(stated - 1);
  });
});
