import type { Chart, Zone } from '../../src/fit/engine/types.js';

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
