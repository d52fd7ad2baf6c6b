/**
 * The ordinal link from a size gap to a fit verdict: an ordered logit on η = a·gap + b·offset, where gap is how many
 * steps the chart's recommendation lies above the size rented and offset the product's learned offset (both positive
 * when the customer needed a bigger size: "small"). The offset is known only to within sd, so each cumulative logit is
 * averaged over it, by the probit approximation E σ(z) ≈ σ(z / √(1 + π b² sd² / 8)) for z normal: an uncertain offset
 * flattens the probabilities towards the cut points. Fitted by maximum likelihood (BHHH steps with step halving).
 */
import { cholesky, choleskySolve } from '../../src/sizing/linalg.js';
import type { Verdict } from './rtr.js';

export interface GapRow {
  /** (recommended − rented) / SIZE_STEP: how many steps the chart says the customer's size lies above the one rented. */
  readonly gap: number;
  /** The product's learned offset and its sd (0 and 0 for the engine that never learns). */
  readonly offset: number;
  readonly offsetSd: number;
}

export interface OrdinalLink {
  readonly gapSlope: number;
  readonly offsetSlope: number;
  /** P(large) = σ(cutLarge − η); P(large or fit) = σ(cutSmall − η). */
  readonly cutLarge: number;
  readonly cutSmall: number;
}

/** [P(small), P(fit), P(large)]. */
export type Probabilities = readonly [number, number, number];

const PI_OVER_8 = Math.PI / 8;
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const FLOOR = 1e-12;

export function ordinalProbabilities(link: OrdinalLink, row: GapRow): Probabilities {
  const eta = link.gapSlope * row.gap + link.offsetSlope * row.offset;
  const s = Math.sqrt(1 + PI_OVER_8 * link.offsetSlope ** 2 * row.offsetSd ** 2);
  const large = sigmoid((link.cutLarge - eta) / s);
  const upToFit = sigmoid((link.cutSmall - eta) / s);
  return [1 - upToFit, upToFit - large, large];
}

/** θ = [a, b, cutLarge, log(cutSmall − cutLarge)]: the log keeps the cut points in order. */
const toLink = (t: readonly number[]): OrdinalLink => ({
  gapSlope: t[0],
  offsetSlope: t[1],
  cutLarge: t[2],
  cutSmall: t[2] + Math.exp(t[3]),
});

/** Log-likelihood of one row and its gradient in θ. */
function rowScore(t: readonly number[], row: GapRow, verdict: Verdict): { logLik: number; gradient: number[] } {
  const link = toLink(t);
  const eta = link.gapSlope * row.gap + link.offsetSlope * row.offset;
  const k = PI_OVER_8 * row.offsetSd ** 2;
  const s = Math.sqrt(1 + k * link.offsetSlope ** 2);
  const z1 = (link.cutLarge - eta) / s;
  const z2 = (link.cutSmall - eta) / s;
  const p1 = sigmoid(z1);
  const p2 = sigmoid(z2);
  // d log P / d z1 and d z2 for the verdict seen
  let logLik: number;
  let d1 = 0;
  let d2 = 0;
  if (verdict === 'large') {
    logLik = Math.log(Math.max(p1, FLOOR));
    d1 = 1 - p1;
  } else if (verdict === 'small') {
    logLik = Math.log(Math.max(1 - p2, FLOOR));
    d2 = -p2;
  } else {
    const p = Math.max(p2 - p1, FLOOR);
    logLik = Math.log(p);
    d1 = (-p1 * (1 - p1)) / p;
    d2 = (p2 * (1 - p2)) / p;
  }
  const dsdb = (k * link.offsetSlope) / s;
  const dz1db = -row.offset / s - (z1 * dsdb) / s;
  const dz2db = -row.offset / s - (z2 * dsdb) / s;
  return {
    logLik,
    gradient: [(-(d1 + d2) * row.gap) / s, d1 * dz1db + d2 * dz2db, (d1 + d2) / s, (d2 * Math.exp(t[3])) / s],
  };
}

function total(t: readonly number[], rows: readonly GapRow[], verdicts: readonly Verdict[]): number {
  let sum = 0;
  for (let i = 0; i < rows.length; i++) sum += rowScore(t, rows[i], verdicts[i]).logLik;
  return sum;
}

/**
 * The maximum-likelihood link on these rows. `withOffset` false fixes the offset's slope at 0 (the engine that never
 * learns). Starts from the verdicts' shares, so it converges from anywhere sensible.
 */
export function fitOrdinal(rows: readonly GapRow[], verdicts: readonly Verdict[], withOffset: boolean): OrdinalLink {
  const share = (v: Verdict) => verdicts.filter((x) => x === v).length / verdicts.length;
  const logit = (p: number) => Math.log(p / (1 - p));
  const cutLarge = logit(share('large'));
  let t = [0, 0, cutLarge, Math.log(logit(1 - share('small')) - cutLarge)];
  const free = withOffset ? [0, 1, 2, 3] : [0, 2, 3];
  let value = total(t, rows, verdicts);
  for (let iteration = 0; iteration < 50; iteration++) {
    const g = free.map(() => 0);
    const outer = free.map(() => free.map(() => 0));
    for (let i = 0; i < rows.length; i++) {
      const { gradient } = rowScore(t, rows[i], verdicts[i]);
      free.forEach((a, x) => {
        g[x] += gradient[a];
        free.forEach((b, y) => (outer[x][y] += gradient[a] * gradient[b]));
      });
    }
    const step = choleskySolve(cholesky(outer), g);
    let scale = 1;
    let next = t;
    let nextValue = -Infinity;
    for (; scale > 1e-6; scale /= 2) {
      next = [...t];
      free.forEach((a, x) => (next[a] += scale * step[x]));
      nextValue = total(next, rows, verdicts);
      if (nextValue >= value) break;
    }
    if (!(nextValue >= value)) break;
    const gain = nextValue - value;
    t = next;
    value = nextValue;
    if (gain < 1e-9 * rows.length) break;
  }
  return toLink(t);
}
