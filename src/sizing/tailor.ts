/**
 * The tailor's rule: which size a body of known measurements should wear, and how each zone of a size fits it.
 *
 * - Effective bounds of a size in a zone: body chart [min, max]; garment chart [min − ease, max − ease] with the ease
 *   halved for `tighter` and ×1.5 for `looser`; then `runs_small` moves the range down by a third of the zone's mean
 *   range width in the chart (the shopper needs a bigger size) and `runs_large` moves it up as much. One shift per zone
 *   keeps the ranges in chart order (a third of each range's own width would not, when widths differ); with equal
 *   widths it is the same.
 * - A zone is too small when the body exceeds the effective upper bound; `looser` also wants a quarter of the width of
 *   room (x ≤ upper − width/4). A size that does not state a used zone (one the chart states for other sizes) cannot
 *   be said to contain the body there: it never counts as fitting (the contract: "the smallest size that contains
 *   every weighted zone").
 * - Best size: the smallest size (chart order) with every used zone stated and none too small; if there is none, among
 *   the sizes leaving the least weight of used zones unstated: when they state every used zone, the least Σ weight ×
 *   excess / (the zone's mean range width in the chart), then the smaller; otherwise, zone by zone, the first that
 *   states and contains the body there (or has the zone's largest range), and the largest of those (`fallbackSize`).
 */
import type { Chart, ChartSize, FitAdjustment, FitPreference, FitVerdict, Zone, ZoneWeights } from './types.js';
import { ZONES } from './types.js';

interface Bounds {
  readonly lo: number;
  readonly hi: number;
}

const EASE_FACTOR: Readonly<Record<FitPreference, number>> = { tighter: 0.5, regular: 1, looser: 1.5 };
/** Where in the effective range each preference wants the body to sit (0 = lower bound, 1 = upper bound). */
const TARGET_POSITION: Readonly<Record<FitPreference, number>> = { tighter: 0.65, regular: 0.5, looser: 0.35 };
/** Room `looser` wants below the upper bound, as a fraction of the range width. */
const LOOSER_ROOM = 0.25;
/** Relative difference under which two sums of unstated weight are the same weight. */
const UNSTATED_TOLERANCE = 1e-9;
/** Half-width of the "regular" band around the target position, as a fraction of the range width. */
const REGULAR_BAND = 0.25;

/** Zones the decision uses, in ZONES order, with their weights (rule 1 of docs/fit-quality.md). */
export function usedZones(chart: Chart, zoneWeights: ZoneWeights): { zone: Zone; weight: number }[] {
  const defined = ZONES.filter((z) => chart.sizes.some((s) => s.measurements[z] !== undefined));
  const weighted = defined
    .map((zone) => ({ zone, weight: zoneWeights[zone] ?? 0 }))
    .filter((z) => Number.isFinite(z.weight) && z.weight > 0);
  return weighted.length > 0 ? weighted : defined.map((zone) => ({ zone, weight: 1 }));
}

/** The effective bounds of one size in one zone, or undefined when the size does not define the zone. */
export function effectiveBounds(
  chart: Chart,
  size: ChartSize,
  zone: Zone,
  fitPreference: FitPreference,
  fitAdjustment: FitAdjustment,
): Bounds | undefined {
  const range = size.measurements[zone];
  if (range === undefined) return undefined;
  const ease = chart.measurementType === 'garment' ? chart.easeCm * EASE_FACTOR[fitPreference] : 0;
  const step = fitAdjustment === 'true_to_size' ? 0 : meanRangeWidth(chart, zone) / 3;
  const shift = fitAdjustment === 'runs_small' ? -step : step;
  return { lo: range.min - ease + shift, hi: range.max - ease + shift };
}

/** Mean width (max − min) of a zone's ranges over the sizes that define it; 0 when none does. */
function meanRangeWidth(chart: Chart, zone: Zone): number {
  let sum = 0;
  let count = 0;
  for (const size of chart.sizes) {
    const range = size.measurements[zone];
    if (range === undefined) continue;
    sum += range.max - range.min;
    count++;
  }
  return count > 0 ? sum / count : 0;
}

/** The largest body value that still counts as "not too small" for these bounds. */
function tooSmallThreshold(bounds: Bounds, fitPreference: FitPreference): number {
  return fitPreference === 'looser' ? bounds.hi - LOOSER_ROOM * (bounds.hi - bounds.lo) : bounds.hi;
}

/** A chart compiled for one request: thresholds per size and used zone, in cm and in log cm. */
export interface PreparedChart {
  readonly labels: readonly string[];
  /** Used zones, ZONES order. */
  readonly zones: readonly Zone[];
  /** ZONES index of each used zone. */
  readonly zoneIndex: readonly number[];
  /** thresholds[s·k + j]: too small above this (cm); −Infinity when size s does not state zone j (never contains it). */
  readonly thresholds: Float64Array;
  /** log of thresholds (−Infinity for a threshold ≤ 0). */
  readonly logThresholds: Float64Array;
  /** weight / mean range width of each used zone, for the fallback excess. */
  readonly excessScale: Float64Array;
  /** Σ weight of the used zones each size does not state: the fallback's first criterion (0 for a complete size). */
  readonly unstatedWeight: Float64Array;
}

export function prepareChart(
  chart: Chart,
  zoneWeights: ZoneWeights,
  fitPreference: FitPreference,
  fitAdjustment: FitAdjustment,
): PreparedChart {
  const used = usedZones(chart, zoneWeights);
  const k = used.length;
  const sizes = chart.sizes;
  const thresholds = new Float64Array(sizes.length * k);
  const logThresholds = new Float64Array(sizes.length * k);
  const excessScale = new Float64Array(k);
  const unstatedWeight = new Float64Array(sizes.length);
  used.forEach(({ zone, weight }, j) => {
    sizes.forEach((size, s) => {
      const bounds = effectiveBounds(chart, size, zone, fitPreference, fitAdjustment);
      if (bounds === undefined) unstatedWeight[s] += weight;
      const t = bounds === undefined ? -Infinity : tooSmallThreshold(bounds, fitPreference);
      thresholds[s * k + j] = t;
      logThresholds[s * k + j] = t > 0 ? Math.log(t) : -Infinity;
    });
    const meanWidth = meanRangeWidth(chart, zone);
    excessScale[j] = weight / (meanWidth > 0 ? meanWidth : 1);
  });
  return {
    labels: sizes.map((s) => s.label),
    zones: used.map((u) => u.zone),
    zoneIndex: used.map((u) => ZONES.indexOf(u.zone)),
    thresholds,
    logThresholds,
    excessScale,
    unstatedWeight,
  };
}

/**
 * Fallback when no size contains the body. Only the sizes leaving the least weight of used zones unstated compete (those
 * that state them all, when any does). When they state every used zone: the least weighted, width-normalised excess
 * (ties: the smaller size), on charts whose ranges do not shrink the first size reaching, in every zone, the body or
 * else the zone's largest range. When they do not (no size states every used zone), excesses over different zones
 * cannot be compared without a bigger body landing on a smaller size; so, zone by zone, the first of them that states
 * the zone and contains the body there (none: the first with the zone's largest range), and the largest of those: a
 * body larger in any zone never gets a smaller size.
 */
export function fallbackSize(prepared: PreparedChart, valuesCm: ArrayLike<number>): number {
  const k = prepared.zones.length;
  const { thresholds, excessScale, unstatedWeight } = prepared;
  const sizes = prepared.labels.length;
  let least = Infinity;
  for (let s = 0; s < sizes; s++) least = Math.min(least, unstatedWeight[s]);
  // Sums of the same weights in another order may differ in their last bits (0.1 + 0.2 against 0.3).
  const leastUnstated = (w: number) => w - least <= UNSTATED_TOLERANCE * Math.max(1, least);
  if (least > 0) {
    let chosen = -1;
    for (let j = 0; j < k; j++) {
      let contains = -1;
      let largest = -1;
      for (let s = 0; s < sizes; s++) {
        const t = thresholds[s * k + j];
        if (!leastUnstated(unstatedWeight[s]) || t === -Infinity) continue;
        if (valuesCm[j] <= t) {
          contains = s;
          break;
        }
        if (largest < 0 || t > thresholds[largest * k + j]) largest = s;
      }
      chosen = Math.max(chosen, contains >= 0 ? contains : largest);
    }
    return chosen;
  }
  let best = -1;
  let bestExcess = Infinity;
  for (let s = 0; s < sizes; s++) {
    if (unstatedWeight[s] > 0) continue;
    let excess = 0;
    for (let j = 0; j < k; j++) {
      const over = valuesCm[j] - thresholds[s * k + j];
      if (over > 0) excess += over * excessScale[j];
    }
    if (excess < bestExcess) {
      best = s;
      bestExcess = excess;
    }
  }
  return best;
}

/** The best size (index) for a body given in cm, one value per used zone (`prepared.zones` order). */
export function bestSizeIndex(prepared: PreparedChart, valuesCm: readonly number[]): number {
  const k = prepared.zones.length;
  const sizes = prepared.labels.length;
  for (let s = 0; s < sizes; s++) {
    let fits = true;
    for (let j = 0; j < k; j++) {
      if (valuesCm[j] > prepared.thresholds[s * k + j]) {
        fits = false;
        break;
      }
    }
    if (fits) return s;
  }
  return fallbackSize(prepared, valuesCm);
}

/**
 * The tailor's rule on a fully known body: the label of the best size. Every used zone must be in `body`.
 */
export function bestSize(
  input: {
    readonly chart: Chart;
    readonly zoneWeights: ZoneWeights;
    readonly fitAdjustment: FitAdjustment;
    readonly fitPreference?: FitPreference;
  },
  body: Partial<Record<Zone, number>>,
): string {
  const prepared = prepareChart(input.chart, input.zoneWeights, input.fitPreference ?? 'regular', input.fitAdjustment);
  const values = prepared.zones.map((zone) => {
    const v = body[zone];
    if (v === undefined) throw new RangeError(`bestSize needs a value for ${zone}`);
    return v;
  });
  return prepared.labels[bestSizeIndex(prepared, values)];
}

/**
 * How a zone of a size fits a body value x, on the effective bounds [lo, hi]: too small where the size rule calls it so
 * (above hi; for `looser`, above hi − width/4, the room she asked for); inside, the position
 * t = (x − lo)/(hi − lo) against the preference's target τ (±0.25 regular, above snug, below loose); below lo loose,
 * up to a whole width below lo (the body would fit the next size down: a size up is loose), too large beyond that
 * (a zero-width range fits only its value, and counts as 1 cm wide below it).
 */
export function fitVerdict(x: number, bounds: Bounds, fitPreference: FitPreference): FitVerdict {
  const { lo, hi } = bounds;
  if (x > tooSmallThreshold(bounds, fitPreference)) return 'too_small';
  const width = hi - lo;
  // Up to a whole size below the range is a size up: loose. More than that is too large.
  if (x < lo) return lo - x > Math.max(width, 1) ? 'too_large' : 'loose';
  if (!(width > 0)) return 'regular';
  const t = (x - lo) / width;
  const target = TARGET_POSITION[fitPreference];
  if (t > target + REGULAR_BAND) return 'snug';
  if (t < target - REGULAR_BAND) return 'loose';
  return 'regular';
}
