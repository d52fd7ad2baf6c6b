import { growth, LEARNING } from './learning.js';
import { cholesky, choleskySolve, type Matrix } from './linalg.js';
import { upperTail } from './normal.js';

/**
 * How a store's outcomes say its answers should read its shoppers: learned per store, online, from the lines bought
 * after a fit session. Where her size truly lay (a chart position, 0 = the first size) is modelled as
 *
 *   y = β · x + ε,  E[ε²] = v + d
 *
 * with x what the engine's own answer read of her: the mean position of that answer, the size she says she usually
 * wears, the learned offset of the product (and hers), and v the answer's own variance. β starts at "the answer's mean"
 * (1 on it, 0 elsewhere) and d at 0, so the answer is the engine's until outcomes say otherwise; then the answer's
 * distribution is moved to β · x and widened (by a normal of variance d) or narrowed (its positions drawn in towards
 * the mean) so that its variance is v + d, keeping its shape. One regression per kind of answer (body only, usual size
 * only, both), so a store whose shoppers know their size better than their height and weight tell learns to follow the
 * size they name, one whose products run further than their offsets say learns to move them further, and one whose
 * answers scatter more or less than the body model claims widens or narrows them. β is shrunk towards its start by
 * Zellner's g-prior (halfway once `LINK.strength` outcomes are in), d towards 0 as strongly.
 *
 * Kept as additive sums with the exact decay of learning.ts, so they are added to in the transaction that records an
 * outcome and taken back exactly when a line's lesson is replaced. Pure and deterministic.
 */

/** What an answer read of her, in chart positions (0 = the first size). */
export interface AnswerFeatures {
  /** The mean position of the engine's answer (with the learned offset and her usual size, as it weighs them). */
  readonly mean: number;
  /** The variance of that answer's positions. */
  readonly variance: number;
  /** Whether it read her body (height, weight, a measurement), not only a size she usually wears. */
  readonly body: boolean;
  /** The position of the size she usually wears, when the chart has it. */
  readonly usual: number | null;
  /** The learned offset (the product's and hers) the answer used, in size steps. */
  readonly offset: number;
}

export const LINK_KINDS = ['chart', 'usual', 'both'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** The decaying sums of one kind's regression: x·xᵀ (row-major), x·y, y², the answers' variances, and the weight. */
export interface LinkSums {
  readonly xx: readonly number[];
  readonly xy: readonly number[];
  readonly yy: number;
  readonly vv: number;
  readonly weight: number;
  /** Outcomes counted, not decayed. */
  readonly count: number;
}

/** A fitted regression, ready to answer: its coefficients, the variance it adds to answers', its outcomes. */
export interface AnswerLink {
  readonly kind: LinkKind;
  readonly beta: readonly number[];
  /** Added to an answer's own variance (negative: answers are surer than they say), in positions². */
  readonly extraVariance: number;
  readonly evidence: number;
}

interface LinkSettings {
  /** Outcomes' worth of the engine's assumptions: the regression moves halfway to the data at this weight. */
  readonly strength: number;
  /** Fewer (decayed) outcomes than this, and the engine answers as it does without a link. */
  readonly minimum: number;
}

export const LINK: LinkSettings = { strength: 50, minimum: 20 };

/** Where each kind's coefficients start: the answer's own mean, nothing else. */
const START: Readonly<Record<LinkKind, readonly number[]>> = {
  chart: [0, 1, 0],
  usual: [0, 1, 0],
  both: [0, 1, 0, 0],
};
/** An answer never narrows below this share of its own variance, nor below this variance. */
const MIN_VARIANCE_SHARE = 0.1;
const MIN_VARIANCE = 0.01;

/** The kind of an answer's features. */
export function linkKind(x: AnswerFeatures): LinkKind {
  if (x.body) return x.usual !== null ? 'both' : 'chart';
  return 'usual';
}

/** The regressors of an answer's kind: an intercept, its mean, her usual size when read with the body, the offset. */
function regressors(x: AnswerFeatures, kind: LinkKind): number[] {
  return kind === 'both' ? [1, x.mean, x.usual as number, x.offset] : [1, x.mean, x.offset];
}

export const noLinkSums = (kind: LinkKind): LinkSums => {
  const k = START[kind].length;
  return { xx: new Array<number>(k * k).fill(0), xy: new Array<number>(k).fill(0), yy: 0, vv: 0, weight: 0, count: 0 };
};

/** One outcome's contribution: she bought after an answer that read `x`, and her size lay at chart position `y`. */
export function linkSumsOf(x: AnswerFeatures, y: number, at: Date): { kind: LinkKind; sums: LinkSums } | null {
  const kind = linkKind(x);
  const r = regressors(x, kind);
  if (![...r, y, x.variance].every(Number.isFinite)) return null;
  const w = growth(at, LINK_TAU_DAYS);
  const sums = { xx: r.flatMap((a) => r.map((b) => w * a * b)), xy: r.map((a) => w * a * y), yy: w * y * y, vv: w * x.variance };
  return { kind, sums: { ...sums, weight: w, count: 1 } };
}

/** The decay of learning.ts: an outcome a year old weighs 1/e. */
const LINK_TAU_DAYS = LEARNING.tauDays;

export function addLinkSums(a: LinkSums, b: LinkSums, sign: 1 | -1 = 1): LinkSums {
  return {
    xx: a.xx.map((v, i) => v + sign * b.xx[i]),
    xy: a.xy.map((v, i) => v + sign * b.xy[i]),
    yy: a.yy + sign * b.yy,
    vv: a.vv + sign * b.vv,
    weight: a.weight + sign * b.weight,
    count: a.count + sign * b.count,
  };
}

/** The store's regression of one kind at `now`, or null while it rests on fewer than `LINK.minimum` outcomes. */
export function fitLink(kind: LinkKind, sums: LinkSums, now: Date, settings: LinkSettings = LINK): AnswerLink | null {
  const decay = 1 / growth(now, LINK_TAU_DAYS);
  const n = sums.weight * decay;
  if (!(n >= settings.minimum)) return null;
  const start = START[kind];
  const k = start.length;
  const xx = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (__, j) => sums.xx[i * k + j] * decay));
  const xy = sums.xy.map((v) => v * decay);
  // least squares, with a little ridge: the answer's mean is itself made of the other regressors
  const ridge = xx.map((row, i) => row.map((v, j) => v + (i === j ? 1e-4 * n : 0)));
  const ols = solve(ridge, xy);
  if (ols === null) return null;
  const g = n / settings.strength;
  const beta = ols.map((b, i) => (g * b + start[i]) / (1 + g));
  // Σ (y − β·x)² = y² − 2 β·xy + βᵀ·xx·β, against the variance the answers claimed
  let residual = sums.yy * decay - 2 * beta.reduce((s, b, i) => s + b * xy[i], 0);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) residual += beta[i] * xx[i][j] * beta[j];
  const extraVariance = (Math.max(residual, 0) - sums.vv * decay) / (settings.strength + n);
  return { kind, beta, extraVariance, evidence: n };
}

/**
 * The answer a link gives: the engine's distribution over the chart's `probability.length` positions, moved to the
 * link's mean and brought to its variance, its shape kept. Widening adds a normal of the extra variance (each size
 * taking what falls within half a step of it, the end sizes the tails); narrowing draws every position towards the
 * mean, each moved mass shared between the two sizes around where it lands.
 */
export function linkProbabilities(link: AnswerLink, x: AnswerFeatures, probability: readonly number[]): number[] {
  const sizes = probability.length;
  const mean = link.beta.reduce((s, b, i) => s + b * regressors(x, link.kind)[i], 0);
  const shift = mean - x.mean;
  const out = new Array<number>(sizes).fill(0);
  if (link.extraVariance >= 0) {
    const sd = Math.sqrt(link.extraVariance);
    probability.forEach((p, t) => {
      if (p > 0) spread(out, p, t + shift, sd);
    });
    return out;
  }
  const target = Math.max(x.variance + link.extraVariance, x.variance * MIN_VARIANCE_SHARE, MIN_VARIANCE);
  const scale = x.variance > 0 ? Math.min(1, Math.sqrt(target / x.variance)) : 1;
  probability.forEach((p, t) => {
    if (p > 0) spread(out, p, mean + (t - x.mean) * scale, 0);
  });
  return out;
}

/** Adds mass `p` at position `at` (spread by a normal of sd `sd`, or shared between its neighbours) to `out`. */
function spread(out: number[], p: number, at: number, sd: number): void {
  const last = out.length - 1;
  if (sd > 1e-9) {
    const below = (edge: number) => 1 - upperTail((edge - at) / sd);
    for (let s = 0; s <= last; s++) out[s] += p * ((s === last ? 1 : below(s + 0.5)) - (s === 0 ? 0 : below(s - 0.5)));
    return;
  }
  const clamped = Math.min(Math.max(at, 0), last);
  const low = Math.floor(clamped);
  const share = clamped - low;
  out[low] += p * (1 - share);
  if (share > 0) out[low + 1] += p * share;
}

/** Solves a·x = b for a symmetric positive definite `a`; null when it is not (numerically). */
function solve(a: Matrix, b: readonly number[]): number[] | null {
  try {
    return choleskySolve(cholesky(a), b);
  } catch {
    return null;
  }
}
