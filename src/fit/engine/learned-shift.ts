/**
 * What outcomes taught about a product, applied to its chart: a product whose sizes run `steps` sizes small (positive)
 * fits like its stated chart with every range moved down by `steps` times that zone's mean range width (the same move
 * as the merchant's own `runs_small`, by a third). A shopper in the upper part of her size then needs the next one
 * up, and one in the lower part does not: half a step moves half the shoppers, as a real half-step difference does.
 * The offset's uncertainty is carried by averaging the answers on charts moved by a 5-point Gauss–Hermite rule over
 * N(steps, sd²), so confidence drops where the evidence is thin.
 */
import type { Chart, Zone } from './types.js';

/** Mean width of each zone's ranges over the sizes that define it. */
function meanWidths(chart: Chart): Map<Zone, number> {
  const sums = new Map<Zone, { sum: number; count: number }>();
  for (const size of chart.sizes) {
    for (const [zone, range] of Object.entries(size.measurements) as [Zone, { min: number; max: number }][]) {
      const known = sums.get(zone) ?? { sum: 0, count: 0 };
      sums.set(zone, { sum: known.sum + range.max - range.min, count: known.count + 1 });
    }
  }
  return new Map([...sums].map(([zone, { sum, count }]) => [zone, sum / count]));
}

/** The chart whose every range is moved down by `steps` mean range widths of its zone (up for negative steps). */
export function shiftedChart(chart: Chart, steps: number): Chart {
  if (steps === 0) return chart;
  const widths = meanWidths(chart);
  return {
    ...chart,
    sizes: chart.sizes.map((size) => ({
      ...size,
      measurements: Object.fromEntries(
        (Object.entries(size.measurements) as [Zone, { min: number; max: number }][]).map(([zone, range]) => {
          const move = steps * (widths.get(zone) ?? 0);
          return [zone, { min: range.min - move, max: range.max - move }];
        }),
      ),
    })),
  };
}

/** Physicists' Gauss–Hermite nodes and weights, 5 points: E[f(X)] ≈ Σ w f(mean + √2·sd·t) / √π for X ~ N(mean, sd²). */
const HERMITE: readonly { readonly t: number; readonly w: number }[] = [
  { t: -2.020182870456086, w: 0.019953242059046 },
  { t: -0.958572464613819, w: 0.393619323152241 },
  { t: 0, w: 0.945308720482942 },
  { t: 0.958572464613819, w: 0.393619323152241 },
  { t: 2.020182870456086, w: 0.019953242059046 },
];

/** The offsets to average over for an offset of `steps` ± `sd`, with their weights (summing to 1); the middle one is `steps`. */
export function offsetNodes(steps: number, sd: number): { readonly steps: number; readonly weight: number }[] {
  if (!(sd > 0)) return [{ steps, weight: 1 }];
  return HERMITE.map(({ t, w }) => ({ steps: steps + Math.SQRT2 * sd * t, weight: w / Math.sqrt(Math.PI) }));
}
