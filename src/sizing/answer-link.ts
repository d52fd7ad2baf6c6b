import { growth, LEARNING } from './learning.js';
import { cholesky, choleskySolve, type Matrix } from './linalg.js';
import { upperTail } from './normal.js';

/**
 * How a store's outcomes say its answers should read what a shopper gave: learned per store, online, from the lines
 * bought after a fit session. Where her size truly lay (a chart position, 0 = the first size) is modelled as
 *
 *   y = β · x + ε,  ε ~ N(0, σ²)
 *
 * with x the answer's own reading of her: where the stated chart puts her body (the mean position of its answer), the
 * size she says she usually wears, and the learned offset of the product (and hers). One such regression per kind of
 * answer (body only, usual size only, both), each with its own scatter σ², so a store whose shoppers know their size
 * better than their height and weight tell learns to trust the size they name, one whose products run further than
 * their offsets say learns to move them further, and one whose answers scatter more or less than the body model
 * claims widens or narrows them. Each regression is shrunk towards what the engine assumes with no outcomes (Zellner's
 * g-prior: halfway once `LINK.strength` outcomes are in), so a handful of outcomes changes little.
 *
 * Kept as additive sums with the exact decay of learning.ts, so they are added to in the transaction that records an
 * outcome and taken back exactly when a line's lesson is replaced. Pure and deterministic.
 */

/** What an answer read of her, in chart positions; null where she gave nothing of that kind. */
export interface AnswerFeatures {
  /** Mean chart position of the stated chart's answer for her body (without learned offsets or her usual size). */
  readonly chart: number | null;
  /** Chart position of the size she usually wears, when the chart has it. */
  readonly usual: number | null;
  /** The learned offset (the product's and hers) the answer used, in size steps. */
  readonly offset: number;
}

export const LINK_KINDS = ['chart', 'usual', 'both'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** The decaying sums of one kind's regression: x·xᵀ (row-major), x·y, y², and the weight. */
export interface LinkSums {
  readonly xx: readonly number[];
  readonly xy: readonly number[];
  readonly yy: number;
  readonly weight: number;
  /** Outcomes counted, not decayed. */
  readonly count: number;
}

/** A fitted regression, ready to answer: coefficients and scatter, and how many outcomes it rests on. */
export interface AnswerLink {
  readonly kind: LinkKind;
  readonly beta: readonly number[];
  readonly sd: number;
  readonly evidence: number;
}

interface LinkSettings {
  /** Outcomes' worth of the engine's assumptions: the regression moves halfway to the data at this weight. */
  readonly strength: number;
  /** Fewer (decayed) outcomes than this, and the engine answers as it does without a link. */
  readonly minimum: number;
}

export const LINK: LinkSettings = { strength: 50, minimum: 20 };

/**
 * What the engine assumes with no outcomes, per kind: the size is where the chart (or her usual size) puts her, moved
 * by the learned offset; with both, halfway between them (the body's answer and a usual size are about equally
 * precise, USUAL_SIZE_SD 0.9 against a body answer's spread of about a size); and the scatter of each.
 */
const PRIOR: Readonly<Record<LinkKind, { beta: readonly number[]; variance: number }>> = {
  chart: { beta: [0, 1, 1], variance: 1 },
  usual: { beta: [0, 1, 1], variance: 0.81 },
  both: { beta: [0, 0.5, 0.5, 1], variance: 0.5 },
};

/** The kind of an answer's features, or null when it read neither a body nor a usual size. */
export function linkKind(x: AnswerFeatures): LinkKind | null {
  if (x.chart !== null && x.usual !== null) return 'both';
  if (x.chart !== null) return 'chart';
  return x.usual !== null ? 'usual' : null;
}

/** The regressors of an answer's kind: an intercept, then the positions it read, then the offset. */
function regressors(x: AnswerFeatures, kind: LinkKind): number[] {
  if (kind === 'chart') return [1, x.chart as number, x.offset];
  if (kind === 'usual') return [1, x.usual as number, x.offset];
  return [1, x.chart as number, x.usual as number, x.offset];
}

export const noLinkSums = (kind: LinkKind): LinkSums => {
  const k = PRIOR[kind].beta.length;
  return { xx: new Array<number>(k * k).fill(0), xy: new Array<number>(k).fill(0), yy: 0, weight: 0, count: 0 };
};

/** One outcome's contribution: she bought after an answer that read `x`, and her size lay at chart position `y`. */
export function linkSumsOf(x: AnswerFeatures, y: number, at: Date): { kind: LinkKind; sums: LinkSums } | null {
  const kind = linkKind(x);
  if (kind === null || !Number.isFinite(y)) return null;
  const r = regressors(x, kind);
  if (!r.every(Number.isFinite)) return null;
  const w = growth(at, LINK_TAU_DAYS);
  return {
    kind,
    sums: { xx: r.flatMap((a) => r.map((b) => w * a * b)), xy: r.map((a) => w * a * y), yy: w * y * y, weight: w, count: 1 },
  };
}

/** The decay of learning.ts: an outcome a year old weighs 1/e. */
const LINK_TAU_DAYS = LEARNING.tauDays;

export function addLinkSums(a: LinkSums, b: LinkSums, sign: 1 | -1 = 1): LinkSums {
  return {
    xx: a.xx.map((v, i) => v + sign * b.xx[i]),
    xy: a.xy.map((v, i) => v + sign * b.xy[i]),
    yy: a.yy + sign * b.yy,
    weight: a.weight + sign * b.weight,
    count: a.count + sign * b.count,
  };
}

/** The store's regression of one kind at `now`, or null while it rests on fewer than `LINK.minimum` outcomes. */
export function fitLink(kind: LinkKind, sums: LinkSums, now: Date, settings: LinkSettings = LINK): AnswerLink | null {
  const decay = 1 / growth(now, LINK_TAU_DAYS);
  const n = sums.weight * decay;
  if (!(n >= settings.minimum)) return null;
  const prior = PRIOR[kind];
  const k = prior.beta.length;
  const xx = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (__, j) => sums.xx[i * k + j] * decay));
  const xy = sums.xy.map((v) => v * decay);
  // least squares, with a whisker of ridge so a column nobody varies (every offset 0) stays solvable
  const ridge = xx.map((row, i) => row.map((v, j) => v + (i === j ? 1e-6 * n : 0)));
  const ols = solve(ridge, xy);
  if (ols === null) return null;
  const g = n / settings.strength;
  const beta = ols.map((b, i) => (g * b + prior.beta[i]) / (1 + g));
  // Σ (y − β·x)² = y² − 2 β·xy + βᵀ·xx·β
  let residual = sums.yy * decay - 2 * beta.reduce((s, b, i) => s + b * xy[i], 0);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) residual += beta[i] * xx[i][j] * beta[j];
  const variance = (settings.strength * prior.variance + Math.max(residual, 0)) / (settings.strength + n);
  return { kind, beta, sd: Math.sqrt(variance), evidence: n };
}

/**
 * The answer a link gives: P(her size is s) for each of `sizes` chart positions, her size normal around β·x with the
 * link's scatter, each size taking the positions within half a step of it (the first and last sizes everything beyond).
 */
export function linkProbabilities(link: AnswerLink, x: AnswerFeatures, sizes: number): number[] {
  const mean = link.beta.reduce((s, b, i) => s + b * regressors(x, link.kind)[i], 0);
  const below = (edge: number) => 1 - upperTail((edge - mean) / link.sd);
  return Array.from({ length: sizes }, (_, s) => (s === sizes - 1 ? 1 : below(s + 0.5)) - (s === 0 ? 0 : below(s - 0.5)));
}

/** Solves a·x = b for a symmetric positive definite `a`; null when it is not (numerically). */
function solve(a: Matrix, b: readonly number[]): number[] | null {
  try {
    return choleskySolve(cholesky(a), b);
  } catch {
    return null;
  }
}
