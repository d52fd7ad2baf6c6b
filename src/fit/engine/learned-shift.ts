/**
 * Moving a shopper's size probabilities by what outcomes taught about the product: its sizes run `steps` sizes small
 * (positive) or large (negative), known to within `sd` steps. The shopper whose best size on the stated chart is `s`
 * needs `s + Δ`, Δ ~ N(steps, sd²), rounded to a size of the chart; sizes past either end count as the end size. The
 * uncertainty of the offset widens the answer, so confidence drops where the evidence is thin.
 */

/** Below this the offset is known to the size: the shift is a plain rounding of `steps`. */
const SHARP_SD = 1e-6;

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 on erf: absolute error below 1.5e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** P(round(Δ) = k) for Δ ~ N(steps, sd²). */
function stepProbability(k: number, steps: number, sd: number): number {
  if (sd < SHARP_SD) return Math.round(steps) === k ? 1 : 0;
  return normalCdf((k + 0.5 - steps) / sd) - normalCdf((k - 0.5 - steps) / sd);
}

/**
 * `probability` (P(best size = s) on the stated chart, chart order) moved by the learned offset. Sums to the same total.
 * Deterministic.
 */
export function shiftProbabilities(probability: readonly number[], steps: number, sd: number): number[] {
  const sizes = probability.length;
  const shifted = new Array<number>(sizes).fill(0);
  for (let s = 0; s < sizes; s++) {
    if (probability[s] === 0) continue;
    let placed = 0;
    for (let t = 0; t < sizes; t++) {
      const p = t === 0 || t === sizes - 1 ? 0 : stepProbability(t - s, steps, sd);
      shifted[t] += probability[s] * p;
      placed += p;
    }
    // the ends take everything beyond them: P(s + Δ ≤ 0) and P(s + Δ ≥ last)
    if (sizes === 1) {
      shifted[0] += probability[s];
      continue;
    }
    const low = sd < SHARP_SD ? (s + Math.round(steps) <= 0 ? 1 : 0) : normalCdf((0.5 - s - steps) / sd);
    const high = 1 - placed - low;
    shifted[0] += probability[s] * low;
    shifted[sizes - 1] += probability[s] * Math.max(high, 0);
  }
  return shifted;
}
