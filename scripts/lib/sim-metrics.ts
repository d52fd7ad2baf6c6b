/**
 * The simulation's scores on new shoppers: exact-size accuracy, the calibration of `confidence` (ECE, 10 bins, as
 * eval-fit reports it), and the paired difference of two engines' accuracy on the same shoppers with its standard
 * error, so a gap is read against the noise of the sample.
 */
import { ece } from './fit-metrics.js';
import { pairedDifference } from './rtr-search.js';

/**
 * One new shopper's answer from one engine: her true size, the size recommended and its stated confidence (NaN when the
 * engine states none for that size: then no ECE).
 */
export interface Answer {
  readonly truth: number;
  readonly predicted: number;
  readonly confidence: number;
}

export interface Scores {
  readonly n: number;
  /** Share recommended exactly their true size. */
  readonly exact: number;
  readonly ece: number;
  readonly meanConfidence: number;
}

export function score(answers: readonly Answer[]): Scores {
  const n = answers.length;
  if (n === 0) return { n, exact: NaN, ece: NaN, meanConfidence: NaN };
  const hits = answers.filter((a) => a.truth === a.predicted).length;
  const calibrated = answers.every((a) => Number.isFinite(a.confidence));
  return {
    n,
    exact: hits / n,
    ece: calibrated ? ece(answers.map((a) => ({ confidence: a.confidence, hit: a.truth === a.predicted, weight: 1 }))) : NaN,
    meanConfidence: calibrated ? answers.reduce((s, a) => s + a.confidence, 0) / n : NaN,
  };
}

const hits = (answers: readonly Answer[]) => Float64Array.from(answers, (a) => Number(a.truth === a.predicted));

/**
 * Accuracy of `a` minus accuracy of `b` on the same shoppers (index by index), and the standard error of that
 * difference (paired: the shoppers both get right or both get wrong add no noise).
 */
export function accuracyDifference(a: readonly Answer[], b: readonly Answer[]): { difference: number; se: number } {
  if (a.length !== b.length) throw new RangeError('accuracy difference: the same shoppers in both samples');
  const d = pairedDifference(hits(a), hits(b));
  return { difference: d.mean, se: d.standardError };
}
