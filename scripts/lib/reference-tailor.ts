/**
 * The chart's own answer, written independently of the engine (scripts only): for a body chart, true to size, regular
 * fit, the smallest size (chart order) where no used zone exceeds the size's max; if every size is too small somewhere,
 * the size with the least Σ weight × excess / mean range width of the zone. The evaluation checks that the engine,
 * given measured values, always agrees.
 */
import type { Chart, Zone } from '../../src/fit/engine/types.js';

export function referenceBestSize(
  chart: Chart,
  weights: Readonly<Partial<Record<Zone, number>>>,
  body: Readonly<Partial<Record<Zone, number>>>,
): number {
  if (chart.measurementType !== 'body') throw new Error('reference rule: body charts only');
  const zones = (Object.keys(weights) as Zone[]).filter((z) => (weights[z] ?? 0) > 0);
  const fitsAll = (i: number) =>
    zones.every((z) => {
      const range = chart.sizes[i].measurements[z];
      return range === undefined || (body[z] as number) <= range.max;
    });
  for (let i = 0; i < chart.sizes.length; i++) if (fitsAll(i)) return i;
  const meanWidth = (z: Zone) => {
    const widths = chart.sizes.flatMap((s) => {
      const r = s.measurements[z];
      return r === undefined ? [] : [r.max - r.min];
    });
    const m = widths.reduce((a, b) => a + b, 0) / widths.length;
    return m > 0 ? m : 1;
  };
  let best = 0;
  let bestExcess = Infinity;
  chart.sizes.forEach((s, i) => {
    let excess = 0;
    for (const z of zones) {
      const r = s.measurements[z];
      if (r !== undefined) excess += ((weights[z] as number) * Math.max(0, (body[z] as number) - r.max)) / meanWidth(z);
    }
    if (excess < bestExcess) {
      bestExcess = excess;
      best = i;
    }
  });
  return best;
}
