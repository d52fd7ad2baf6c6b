import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bestSize, effectiveBounds, fitVerdict, usedZones } from './tailor.js';
import { waistFromM } from '../../test/support/charts.js';
import type { Chart, FitAdjustment, FitPreference, ZoneWeights } from './types.js';

const tops: Chart = {
  measurementType: 'body',
  easeCm: 0,
  sizes: [
    { label: 'S', measurements: { chest: { min: 88, max: 96 }, waist: { min: 74, max: 82 } } },
    { label: 'M', measurements: { chest: { min: 96, max: 104 }, waist: { min: 82, max: 90 } } },
    { label: 'L', measurements: { chest: { min: 104, max: 112 }, waist: { min: 90, max: 98 } } },
    { label: 'XL', measurements: { chest: { min: 112, max: 120 }, waist: { min: 98, max: 108 } } },
  ],
};
const weights: ZoneWeights = { chest: 1, waist: 0.5 };

const pick = (
  body: { chest?: number; waist?: number; hip?: number },
  options: { chart?: Chart; zoneWeights?: ZoneWeights; fitAdjustment?: FitAdjustment; fitPreference?: FitPreference } = {},
) =>
  bestSize(
    {
      chart: options.chart ?? tops,
      zoneWeights: options.zoneWeights ?? weights,
      fitAdjustment: options.fitAdjustment ?? 'true_to_size',
      fitPreference: options.fitPreference,
    },
    body,
  );

describe("the tailor's rule", () => {
  it('takes the smallest size where no used zone is too small', () => {
    expect(pick({ chest: 100, waist: 85 })).toBe('M');
    expect(pick({ chest: 90, waist: 76 })).toBe('S');
  });

  it('chest fits M but waist needs L: L', () => {
    expect(pick({ chest: 100, waist: 93 })).toBe('L');
  });

  it('counts the upper bound itself as fitting', () => {
    expect(pick({ chest: 104, waist: 90 })).toBe('M');
    expect(pick({ chest: 104.01, waist: 90 })).toBe('L');
  });

  it('a body below the smallest size gets the smallest size', () => {
    expect(pick({ chest: 70, waist: 60 })).toBe('S');
  });

  it('too small everywhere: the largest size (least weighted excess)', () => {
    expect(pick({ chest: 140, waist: 130 })).toBe('XL');
    expect(pick({ chest: 121, waist: 100 })).toBe('XL');
  });

  it('weights the excess when no size fits', () => {
    // a chart where no size is big enough in both zones: the heavier-weighted zone wins
    const crossed: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: [
        { label: 'A', measurements: { chest: { min: 90, max: 100 }, waist: { min: 90, max: 100 } } },
        { label: 'B', measurements: { chest: { min: 80, max: 90 }, waist: { min: 100, max: 110 } } },
      ],
    };
    const body = { chest: 105, waist: 115 };
    expect(pick(body, { chart: crossed, zoneWeights: { chest: 1, waist: 0.1 } })).toBe('A');
    expect(pick(body, { chart: crossed, zoneWeights: { chest: 0.1, waist: 1 } })).toBe('B');
  });

  it('ignores zones with weight 0, and uses every zone with weight 1 when no weight matches the chart', () => {
    expect(pick({ chest: 100, waist: 93 }, { zoneWeights: { chest: 1, waist: 0 } })).toBe('M');
    expect(usedZones(tops, { hip: 1 })).toEqual([
      { zone: 'chest', weight: 1 },
      { zone: 'waist', weight: 1 },
    ]);
    expect(pick({ chest: 100, waist: 93 }, { zoneWeights: { hip: 1 } })).toBe('L');
  });

  it('never takes a size that does not state a weighted zone the chart states for others as containing the body there', () => {
    const both = { chart: waistFromM, zoneWeights: { chest: 1, waist: 1 } };
    // S cannot be said to hold any waist: the smallest size that contains both zones
    expect(pick({ chest: 90, waist: 70 }, both)).toBe('M');
    expect(pick({ chest: 90, waist: 80 }, both)).toBe('M');
    expect(pick({ chest: 90, waist: 90 }, both)).toBe('L');
    // no size contains the waist: the least excess among the sizes that state every zone, not S
    expect(pick({ chest: 90, waist: 99 }, both)).toBe('L');
    expect(pick({ chest: 92, waist: 120 }, both)).toBe('L');
    // a zone that does not matter constrains nothing
    expect(pick({ chest: 90, waist: 99 }, { chart: waistFromM, zoneWeights: { chest: 1, waist: 0 } })).toBe('S');
    // no weighted zone stated: every zone the chart states, weight 1, under the same rule
    expect(pick({ chest: 90, waist: 80 }, { chart: waistFromM, zoneWeights: { hip: 1 } })).toBe('M');
  });

  it('where no size states every used zone, prefers the size leaving the least weight unstated, then the least excess', () => {
    const crossed: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: [
        { label: 'A', measurements: { chest: { min: 86, max: 94 } } },
        { label: 'B', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
        { label: 'C', measurements: { waist: { min: 87, max: 95 } } },
        { label: 'D', measurements: { chest: { min: 102, max: 110 } } },
      ],
    };
    // B states both: only B can contain the body
    expect(pick({ chest: 90, waist: 80 }, { chart: crossed, zoneWeights: { chest: 1, waist: 1 } })).toBe('B');
    expect(pick({ chest: 100, waist: 80 }, { chart: crossed, zoneWeights: { chest: 1, waist: 1 } })).toBe('B');
    // B too small: B still, the only size that states every zone
    expect(pick({ chest: 108, waist: 90 }, { chart: crossed, zoneWeights: { chest: 1, waist: 1 } })).toBe('B');
    const noneComplete: Chart = { ...crossed, sizes: crossed.sizes.filter((size) => size.label !== 'B') };
    // chest weighs more: a size that states the chest, the least excess of those
    expect(pick({ chest: 100, waist: 90 }, { chart: noneComplete, zoneWeights: { chest: 2, waist: 1 } })).toBe('D');
    expect(pick({ chest: 90, waist: 90 }, { chart: noneComplete, zoneWeights: { chest: 2, waist: 1 } })).toBe('A');
    // waist weighs more: C
    expect(pick({ chest: 90, waist: 90 }, { chart: noneComplete, zoneWeights: { chest: 1, waist: 2 } })).toBe('C');
  });

  it('where no size states every used zone, a body larger in a zone never gets a smaller size', () => {
    const crossed: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: [
        { label: 'S', measurements: { chest: { min: 86, max: 94 } } },
        { label: 'M', measurements: { waist: { min: 79, max: 87 } } },
      ],
    };
    const both = { chart: crossed, zoneWeights: { chest: 1, waist: 1 } };
    // her chest needs more than the S, her waist fits the M: the M
    expect(pick({ chest: 95, waist: 85 }, both)).toBe('M');
    // a bigger waist still needs at least the M
    expect(pick({ chest: 95, waist: 100 }, both)).toBe('M');
    // her chest fits the S, her waist the M (the S cannot be said to hold it): the M
    expect(pick({ chest: 90, waist: 85 }, both)).toBe('M');
  });

  it('counts sizes leaving out the same weight as tied, however the sum of their weights rounds', () => {
    // S leaves out the hip (0.3), M the chest and waist (0.1 + 0.2, which is 0.30000000000000004 in floating point)
    const split: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: [
        { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 70, max: 78 } } },
        { label: 'M', measurements: { hip: { min: 94, max: 102 } } },
      ],
    };
    const zoneWeights = { chest: 0.1, waist: 0.2, hip: 0.3 };
    expect(pick({ chest: 90, waist: 74, hip: 100 }, { chart: split, zoneWeights })).toBe('M');
    expect(pick({ chest: 90, waist: 74, hip: 200 }, { chart: split, zoneWeights })).toBe('M');
  });

  it('a body larger in every zone never gets a smaller size, whichever zones each size states', () => {
    const zones = ['chest', 'waist', 'hip'] as const;
    const chartArb = fc
      .record({
        weights: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
        starts: fc.tuple(fc.integer({ min: 60, max: 100 }), fc.integer({ min: 60, max: 100 }), fc.integer({ min: 60, max: 100 })),
        sizes: fc.array(
          fc.record({
            states: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()).filter((t) => t.some(Boolean)),
            widths: fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 })),
          }),
          { minLength: 2, maxLength: 5 },
        ),
      })
      .map(({ weights, starts, sizes }) => {
        const next = [...starts];
        const chart: Chart = {
          measurementType: 'body',
          easeCm: 0,
          sizes: sizes.map(({ states, widths }, i) => ({
            label: `S${i}`,
            measurements: Object.fromEntries(
              zones.flatMap((zone, z) => {
                if (!states[z]) return [];
                const range = { min: next[z], max: next[z] + widths[z] };
                next[z] = range.max;
                return [[zone, range]];
              }),
            ),
          })),
        };
        return { chart, zoneWeights: Object.fromEntries(zones.map((zone, z) => [zone, weights[z]])) };
      });
    const bodyArb = fc.tuple(fc.integer({ min: 50, max: 160 }), fc.integer({ min: 50, max: 160 }), fc.integer({ min: 50, max: 160 }));
    const growthArb = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }));
    fc.assert(
      fc.property(
        chartArb,
        bodyArb,
        growthArb,
        fc.constantFrom<FitPreference>('tighter', 'regular', 'looser'),
        ({ chart, zoneWeights }, body, growth, fitPreference) => {
          const at = (values: readonly number[]) => {
            const label = pick({ chest: values[0], waist: values[1], hip: values[2] }, { chart, zoneWeights, fitPreference });
            return chart.sizes.findIndex((size) => size.label === label);
          };
          expect(at(body.map((v, z) => v + growth[z]))).toBeGreaterThanOrEqual(at(body));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('garment charts subtract the ease: halved for tighter, ×1.5 for looser', () => {
    const garment: Chart = { ...tops, measurementType: 'garment', easeCm: 8 };
    // garment M chest 96–104 holds a body up to 96 (regular), 100 (tighter), 92 (looser, before the room rule)
    expect(effectiveBounds(garment, garment.sizes[1], 'chest', 'regular', 'true_to_size')).toEqual({ lo: 88, hi: 96 });
    expect(effectiveBounds(garment, garment.sizes[1], 'chest', 'tighter', 'true_to_size')).toEqual({ lo: 92, hi: 100 });
    expect(effectiveBounds(garment, garment.sizes[1], 'chest', 'looser', 'true_to_size')).toEqual({ lo: 84, hi: 92 });
    expect(pick({ chest: 95, waist: 70 }, { chart: garment })).toBe('M');
    expect(pick({ chest: 97, waist: 70 }, { chart: garment })).toBe('L');
    expect(pick({ chest: 99, waist: 70 }, { chart: garment, fitPreference: 'tighter' })).toBe('M');
    // body charts ignore the ease
    expect(effectiveBounds({ ...tops, easeCm: 8 }, tops.sizes[1], 'chest', 'regular', 'true_to_size')).toEqual({
      lo: 96,
      hi: 104,
    });
  });

  it('runs_large keeps the ranges in order when their widths differ (one shift per zone)', () => {
    const uneven: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: [
        { label: 'A', measurements: { chest: { min: 87, max: 95 } } },
        { label: 'B', measurements: { chest: { min: 95, max: 96.5 } } },
      ],
    };
    const shift = (8 + 1.5) / 2 / 3;
    expect(effectiveBounds(uneven, uneven.sizes[0], 'chest', 'regular', 'runs_large')).toEqual({ lo: 87 + shift, hi: 95 + shift });
    expect(effectiveBounds(uneven, uneven.sizes[1], 'chest', 'regular', 'runs_large')).toEqual({ lo: 95 + shift, hi: 96.5 + shift });
    // a body just above A's upper bound never falls back to A
    expect(pick({ chest: 95 + shift + 0.1 }, { chart: uneven, zoneWeights: { chest: 1 }, fitAdjustment: 'runs_large' })).toBe('B');
    expect(pick({ chest: 99 }, { chart: uneven, zoneWeights: { chest: 1 }, fitAdjustment: 'runs_large' })).toBe('B');
  });

  it("runs_small moves ranges down a third of the zone's mean width (a bigger size); runs_large up", () => {
    expect(effectiveBounds(tops, tops.sizes[1], 'chest', 'regular', 'runs_small')).toEqual({ lo: 96 - 8 / 3, hi: 104 - 8 / 3 });
    expect(effectiveBounds(tops, tops.sizes[1], 'chest', 'regular', 'runs_large')).toEqual({ lo: 96 + 8 / 3, hi: 104 + 8 / 3 });
    expect(pick({ chest: 103, waist: 85 })).toBe('M');
    expect(pick({ chest: 103, waist: 85 }, { fitAdjustment: 'runs_small' })).toBe('L');
    expect(pick({ chest: 97, waist: 83 }, { fitAdjustment: 'runs_large' })).toBe('S');
  });

  it('looser wants a quarter of the width of room below the upper bound', () => {
    expect(pick({ chest: 101, waist: 85 }, { fitPreference: 'looser' })).toBe('M'); // 101 ≤ 104 − 2
    expect(pick({ chest: 103, waist: 85 }, { fitPreference: 'looser' })).toBe('L'); // 103 > 102
    expect(pick({ chest: 103, waist: 85 }, { fitPreference: 'regular' })).toBe('M');
  });

  it('tighter never picks a size that is too small', () => {
    expect(pick({ chest: 104.5, waist: 85 }, { fitPreference: 'tighter' })).toBe('L');
  });
});

describe('fitVerdict', () => {
  const b = { lo: 96, hi: 104 };
  it.each([
    [105, 'regular', 'too_small'],
    [103.5, 'regular', 'snug'],
    [100, 'regular', 'regular'],
    [98, 'regular', 'regular'],
    [97, 'regular', 'loose'],
    [93, 'regular', 'loose'],
    [88.5, 'regular', 'loose'],
    [87.9, 'regular', 'too_large'],
    [103, 'tighter', 'regular'],
    [98, 'tighter', 'loose'],
    [99, 'looser', 'regular'],
    [102, 'looser', 'snug'],
    [102.5, 'looser', 'too_small'],
  ] as const)('%d cm in 96–104 (%s): %s', (x, pref, verdict) => {
    expect(fitVerdict(x, b, pref)).toBe(verdict);
  });

  it('calls a zone too small exactly where the size rule refuses the size, for every preference', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 1500 }).map((mm) => mm / 10),
        fc.integer({ min: 0, max: 200 }).map((mm) => mm / 10),
        // where the body sits, in widths above the lower bound
        fc.integer({ min: -500, max: 1500 }).map((p) => p / 1000),
        fc.constantFrom<FitPreference>('tighter', 'regular', 'looser'),
        (lo, width, position, fitPreference) => {
          const hi = lo + width;
          const chart: Chart = {
            measurementType: 'body',
            easeCm: 0,
            sizes: [
              { label: 'A', measurements: { waist: { min: lo, max: hi } } },
              { label: 'B', measurements: { waist: { min: hi, max: hi + 100 } } },
            ],
          };
          const x = lo + position * Math.max(width, 1);
          const refused = pick({ waist: x }, { chart, zoneWeights: { waist: 1 }, fitPreference }) === 'B';
          expect(fitVerdict(x, { lo, hi }, fitPreference) === 'too_small').toBe(refused);
        },
      ),
    );
  });

  it('reads a zero-width range as fitting only its value', () => {
    expect(fitVerdict(40, { lo: 40, hi: 40 }, 'regular')).toBe('regular');
    expect(fitVerdict(40.1, { lo: 40, hi: 40 }, 'regular')).toBe('too_small');
    expect(fitVerdict(39.2, { lo: 40, hi: 40 }, 'regular')).toBe('loose');
    expect(fitVerdict(38.9, { lo: 40, hi: 40 }, 'regular')).toBe('too_large');
  });
});
