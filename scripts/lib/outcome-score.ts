/**
 * Scoring the service's answers against what the customers said, for `npm run eval:outcomes`: the size distribution an
 * answer publishes, the verdict probabilities it implies for the size rented, and the figures of a set of rentals
 * (rtr-metrics.ts's AUC, accuracy, ECE and log loss, plus the calibration of P(fit) and of `confidence`).
 */
import { ece } from './fit-metrics.js';
import { VERDICTS, type Verdict } from './rtr.js';
import { auc, scoreVerdicts, type VerdictScores } from './rtr-metrics.js';
import type { Probabilities } from './rtr-ordinal.js';

/** A size a published answer names with its probability (the recommendation, or one of its alternatives). */
export interface Listed {
  readonly label: string;
  readonly p: number;
}

/** The probability a size not listed is given at least (the answer rounds to 3 decimals and lists from 0.005). */
export const UNLISTED_FLOOR = 0.001;

/**
 * The answer's probability of every size of the chart (`labels`, smallest first): the sizes listed as published,
 * the sizes not listed sharing what is left of the mass equally, each at least UNLISTED_FLOOR; then normalised.
 */
export function sizeDistribution(labels: readonly string[], listed: readonly Listed[]): number[] {
  const p = labels.map(() => NaN);
  for (const { label, p: q } of listed) {
    const i = labels.indexOf(label);
    if (i < 0) throw new RangeError(`size ${label} is not a size of the chart`);
    p[i] = q;
  }
  const unlisted = p.filter((q) => Number.isNaN(q)).length;
  const rest = Math.max(0, 1 - p.reduce((s, q) => s + (Number.isNaN(q) ? 0 : q), 0));
  const share = unlisted === 0 ? 0 : Math.max(rest / unlisted, UNLISTED_FLOOR);
  const filled = p.map((q) => (Number.isNaN(q) ? share : q));
  const total = filled.reduce((s, q) => s + q, 0);
  return filled.map((q) => q / total);
}

/**
 * The verdicts a size distribution implies for the size rented (index `rented`): too small when her best size is a
 * bigger one, a fit at it, too large when it is a smaller one. [small, fit, large].
 */
export function verdictsAt(distribution: readonly number[], rented: number): Probabilities {
  let small = 0;
  let large = 0;
  distribution.forEach((q, s) => {
    if (s > rented) small += q;
    else if (s < rented) large += q;
  });
  return [small, distribution[rented], large];
}

/** One scored rental: the verdict seen and each model's verdict probabilities. */
export interface ScoredRow<M extends string> {
  readonly verdict: Verdict;
  readonly predictions: Readonly<Record<M, Probabilities>>;
}

/** What the service's answer says beyond its verdict probabilities. */
export interface AnswerFacts {
  /** The recommended size's published probability. */
  readonly confidence: number;
  /** Whether she rented the size recommended. */
  readonly rentedRecommended: boolean;
}

/** rtr-metrics.ts's scores (ECE: of the most probable verdict's probability), and the answer's own. */
export interface ModelFigures extends VerdictScores {
  /** ECE of P(fit) at the size rented against "the verdict was fit". */
  readonly eceFit: number;
  readonly meanSmall: number;
  readonly meanFit: number;
  readonly meanLarge: number;
}

export interface ObservedShares {
  readonly small: number;
  readonly fit: number;
  readonly large: number;
}

export interface AnswerFigures {
  readonly meanConfidence: number;
  /** ECE of `confidence` against "she rented the size recommended and it fitted". */
  readonly eceConfidence: number;
  /** Share of rentals in the size recommended, and of those that fitted. */
  readonly rentedRecommended: number;
  readonly recommendedAndFit: number;
}

export function modelFigures(predicted: readonly Probabilities[], seen: readonly Verdict[]): ModelFigures {
  const s = scoreVerdicts(predicted, seen);
  const mean = (k: number) => predicted.reduce((sum, p) => sum + p[k], 0) / predicted.length;
  return {
    n: s.n,
    auc: s.auc,
    aucByVerdict: s.aucByVerdict,
    accuracy: s.accuracy,
    ece: s.ece,
    logLoss: s.logLoss,
    eceFit: ece(predicted.map((p, i) => ({ confidence: p[1], hit: seen[i] === 'fit', weight: 1 }))),
    meanSmall: mean(0),
    meanFit: mean(1),
    meanLarge: mean(2),
  };
}

export function observedShares(seen: readonly Verdict[]): ObservedShares {
  const share = (v: Verdict) => seen.filter((x) => x === v).length / seen.length;
  return { small: share('small'), fit: share('fit'), large: share('large') };
}

export function answerFigures(facts: readonly AnswerFacts[], seen: readonly Verdict[]): AnswerFigures {
  const n = facts.length;
  const hits = facts.map((f, i) => f.rentedRecommended && seen[i] === 'fit');
  return {
    meanConfidence: facts.reduce((s, f) => s + f.confidence, 0) / n,
    eceConfidence: ece(facts.map((f, i) => ({ confidence: f.confidence, hit: hits[i], weight: 1 }))),
    rentedRecommended: facts.filter((f) => f.rentedRecommended).length / n,
    recommendedAndFit: hits.filter(Boolean).length / n,
  };
}

/**
 * The rank-only figure of a score that grows as an item runs small (a learned offset): the mean of the three
 * one-vs-rest AUCs, ranking "small" by the score, "large" by its opposite and "fit" by its nearness to 0.
 */
export function offsetAuc(scores: readonly number[], seen: readonly Verdict[]): number {
  const ranks: Readonly<Record<Verdict, (x: number) => number>> = { small: (x) => x, fit: (x) => -Math.abs(x), large: (x) => -x };
  return (
    VERDICTS.reduce(
      (sum, v) =>
        sum +
        auc(
          scores.map(ranks[v]),
          seen.map((x) => x === v),
        ),
      0,
    ) / VERDICTS.length
  );
}

/** p-quantile (0–1) of `values` by linear interpolation between order statistics. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const at = p * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (at - lo) * (sorted[hi] - sorted[lo]);
}
