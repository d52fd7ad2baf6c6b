/**
 * What outcomes taught about a product, applied to its chart: a product whose sizes run `steps` sizes small (positive)
 * fits like its stated chart with every size taking the ranges its chart states `steps` sizes below it (one step: the M
 * fits like the stated S; half a step: halfway between the S's ranges and the M's). A size step is the distance to the
 * neighbouring size, zone by zone (across a size that leaves a zone out, half the distance between the sizes either side
 * of it: a step is one size of the chart), so a chart whose ranges widen with size moves its small sizes by their own widths and
 * its large sizes by theirs. Past either end of the chart the ranges continue at the end size's own width. A shopper in
 * the upper part of her size then needs the next one up, and one in the lower part does not: half a step moves half
 * the shoppers, as a real half-step difference does. The offset's uncertainty is carried by averaging the answers on
 * charts moved by a 5-point Gauss–Hermite rule over N(steps, sd²), so confidence drops where the evidence is thin.
 */
import type { Chart, Zone } from './types.js';

type Range = { readonly min: number; readonly max: number };

/**
 * A zone's bound at fractional chart position p (0 = the chart's first size), from the sizes that measure the zone
 * (their chart positions `at`, in order): linear between them, so across a size that leaves the zone out each step is
 * one size of the chart, and past either end along the end size's width.
 */
function boundAt(at: readonly number[], bounds: readonly number[], widths: readonly number[], p: number): number {
  const last = bounds.length - 1;
  if (p <= at[0]) return bounds[0] + (p - at[0]) * widths[0];
  if (p >= at[last]) return bounds[last] + (p - at[last]) * widths[last];
  let k = 0;
  while (at[k + 1] < p) k++;
  return bounds[k] + ((p - at[k]) / (at[k + 1] - at[k])) * (bounds[k + 1] - bounds[k]);
}

/** The chart whose every size takes the ranges stated `steps` sizes below it, zone by zone (above for negative steps). */
export function shiftedChart(chart: Chart, steps: number): Chart {
  if (steps === 0) return chart;
  const moved = chart.sizes.map((size) => ({ ...size.measurements }) as Partial<Record<Zone, Range>>);
  const zones = new Set(chart.sizes.flatMap((size) => Object.keys(size.measurements) as Zone[]));
  for (const zone of zones) {
    // the sizes that measure this zone, in chart order
    const at = chart.sizes.flatMap((size, i) => (size.measurements[zone] ? [{ i, range: size.measurements[zone] }] : []));
    const positions = at.map(({ i }) => i);
    const mins = at.map(({ range }) => range.min);
    const maxes = at.map(({ range }) => range.max);
    const widths = at.map(({ range }) => range.max - range.min);
    for (const { i } of at) {
      moved[i][zone] = { min: boundAt(positions, mins, widths, i - steps), max: boundAt(positions, maxes, widths, i - steps) };
    }
  }
  return { ...chart, sizes: chart.sizes.map((size, i) => ({ ...size, measurements: moved[i] })) };
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
