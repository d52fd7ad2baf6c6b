import { describe, expect, it } from '@jest/globals';
import type { Rental } from './rtr.js';
import {
  bustCm,
  byDay,
  chestChart,
  commonSizes,
  DAY_MS,
  dateShift,
  interpolatedMedian,
  isotonic,
  nearestSize,
  rentalAnswers,
  splitAt,
} from './outcome-data.js';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

const rental = (over: Partial<Rental>): Rental => ({
  verdict: 'fit',
  userId: 'u1',
  itemId: 'i1',
  category: 'dress',
  size: 8,
  weightLbs: 130,
  heightIn: 65,
  age: 30,
  bustBand: 34,
  cup: 3,
  bodyType: null,
  at: day('2016-05-01'),
  ...over,
});

describe('the replay’s calendar', () => {
  it('splits at the first held-out day and groups rentals by day', () => {
    const rs = [
      rental({ at: day('2016-12-31') }),
      rental({ at: day('2017-01-01') }),
      rental({ at: day('2017-01-01') }),
      rental({ at: day('2017-01-03') }),
    ];
    const { history, heldOut } = splitAt(rs, day('2017-01-01'));
    expect(history).toHaveLength(1);
    expect(heldOut).toHaveLength(3);
    expect(byDay(heldOut).map((d) => d.length)).toEqual([2, 1]);
  });

  it('moves dates by whole days so that the last day becomes today', () => {
    const now = Date.parse('2026-11-28T15:30:00Z');
    const shift = dateShift(day('2017-06-30'), now);
    expect(shift % DAY_MS).toBe(0);
    expect(new Date(day('2017-06-30') + shift).toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(new Date(day('2017-06-29') + shift).toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });
});

describe('sizes and the chest chart', () => {
  it('takes the most common sizes, sorted, and maps others to the nearest (ties to the smaller)', () => {
    const rs = [4, 4, 4, 8, 8, 12, 12, 12, 1, 20].map((size) => rental({ size }));
    expect(commonSizes(rs, 3)).toEqual([4, 8, 12]);
    expect(nearestSize([4, 8, 12], 6)).toBe(0);
    expect(nearestSize([4, 8, 12], 7)).toBe(1);
    expect(nearestSize([4, 8, 12], 30)).toBe(2);
    expect(nearestSize([4, 8, 12], 0)).toBe(0);
  });

  it('reads the bust from the bra size: band + cup (a = 1, aa = 0.5) inches', () => {
    expect(bustCm(34, 3)).toBeCloseTo(37 * 2.54, 10); // 34c
    expect(bustCm(32, 0)).toBeCloseTo(32.5 * 2.54, 10); // 32aa
    expect(bustCm(34, null)).toBeNull();
    expect(bustCm(12, 2)).toBeNull();
  });

  it('interpolates the median of whole-inch values', () => {
    // 36 holds the middle: 2 values below, 4 at it; n/2 = 4 → 35.5 + (4 − 2)/4
    expect(interpolatedMedian([35, 35, 36, 36, 36, 36, 37, 38], 1)).toBeCloseTo(36, 12);
    expect(interpolatedMedian([35, 36, 36, 36, 37, 37, 37, 37], 1)).toBeCloseTo(35.5 + (4 - 1) / 3, 12);
    expect(interpolatedMedian([36], 1)).toBeCloseTo(36, 12);
  });

  it('pools adjacent violators into a non-decreasing sequence', () => {
    expect(isotonic([1, 3, 2, 4], [1, 1, 1, 1])).toEqual([1, 2.5, 2.5, 4]);
    expect(isotonic([1, 3, 2, 4], [1, 3, 1, 1])).toEqual([1, 2.75, 2.75, 4]);
    expect(isotonic([3, 2, 1], [1, 1, 1])).toEqual([2, 2, 2]);
  });

  it('centres each size on its fitting rentals’ bust, with boundaries halfway and ends extended', () => {
    const rs = [
      ...[32, 32, 32].map((bustBand) => rental({ size: 4, bustBand, cup: 2 })), // 34 in
      ...[34, 34, 34].map((bustBand) => rental({ size: 8, bustBand, cup: 2 })), // 36 in
      ...[36, 36, 36].map((bustBand) => rental({ size: 12, bustBand, cup: 2 })), // 38 in
      rental({ size: 8, bustBand: 44, cup: 9, verdict: 'small' }), // not a fit: left out
      rental({ size: 8, bustBand: null, cup: null }), // no bra size: left out
    ];
    const chart = chestChart(rs, [4, 8, 12]);
    expect(chart.map((s) => s.centre)).toEqual([86.4, 91.4, 96.5]);
    expect(chart.map((s) => s.rentals)).toEqual([3, 3, 3]);
    const mid1 = (34 + 36) * 1.27;
    const mid2 = (36 + 38) * 1.27;
    expect(chart[0].min).toBeCloseTo(Math.round((mid1 - (mid2 - mid1)) * 10) / 10, 10);
    expect(chart[0].max).toBeCloseTo(Math.round(mid1 * 10) / 10, 10);
    expect(chart[1]).toMatchObject({ min: chart[0].max, max: Math.round(mid2 * 10) / 10 });
    expect(chart[2].max).toBeCloseTo(Math.round((mid2 + (mid2 - mid1)) * 10) / 10, 10);
  });

  it('keeps every range open when the centres tie', () => {
    const rs = [4, 8, 12].flatMap((size) => [0, 1].map(() => rental({ size, bustBand: 34, cup: 2 })));
    const chart = chestChart(rs, [4, 8, 12]);
    for (const s of chart) expect(s.max).toBeGreaterThan(s.min);
    for (let i = 1; i < chart.length; i++) expect(chart[i].min).toBe(chart[i - 1].max);
  });
});

describe('a rental’s answers', () => {
  it('answers what is given and plausible, the chest from the bra size, and the usual size', () => {
    const a = rentalAnswers(rental({}), '8', { braMethod: false });
    expect(a.answers).toEqual({
      height: { value: 65, unit: 'in' },
      weight: { value: 130, unit: 'lb' },
      age: 30,
      chest: { value: 94, unit: 'cm' },
      usual_size: '8',
    });
    expect(a.given).toEqual({ heightWeight: true, chest: true, usualSize: true });
  });

  it('leaves out what the service would refuse, and names the bra-size method only when asked', () => {
    const a = rentalAnswers(rental({ age: 116, heightIn: null, weightLbs: 30, bustBand: null }), null, { braMethod: true });
    expect(a.answers).toEqual({});
    expect(a.given).toEqual({ heightWeight: false, chest: false, usualSize: false });
    expect(rentalAnswers(rental({}), null, { braMethod: true }).answers.chest).toEqual({ value: 94, unit: 'cm', method: 'bra_size' });
  });
});
