/**
 * Scores of predicted verdict probabilities against the verdicts seen: one-vs-rest AUC per verdict and their mean (the
 * figure Misra et al. 2018 and SFNet report), accuracy of the most probable verdict, calibration of that verdict's
 * probability (ECE, 10 bins) and log loss.
 */
import { ece } from './fit-metrics.js';
import { VERDICTS, type Verdict } from './rtr.js';
import type { Probabilities } from './rtr-ordinal.js';

export interface VerdictScores {
  readonly n: number;
  /** Mean of the three one-vs-rest AUCs (NaN when a verdict is missing from the rows). */
  readonly auc: number;
  readonly aucByVerdict: Readonly<Record<Verdict, number>>;
  readonly accuracy: number;
  readonly ece: number;
  readonly logLoss: number;
}

/** Area under the ROC curve of `scores` for the rows where `positive`: the Mann–Whitney statistic, ties counting half. */
export function auc(scores: readonly number[], positive: readonly boolean[]): number {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let positives = 0;
  let rankSum = 0;
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && scores[order[end + 1]] === scores[order[start]]) end++;
    const midRank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) {
      if (positive[order[k]]) {
        positives++;
        rankSum += midRank;
      }
    }
    start = end + 1;
  }
  const negatives = order.length - positives;
  if (positives === 0 || negatives === 0) return NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** −log p(verdict seen) of each row, p floored at 1e-12. */
export function rowLogLosses(predicted: readonly Probabilities[], seen: readonly Verdict[]): Float64Array {
  return Float64Array.from(predicted, (p, i) => -Math.log(Math.max(p[VERDICTS.indexOf(seen[i])], 1e-12)));
}

const argmax = (p: Probabilities) => (p[0] >= p[1] && p[0] >= p[2] ? 0 : p[1] >= p[2] ? 1 : 2);

export function scoreVerdicts(predicted: readonly Probabilities[], seen: readonly Verdict[]): VerdictScores {
  const truth = seen.map((v) => VERDICTS.indexOf(v));
  const aucByVerdict = Object.fromEntries(
    VERDICTS.map((v, k) => [
      v,
      auc(
        predicted.map((p) => p[k]),
        truth.map((t) => t === k),
      ),
    ]),
  ) as Record<Verdict, number>;
  const n = predicted.length;
  const hits = predicted.map((p, i) => argmax(p) === truth[i]);
  return {
    n,
    auc: VERDICTS.reduce((sum, v) => sum + aucByVerdict[v], 0) / VERDICTS.length,
    aucByVerdict,
    accuracy: hits.filter(Boolean).length / n,
    ece: ece(predicted.map((p, i) => ({ confidence: p[argmax(p)], hit: hits[i], weight: 1 }))),
    logLoss: rowLogLosses(predicted, seen).reduce((a, b) => a + b, 0) / n,
  };
}
