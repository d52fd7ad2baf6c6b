/**
 * The chart's own answer, written independently of the engine (scripts only): for a body chart, true to size, regular
 * fit, the smallest size (chart order) that states every used zone (weighted, and stated by some size of the chart)
 * with no body value above the size's max; if there is none, among the sizes leaving the least weight of used zones
 * unstated: when they state every used zone, the one with the least Σ weight × excess / mean range width of the zone;
 * when they do not, for each used zone the first of them stating it whose max holds the body (else the first with its
 * largest max), and the largest of those. The evaluation checks that the engine, given measured values, always agrees.
 */
import type { Chart, Zone } from '../../src/sizing/types.js';

export function referenceBestSize(
  chart: Chart,
  weights: Readonly<Partial<Record<Zone, number>>>,
  body: Readonly<Partial<Record<Zone, number>>>,
): number {
  if (chart.measurementType !== 'body') throw new Error('reference rule: body charts only');
  const zones = (Object.keys(weights) as Zone[]).filter(
    (z) => (weights[z] ?? 0) > 0 && chart.sizes.some((s) => s.measurements[z] !== undefined),
  );
  const fitsAll = (i: number) =>
    zones.every((z) => {
      const range = chart.sizes[i].measurements[z];
      return range !== undefined && (body[z] as number) <= range.max;
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
  const unstatedWeight = (i: number) =>
    zones.reduce((sum, z) => sum + (chart.sizes[i].measurements[z] === undefined ? (weights[z] as number) : 0), 0);
  const least = Math.min(...chart.sizes.map((_, i) => unstatedWeight(i)));
  if (least > 0) {
    // sums of the same weights in another order may differ in their last bits
    const candidates = chart.sizes.map((_, i) => i).filter((i) => unstatedWeight(i) - least <= 1e-9 * Math.max(1, least));
    let chosen = 0;
    for (const z of zones) {
      const stating = candidates.filter((i) => chart.sizes[i].measurements[z] !== undefined);
      if (stating.length === 0) continue;
      const maxOf = (i: number) => chart.sizes[i].measurements[z]?.max as number;
      const top = Math.max(...stating.map(maxOf));
      const holds = stating.find((i) => (body[z] as number) <= maxOf(i)) ?? stating.find((i) => maxOf(i) === top);
      chosen = Math.max(chosen, holds as number);
    }
    return chosen;
  }
  let best = 0;
  let bestUnstated = Infinity;
  let bestExcess = Infinity;
  chart.sizes.forEach((s, i) => {
    let unstated = 0;
    let excess = 0;
    for (const z of zones) {
      const r = s.measurements[z];
      if (r === undefined) unstated += weights[z] as number;
      else excess += ((weights[z] as number) * Math.max(0, (body[z] as number) - r.max)) / meanWidth(z);
    }
    if (unstated < bestUnstated || (unstated === bestUnstated && excess < bestExcess)) {
      bestUnstated = unstated;
      bestExcess = excess;
      best = i;
    }
  });
  return best;
}
