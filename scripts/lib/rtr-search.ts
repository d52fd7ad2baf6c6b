/**
 * Choosing a setting when the evaluation can barely tell candidates apart: the one-standard-error rule. Among the
 * candidates whose mean loss exceeds the best's by at most one standard error of the paired per-row difference, take the
 * one listed first in order of preference (the most conservative).
 */

export interface Candidate {
  /** Per-row losses on the same rows, in the same order, for every candidate. */
  readonly losses: Float64Array;
}

const mean = (xs: Float64Array) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Mean of a − b and its standard error, pairing rows. */
export function pairedDifference(a: Float64Array, b: Float64Array): { mean: number; standardError: number } {
  const n = a.length;
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    sum += d;
    squares += d * d;
  }
  const m = sum / n;
  const variance = n > 1 ? (squares - n * m * m) / (n - 1) : 0;
  return { mean: m, standardError: Math.sqrt(Math.max(variance, 0) / n) };
}

/**
 * The index of the chosen candidate: `preference` lists candidate indices, most preferred first; the first within one
 * standard error of the lowest mean loss wins.
 */
export function oneStandardErrorChoice(candidates: readonly Candidate[], preference: readonly number[]): number {
  const means = candidates.map((c) => mean(c.losses));
  const best = means.indexOf(Math.min(...means));
  return (
    preference.find((k) => {
      const d = pairedDifference(candidates[k].losses, candidates[best].losses);
      return d.mean <= d.standardError;
    }) ?? best
  );
}
