/**
 * One time split of the RentTheRunway evaluation: the chart and the ordinal links are fitted on the rentals before
 * `fitBefore` only, and the rentals in [`scoreFrom`, `scoreBefore`) are predicted. The learned offsets come from the
 * online replay, so a scored rental's offset is built from earlier rentals alone, the scored ones before it included
 * (the service learns as outcomes arrive).
 */
import type { LearningSettings } from '../../src/sizing/learning.js';
import { VERDICTS, type Rental, type Verdict } from './rtr.js';
import { type ChartAnswers, fitChart, RTR_ANSWERS, SIZE_STEP } from './rtr-chart.js';
import { fitOrdinal, type GapRow, type OrdinalLink, ordinalProbabilities, type Probabilities } from './rtr-ordinal.js';
import { replayOffsets } from './rtr-replay.js';

export interface Split {
  readonly fitBefore: number;
  readonly scoreFrom: number;
  readonly scoreBefore: number;
}

/** The per-item majority baseline's smoothing: an item's earlier verdicts plus this many rentals at the global shares. */
const ITEM_PRIOR = 2;

export interface PreparedSplit {
  readonly split: Split;
  /** (recommended − rented) / SIZE_STEP for every rental, by the chart fitted before the split. */
  readonly gaps: Float64Array;
  readonly fitted: readonly number[];
  readonly scored: readonly number[];
  /** Shares of [small, fit, large] among the rentals fitted on. */
  readonly prior: Probabilities;
  readonly neverLink: OrdinalLink;
}

const verdictsOf = (rentals: readonly Rental[], rows: readonly number[]): Verdict[] => rows.map((i) => rentals[i].verdict);

export function prepareSplit(rentals: readonly Rental[], split: Split, answers: ChartAnswers = RTR_ANSWERS): PreparedSplit {
  const fitted = rentals.flatMap((r, i) => (r.at < split.fitBefore ? [i] : []));
  const scored = rentals.flatMap((r, i) => (r.at >= split.scoreFrom && r.at < split.scoreBefore ? [i] : []));
  const chart = fitChart(
    fitted.map((i) => rentals[i]),
    answers,
  );
  const gaps = Float64Array.from(rentals, (r) => (chart.recommend(r) - r.size) / SIZE_STEP);
  const verdicts = verdictsOf(rentals, fitted);
  const share = (v: Verdict) => verdicts.filter((x) => x === v).length / verdicts.length;
  const neverLink = fitOrdinal(
    fitted.map((i) => ({ gap: gaps[i], offset: 0, offsetSd: 0 })),
    verdicts,
    false,
  );
  return { split, gaps, fitted, scored, prior: [share('small'), share('fit'), share('large')], neverLink };
}

/** The engine that never learns: the chart's gap alone. */
export function neverLearns(p: PreparedSplit): Probabilities[] {
  return p.scored.map((i) => ordinalProbabilities(p.neverLink, { gap: p.gaps[i], offset: 0, offsetSd: 0 }));
}

/** The learning engine under `settings`: the chart's gap shifted by the item's learned offset, its own link. */
export function learns(
  rentals: readonly Rental[],
  p: PreparedSplit,
  settings: LearningSettings,
): { link: OrdinalLink; predictions: Probabilities[] } {
  const offsets = replayOffsets(rentals, settings);
  const row = (i: number): GapRow => ({ gap: p.gaps[i], offset: offsets.steps[i], offsetSd: offsets.sd[i] });
  const link = fitOrdinal(p.fitted.map(row), verdictsOf(rentals, p.fitted), true);
  return { link, predictions: p.scored.map((i) => ordinalProbabilities(link, row(i))) };
}

/** The item's earlier verdicts' shares, smoothed towards the global shares by ITEM_PRIOR rentals. */
export function itemMajority(p: PreparedSplit, history: readonly (readonly number[])[]): Probabilities[] {
  return p.scored.map((i) => {
    const counts = history[i];
    const n = counts[0] + counts[1] + counts[2];
    const [s, f, l] = VERDICTS.map((_, k) => (counts[k] + ITEM_PRIOR * p.prior[k]) / (n + ITEM_PRIOR));
    return [s, f, l] as const;
  });
}

/** The global shares for everyone. */
export function globalPrior(p: PreparedSplit): Probabilities[] {
  return p.scored.map(() => p.prior);
}

/**
 * The size each customer usually wears, as she would answer it before each rental: the median size of her rentals
 * reviewed on earlier days (null for her first day).
 */
export function usualSizes(rentals: readonly Rental[]): Map<Rental, number | null> {
  const earlier = new Map<string, number[]>();
  const usual = new Map<Rental, number | null>();
  // rentals are sorted by day: a day's rentals see only the days before
  for (let start = 0; start < rentals.length;) {
    let end = start;
    while (end < rentals.length && rentals[end].at === rentals[start].at) end++;
    for (let i = start; i < end; i++) {
      const sizes = earlier.get(rentals[i].userId);
      usual.set(rentals[i], sizes ? median(sizes) : null);
    }
    for (let i = start; i < end; i++) {
      const sizes = earlier.get(rentals[i].userId) ?? [];
      sizes.push(rentals[i].size);
      earlier.set(rentals[i].userId, sizes);
    }
    start = end;
  }
  return usual;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
