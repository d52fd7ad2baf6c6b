import type { Chart, Zone } from '../../src/sizing/types.js';

/**
 * A body chart with no ease, for the engine's unit tests: one row per size, its label then a min and a max in cm for
 * each of `zones`, in that order.
 */
export function bodyChart(zones: readonly Zone[], rows: ReadonlyArray<readonly [label: string, ...bounds: number[]]>): Chart {
  return {
    measurementType: 'body',
    easeCm: 0,
    sizes: rows.map(([label, ...bounds]) => ({
      label,
      measurements: Object.fromEntries(zones.map((zone, z) => [zone, { min: bounds[2 * z], max: bounds[2 * z + 1] }])),
    })),
  };
}

/** Chest 8 cm a size, S–L; waist from the M up: the S states no waist, so it cannot be said to hold one. */
export const waistFromM: Chart = {
  measurementType: 'body',
  easeCm: 0,
  sizes: [
    { label: 'S', measurements: { chest: { min: 86, max: 94 } } },
    { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
    { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
  ],
};
