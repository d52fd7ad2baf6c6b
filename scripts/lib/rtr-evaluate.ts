/**
 * One time split of the RentTheRunway evaluation: the chart and the ordinal links are fitted on the rentals before
 * `fitBefore` only, and the rentals in [`scoreFrom`, `scoreBefore`) are predicted. The learned offsets come from the
 * online replay, so a scored rental's offset is built from earlier rentals alone, the scored ones before it included
 * (the service learns as outcomes arrive).
 */
import type { LearningSettings } from '../../src/fit/engine/learning.js';
import { VERDICTS, type Rental, type Verdict } from './rtr.js';
import { fitChart, SIZE_STEP } from './rtr-chart.js';
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

export function prepareSplit(rentals: readonly Rental[], split: Split): PreparedSplit {
  const fitted = rentals.flatMap((r, i) => (r.at < split.fitBefore ? [i] : []));
  const scored = rentals.flatMap((r, i) => (r.at >= split.scoreFrom && r.at < split.scoreBefore ? [i] : []));
  const chart = fitChart(fitted.map((i) => rentals[i]));
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
