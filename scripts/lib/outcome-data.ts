/**
 * The RentTheRunway shop as a store of the service would hold it, for `npm run eval:outcomes`: the split into history
 * and held-out rentals, the dates moved so the last held-out day is today, the shop's common sizes as the labels of
 * one body chart, the chest ranges of that chart estimated from the history alone, and each rental's answers.
 */
import { ANSWER_LIMITS, ZONE_LIMITS } from '../../src/sizing/limits.js';
import type { Rental } from './rtr.js';

export const DAY_MS = 86_400_000;
const CM_PER_INCH = 2.54;
const KG_PER_POUND = 0.45359237;
/** How many of the shop's size values become the chart's sizes. */
export const CHART_SIZES = 14;
/** Bra bands outside this range (inches) are typing errors: no chest is read from them. */
const PLAUSIBLE_BAND = { min: 28, max: 48 } as const;
/** Centres closer than this (cm) after pooling are pulled apart, so every size keeps a range of some width. */
const MIN_CENTRE_GAP_CM = 0.1;

/** Midnight UTC of the day `ms` falls in. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** The rentals reviewed before `from` (the history) and from it on (held out), each in date order. */
export function splitAt(rentals: readonly Rental[], from: number): { history: Rental[]; heldOut: Rental[] } {
  return { history: rentals.filter((r) => r.at < from), heldOut: rentals.filter((r) => r.at >= from) };
}

/** What to add to every date so that `lastDay` becomes the day of `now` (whole days: the spacing is kept). */
export const dateShift = (lastDay: number, now: number) => dayOf(now) - dayOf(lastDay);

/** Consecutive runs of rentals reviewed on the same day (the rentals are in date order). */
export function byDay<T extends { readonly at: number }>(rentals: readonly T[]): T[][] {
  const days: T[][] = [];
  for (const r of rentals) {
    const last = days.at(-1);
    if (last && dayOf(last[0].at) === dayOf(r.at)) last.push(r);
    else days.push([r]);
  }
  return days;
}

/** The `count` most common size values of `rentals` (ties to the smaller value), sorted. */
export function commonSizes(rentals: readonly Rental[], count = CHART_SIZES): number[] {
  const counts = new Map<number, number>();
  for (const r of rentals) counts.set(r.size, (counts.get(r.size) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, count)
    .map(([size]) => size)
    .sort((a, b) => a - b);
}

/** The index in `sizes` (sorted) of the size nearest `size`; ties to the smaller. */
export function nearestSize(sizes: readonly number[], size: number): number {
  let best = 0;
  for (let i = 1; i < sizes.length; i++) if (Math.abs(sizes[i] - size) < Math.abs(sizes[best] - size)) best = i;
  return best;
}

/**
 * The bust from the bra size, in cm: US bust inches ≈ band + cup, the cup counted a = 1, b = 2, … and aa = 0.5 (cup is
 * rtr.ts's index, aa = 0). Null without both, or with a band no bra has.
 */
export function bustCm(band: number | null, cup: number | null): number | null {
  if (band === null || cup === null || band < PLAUSIBLE_BAND.min || band > PLAUSIBLE_BAND.max) return null;
  return (band + (cup === 0 ? 0.5 : cup)) * CM_PER_INCH;
}

/**
 * The median of values that lie on a grid of `step` (bra sizes: whole inches), read as the grouped data's interpolated
 * median: each value stands for the interval of one step around it, so sizes whose plain medians fall on the same
 * whole inch are still told apart by how their rentals spread around it.
 */
export function interpolatedMedian(values: readonly number[], step: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length / 2;
  const median = sorted[Math.min(Math.floor(half), sorted.length - 1)];
  const below = sorted.filter((v) => v < median).length;
  const at = sorted.filter((v) => v === median).length;
  return median - step / 2 + ((half - below) / at) * step;
}

/** Pool-adjacent-violators: the non-decreasing sequence nearest `values` in weighted least squares. */
export function isotonic(values: readonly number[], weights: readonly number[]): number[] {
  const blocks: { value: number; weight: number; count: number }[] = [];
  values.forEach((value, i) => {
    blocks.push({ value, weight: weights[i], count: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2].value > blocks[blocks.length - 1].value) {
      const b = blocks.pop()!;
      const a = blocks.pop()!;
      const weight = a.weight + b.weight;
      blocks.push({ value: (a.value * a.weight + b.value * b.weight) / weight, weight, count: a.count + b.count });
    }
  });
  return blocks.flatMap((b) => Array<number>(b.count).fill(b.value));
}

export interface ChestSize {
  readonly size: number;
  /** Fitting rentals with a bra size it was estimated from. */
  readonly rentals: number;
  /** Their interpolated median bust (cm), before and after it was made increasing. */
  readonly median: number;
  readonly centre: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The chart's chest ranges: per size, the interpolated median bust of the rentals whose verdict was "fit" and which
 * give a bra size (each rental mapped to its nearest chart size); made increasing by pooling adjacent violators
 * (weighted by rentals) and pulled at least MIN_CENTRE_GAP_CM apart; boundaries halfway between neighbouring centres;
 * the first and last sizes extended beyond their one boundary by their neighbour's width. Rounded to 0.1 cm.
 */
export function chestChart(history: readonly Rental[], sizes: readonly number[]): ChestSize[] {
  if (sizes.length < 3) throw new RangeError('a chest chart needs at least three sizes');
  const busts = sizes.map(() => [] as number[]);
  for (const r of history) {
    const bust = bustCm(r.bustBand, r.cup);
    if (r.verdict === 'fit' && bust !== null) busts[nearestSize(sizes, r.size)].push(bust / CM_PER_INCH);
  }
  if (busts.some((b) => b.length === 0)) throw new RangeError('every size needs a fitting rental with a bra size');
  const medians = busts.map((b) => interpolatedMedian(b, 1) * CM_PER_INCH);
  const centres = isotonic(
    medians,
    busts.map((b) => b.length),
  );
  for (let i = 1; i < centres.length; i++) centres[i] = Math.max(centres[i], centres[i - 1] + MIN_CENTRE_GAP_CM);
  const bounds = centres.slice(1).map((c, i) => (centres[i] + c) / 2);
  const n = sizes.length;
  const lows = [bounds[0] - (bounds[1] - bounds[0]), ...bounds];
  const highs = [...bounds, bounds[n - 2] + (bounds[n - 2] - bounds[n - 3])];
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return sizes.map((size, i) => ({
    size,
    rentals: busts[i].length,
    median: r1(medians[i]),
    centre: r1(centres[i]),
    min: r1(lows[i]),
    max: r1(highs[i]),
  }));
}

export interface AnswerFlags {
  /** Send `"method": "bra_size"` with the chest read from the bra size. */
  readonly braMethod: boolean;
}

/** What a rental's customer answers, as the answers route takes them; `given` says which answers are in. */
export interface RentalAnswers {
  readonly answers: Record<string, unknown>;
  readonly given: { readonly heightWeight: boolean; readonly chest: boolean; readonly usualSize: boolean };
}

const within = (v: number, limits: { min: number; max: number }) => v >= limits.min && v <= limits.max;

/**
 * Height, weight and age when given and plausible (inside what the service accepts), the chest from the bra size, and
 * her usual size's label when she has rented on earlier days.
 */
export function rentalAnswers(r: Rental, usualLabel: string | null, flags: AnswerFlags): RentalAnswers {
  const answers: Record<string, unknown> = {};
  if (r.heightIn !== null && within(r.heightIn * CM_PER_INCH, ANSWER_LIMITS.height)) {
    answers.height = { value: r.heightIn, unit: 'in' };
  }
  if (r.weightLbs !== null && within(r.weightLbs * KG_PER_POUND, ANSWER_LIMITS.weight)) {
    answers.weight = { value: r.weightLbs, unit: 'lb' };
  }
  if (r.age !== null && within(r.age, ANSWER_LIMITS.age)) answers.age = r.age;
  const bust = bustCm(r.bustBand, r.cup);
  if (bust !== null && within(bust, ZONE_LIMITS.chest)) {
    answers.chest = { value: Math.round(bust * 10) / 10, unit: 'cm', ...(flags.braMethod ? { method: 'bra_size' } : {}) };
  }
  if (usualLabel !== null) answers.usual_size = usualLabel;
  return {
    answers,
    given: {
      heightWeight: 'height' in answers && 'weight' in answers,
      chest: 'chest' in answers,
      usualSize: usualLabel !== null,
    },
  };
}

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
