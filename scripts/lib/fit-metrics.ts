/**
 * The arithmetic of the fit evaluation (scripts/eval-fit.ts), kept pure so it is unit-tested on hand-made data:
 * scores of predicted sizes against true sizes, the two baselines, and the groups results are reported by.
 */
import { ols } from '../../src/sizing/linalg.js';
import type { Sex } from '../../src/sizing/types.js';

/** One person's prediction on one chart. Sizes are chart indices (smallest first). */
export interface Scored {
  readonly truth: number;
  readonly predicted: number;
  /** The published confidence of the predicted size. */
  readonly confidence: number;
  /** Probability of every size (chart order), as published; sizes not listed are 0. */
  readonly probabilities: readonly number[];
  /** Survey sample weight, 1 when unweighted. */
  readonly weight: number;
}

export interface Summary {
  readonly n: number;
  readonly exact: number;
  readonly withinOne: number;
  /** Expected calibration error of `confidence`, 10 equal-width bins. */
  readonly ece: number;
  readonly meanConfidence: number;
  /** Multi-class Brier score: Σ over sizes of (p − [size is true])², averaged. */
  readonly brier: number;
  /** −log p(true size), p floored at LOG_LOSS_FLOOR, averaged. */
  readonly logLoss: number;
}

/** Probabilities are published to three decimals and sizes under 0.005 are not listed: a 0 reads as 0.001. */
export const LOG_LOSS_FLOOR = 0.001;

const total = (rows: readonly { weight: number }[]) => rows.reduce((s, r) => s + r.weight, 0);
const mean = <T extends { weight: number }>(rows: readonly T[], f: (r: T) => number) =>
  rows.reduce((s, r) => s + r.weight * f(r), 0) / total(rows);

/** Weighted ECE over 10 equal bins of confidence: Σ_bins (weight share) × |hit rate − mean confidence|. */
export function ece(rows: readonly { confidence: number; hit: boolean; weight: number }[]): number {
  const bins = Array.from({ length: 10 }, () => ({ w: 0, conf: 0, hit: 0 }));
  for (const r of rows) {
    const b = bins[Math.min(Math.floor(r.confidence * 10), 9)];
    b.w += r.weight;
    b.conf += r.weight * r.confidence;
    b.hit += r.hit ? r.weight : 0;
  }
  const w = total(rows);
  return bins.reduce((s, b) => s + (b.w === 0 ? 0 : ((b.w / w) * Math.abs(b.hit - b.conf)) / b.w), 0);
}

export function summarise(rows: readonly Scored[]): Summary {
  if (rows.length === 0) return { n: 0, exact: NaN, withinOne: NaN, ece: NaN, meanConfidence: NaN, brier: NaN, logLoss: NaN };
  return {
    n: rows.length,
    exact: mean(rows, (r) => (r.truth === r.predicted ? 1 : 0)),
    withinOne: mean(rows, (r) => (Math.abs(r.truth - r.predicted) <= 1 ? 1 : 0)),
    ece: ece(rows.map((r) => ({ confidence: r.confidence, hit: r.truth === r.predicted, weight: r.weight }))),
    meanConfidence: mean(rows, (r) => r.confidence),
    brier: mean(rows, (r) => r.probabilities.reduce((s, p, i) => s + (p - (i === r.truth ? 1 : 0)) ** 2, 0)),
    logLoss: mean(rows, (r) => -Math.log(Math.max(r.probabilities[r.truth] ?? 0, LOG_LOSS_FLOOR))),
  };
}

/** Share (weighted) of rows whose point prediction is the true size / within one size. */
export function accuracy(rows: readonly { truth: number; predicted: number; weight: number }[]): {
  exact: number;
  withinOne: number;
} {
  return {
    exact: mean(rows, (r) => (r.truth === r.predicted ? 1 : 0)),
    withinOne: mean(rows, (r) => (Math.abs(r.truth - r.predicted) <= 1 ? 1 : 0)),
  };
}

/**
 * The ECE a perfectly calibrated predictor shows on these confidences and weights (sampling noise alone), averaged over
 * `reps` simulations with the given uniform random source.
 */
export function eceNoiseFloor(rows: readonly { confidence: number; weight: number }[], random: () => number, reps = 100): number {
  let sum = 0;
  for (let r = 0; r < reps; r++) sum += ece(rows.map((x) => ({ ...x, hit: random() < x.confidence })));
  return sum / reps;
}

export interface Body {
  readonly sex: Sex;
  readonly heightCm: number;
  readonly weightKg: number;
  readonly age: number;
}

export const bmiOf = (b: { heightCm: number; weightKg: number }) => b.weightKg / (b.heightCm / 100) ** 2;

export const AGE_BANDS = [
  { name: '18–39', min: 18, max: 40 },
  { name: '40–59', min: 40, max: 60 },
  { name: '60+', min: 60, max: Infinity },
] as const;
export const BMI_CLASSES = [
  { name: 'BMI < 25', min: 0, max: 25 },
  { name: 'BMI 25–30', min: 25, max: 30 },
  { name: 'BMI 30–35', min: 30, max: 35 },
  { name: 'BMI ≥ 35', min: 35, max: Infinity },
] as const;

export const ageBand = (b: Body) => AGE_BANDS.find((x) => b.age >= x.min && b.age < x.max)?.name ?? 'under 18';
export const bmiClass = (b: Body) => {
  const v = bmiOf(b);
  return BMI_CLASSES.find((x) => v >= x.min && v < x.max)?.name as string;
};

/**
 * Baseline 1, "least squares": per sex, each zone in cm regressed by OLS on height, weight, age and BMI (without age
 * when `withAge` is false); the prediction is the point estimate.
 */
export function leastSquares<T extends Body>(
  train: readonly T[],
  targets: (b: T) => readonly number[],
  options: { withAge: boolean; bySex: boolean },
): (b: Body) => number[] {
  const x = (b: Body) => {
    const row = [1, b.heightCm, b.weightKg, bmiOf(b)];
    if (options.withAge) row.push(b.age);
    return row;
  };
  const group = (b: Body): string => (options.bySex ? b.sex : 'all');
  const fits = new Map(
    [...new Set(train.map(group))].map((g) => {
      const rows = train.filter((b) => group(b) === g);
      return [g, ols(rows.map(x), rows.map(targets)).coefficients] as const;
    }),
  );
  return (b) => {
    const coefficients = fits.get(group(b));
    if (coefficients === undefined) throw new Error('the baseline has no training data');
    const row = x(b);
    return coefficients.map((c) => c.reduce((s, v, i) => s + v * row[i], 0));
  };
}

/**
 * Baseline 2, "most common size": per group key (sex, or 'all') and 1 kg/m² BMI bucket (16–40), the most common true
 * size among training people (ties to the smaller size); an empty bucket takes the nearest populated one.
 */
export function mostCommonSize<T extends Body>(
  train: readonly T[],
  truth: (b: T) => number,
  key: (b: Body) => string,
): (b: Body) => number {
  const bucket = (b: Body) => Math.min(Math.max(Math.floor(bmiOf(b)), 16), 40);
  const counts = new Map<string, Map<number, number>>();
  for (const b of train) {
    const k = `${key(b)}:${bucket(b)}`;
    const m = counts.get(k) ?? new Map<number, number>();
    const t = truth(b);
    m.set(t, (m.get(t) ?? 0) + 1);
    counts.set(k, m);
  }
  const mode = (m: Map<number, number>) => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
  return (b) => {
    for (let d = 0; d <= 30; d++) {
      for (const n of [bucket(b) - d, bucket(b) + d]) {
        const m = counts.get(`${key(b)}:${n}`);
        if (m !== undefined) return mode(m);
      }
    }
    throw new Error('the baseline has no training data');
  };
}
