import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bestSize } from '../../src/sizing/tailor.js';
import type { Chart, Zone } from '../../src/sizing/types.js';
import { referenceBestSize } from './reference-tailor.js';

const ZONES = ['chest', 'waist', 'hip'] as const satisfies readonly Zone[];

/** Body charts of 2–6 sizes whose sizes may leave zones out (at least one each), ranges growing with size. */
const partialChart = fc
  .record({
    sizes: fc.integer({ min: 2, max: 6 }),
    widths: fc.array(fc.integer({ min: 2, max: 12 }), { minLength: 18, maxLength: 18 }),
    stated: fc.array(fc.subarray([...ZONES], { minLength: 1 }), { minLength: 6, maxLength: 6 }),
    weights: fc.array(fc.constantFrom(0, 0.5, 1, 2), { minLength: 3, maxLength: 3 }),
  })
  .map(({ sizes, widths, stated, weights }) => {
    const chart: Chart = {
      measurementType: 'body',
      easeCm: 0,
      sizes: Array.from({ length: sizes }, (_, s) => ({
        label: `S${s}`,
        measurements: Object.fromEntries(
          stated[s].map((zone) => {
            const z = ZONES.indexOf(zone);
            const min = 70 + widths.slice(z * 6, z * 6 + s).reduce((a, b) => a + b, 0);
            return [zone, { min, max: min + widths[z * 6 + s] }];
          }),
        ),
      })),
    };
    return { chart, zoneWeights: Object.fromEntries(ZONES.map((z, i) => [z, weights[i]])) as Partial<Record<Zone, number>> };
  });

const body = fc.record({
  chest: fc.integer({ min: 60, max: 150 }),
  waist: fc.integer({ min: 60, max: 150 }),
  hip: fc.integer({ min: 60, max: 150 }),
});

describe('the reference tailor', () => {
  it('agrees with the engine on body charts whose sizes leave zones out', () => {
    fc.assert(
      fc.property(partialChart, body, ({ chart, zoneWeights }, b) => {
        fc.pre(ZONES.some((z) => (zoneWeights[z] ?? 0) > 0 && chart.sizes.some((s) => s.measurements[z] !== undefined)));
        const engine = bestSize({ chart, zoneWeights, fitAdjustment: 'true_to_size' }, b);
        expect(engine).toBe(chart.sizes[referenceBestSize(chart, zoneWeights, b)].label);
      }),
      { numRuns: 500 },
    );
  });

  it('never gives a bigger body a smaller size, whichever weighted zones its sizes state', () => {
    fc.assert(
      fc.property(
        partialChart,
        body,
        fc.constantFrom(...ZONES),
        fc.integer({ min: 1, max: 30 }),
        ({ chart, zoneWeights }, b, zone, more) => {
          const used = ZONES.filter((z) => (zoneWeights[z] ?? 0) > 0 && chart.sizes.some((s) => s.measurements[z] !== undefined));
          fc.pre(used.length > 0);
          const index = (x: typeof b) =>
            chart.sizes.findIndex((s) => s.label === bestSize({ chart, zoneWeights, fitAdjustment: 'true_to_size' }, x));
          expect(index({ ...b, [zone]: b[zone] + more })).toBeGreaterThanOrEqual(index(b));
        },
      ),
      { numRuns: 500 },
    );
  });
});
