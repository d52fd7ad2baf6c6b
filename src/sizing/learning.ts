import { hazard, upperTail } from './normal.js';

/**
 * Learning how a product really fits from what its shoppers keep, return and exchange: an online estimate of how many
 * size steps of its chart the product runs small (positive) or large (negative), relative to what the stated chart (with
 * the merchant's own adjustment, without any learned offset) recommends.
 *
 * The model: a shopper's evidence y (where her true size lay, in steps from the chart's answer) is the product's offset
 * μ plus her own scatter of variance σ². μ is drawn around its product type's offset, the type's around the store's, the
 * store's around 0 (the chart is right until shown otherwise); each prior counts as a number of outcomes (`product`,
 * `productType`, `store` below), so a product with a few outcomes stays near its type and one with hundreds speaks for
 * itself. σ² is estimated the same way, shrunk towards the level above.
 *
 * Not every outcome says where her size lay. A kept item does (the size bought), an exchange to a named size does, and
 * a return as "too small" is read as the next size up. But a kept item in the chart's largest size says only that her
 * size lay there or beyond (no bigger size could show it), and a size problem with no direction that it lay a step or
 * more either side. Those are read as what they are, bounds on a normal variable, not as values: at every read the
 * level's offset and scatter are solved for with each bounded outcome counted at its expectation under the current
 * estimate (expectation–maximisation, to its fixed point). Reading them as values (the largest size as exactly right,
 * an undirected problem as nothing) would pull every offset towards 0.
 *
 * Everything is kept as additive sums with an exact exponential decay, so the sums can be stored per product and added
 * to in the transaction that records an outcome, in any order. Pure and deterministic: no clock, no randomness.
 */

/**
 * One outcome's evidence, in size steps from the chart's own recommendation (0 = as recommended; +1 = one size bigger).
 * `steps`: where her true size lay, or null for a size problem with no known direction (a step or more either side of
 * `bought`). `bound`: the outcome says only that her size lay at `steps` or further up (`at_least`) or down (`at_most`).
 */
export interface Evidence {
  readonly kind: EvidenceKind;
  readonly steps: number | null;
  readonly bound?: 'at_least' | 'at_most';
  /** Where the size she bought (or chose) lay. */
  readonly bought: number;
  readonly at: Date;
}

/** What the shopper did: kept the size (recommended or her own), chose another size, or sent it back for size. */
export type EvidenceKind = 'kept' | 'kept_after_override' | 'override' | 'size_return' | 'size_exchange';

/**
 * Additive, exactly decaying sums: the state stored per product, per product type and per store. Adding the sums of two
 * sets of outcomes gives the sums of their union, in any order (so they can be kept with `UPDATE … SET x = x + $1` in
 * the transaction that records an outcome, concurrency-safe and restart-safe). Every field but `count` is scaled by the
 * outcome's growth factor exp((at − EPOCH) / τ); reading multiplies them back by exp(−(now − EPOCH) / τ).
 */
export interface EvidenceSums {
  /** Σ w over evidence of where her size lay exactly. */
  readonly weight: number;
  /** Σ w·y over it. */
  readonly weightedSteps: number;
  /** Σ w·y² over it. */
  readonly weightedSquares: number;
  /** Σ w over size problems with no direction (wherever the size bought lay). */
  readonly undirected: number;
  /** Σ w over those of them where the size bought lay above the chart's answer (counted as a step above it). */
  readonly undirectedAbove: number;
  /** Σ w over those where it lay below (counted as a step below); the rest were bought at the chart's answer. */
  readonly undirectedBelow: number;
  /** Σ w over evidence that her size lay at BOUND_STEPS[i] steps or more (index i; the steps clamped to that range). */
  readonly atLeast: readonly number[];
  /** Σ w over evidence that it lay at BOUND_STEPS[i] − 1 steps or fewer (index i). */
  readonly atMost: readonly number[];
  /** Outcomes counted, not decayed. */
  readonly count: number;
}

/** What a product's evidence says, at a moment: its offset in size steps, and how well it is known. */
export interface LearnedOffset {
  /** Estimated offset: positive = the product runs small (shoppers need a bigger size than the chart says). */
  readonly steps: number;
  /** Standard deviation of that estimate, in steps. */
  readonly sd: number;
  /** The 95% interval of the offset: steps ∓ 1.96 sd. */
  readonly low: number;
  readonly high: number;
  /** Effective (decayed) weight of the product's own evidence, directed or not. */
  readonly evidence: number;
  /** Outcomes behind the product's own sums. */
  readonly count: number;
}

/**
 * The decay and the prior strengths. The strengths are in outcomes of weight 1 (a kept item): a product's offset moves
 * halfway from its type's once its decayed evidence weighs `product`.
 */
export interface LearningSettings {
  /** Mean life of an outcome's weight, in days: it weighs 1/e after τ, so a re-cut product is relearned. */
  readonly tauDays: number;
  /** Prior strength of a product's offset around its type's. */
  readonly product: number;
  /** Prior strength of a product type's offset around the store's. */
  readonly productType: number;
  /** Prior strength of the store's offset around 0. */
  readonly store: number;
  /** Prior strength of a level's scatter σ² around the level above's. */
  readonly scatterStrength: number;
  /** σ with no evidence at all, in steps. */
  readonly rootScatter: number;
}

/**
 * Chosen on real outcomes, not by feel (`npm run eval:learning`: RentTheRunway rentals replayed in time order through
 * this code; a coordinate search on the last fifth of the rentals before the held-out period, by log loss of the
 * predicted fit verdicts, each value list ordered most conservative first and the one-standard-error rule taking the
 * first that the data cannot tell from the best; figures in docs/fit-quality.md, "Learning from outcomes"):
 * - `product` 5: items differ much in fit, so their own outcomes soon matter (50, 20 and 10 validate clearly worse). It
 *   is also the floor the search allows: three outcomes move a product 3/8 of the way from its type, three hundred 98%.
 *   (2 validates a little better on this data, but would let three outcomes move a product 60% of the way.)
 * - `productType` 20: a category's own outcomes matter as soon as it has a few dozen (500 validates worse).
 * - `store` 1000: the data cannot tell 50 from 1000; the strongest is taken, so the store's offset leaves 0 only on
 *   thousands of outcomes (the stated charts are right on average until shown otherwise).
 * - `tauDays` 365: half a year and less forgets what still holds (90 and 180 validate clearly worse); longer gains
 *   nothing measurable. An outcome a year old weighs 1/e, so a re-cut product's new outcomes outweigh the old cut's
 *   within months once they are as many, and the old cut is forgotten within two to three years.
 * - `scatterStrength` 5: a product's own scatter shows after a handful of outcomes (20 and 100 validate worse).
 * - `rootScatter` 0.5: not searched; a shopper's evidence scatters about half a step around the offset (74% of verdicts
 *   "fit", 13% each way: E[y²] ≈ 0.26), and the store's own scatter replaces it after a few outcomes.
 */
export const LEARNING: LearningSettings = {
  tauDays: 365,
  product: 5,
  productType: 20,
  store: 1000,
  scatterStrength: 5,
  rootScatter: 0.5,
};

/**
 * The decay's origin. Growth factors are exp((at − EPOCH) / τ); the exponent is clamped to ±MAX_EXPONENT, which with
 * τ = 365 days keeps outcomes dated within 300 years of EPOCH exact and every sum far below 1e308 (e^300 ≈ 2e130, times
 * a billion outcomes of at most MAX_STEPS² = 100 is 2e141). Outcomes past the clamp count as dated at its edge.
 */
const EPOCH = new Date('2026-01-01T00:00:00Z');
const MAX_EXPONENT = 300;
/** A shift beyond ten sizes is a data error rather than a fit: it counts as ten, so one outlier cannot swamp the sums. */
const MAX_STEPS = 10;
const DAY_MS = 86_400_000;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const Z95 = 1.959964;

/**
 * Every outcome weighs as much as a kept item, whatever it says: weighing one kind less (say, size problems with no
 * direction) would lean every offset towards what the other kinds say, and kept items sit at the chart's answer. An
 * undirected problem is weak by what it says (a direction only as likely as the model makes it), not by its weight. A
 * size chosen but not yet kept or returned says less: its outcome will count in full when it comes.
 */
const KIND_WEIGHT: Readonly<Record<EvidenceKind, number>> = {
  kept: 1,
  kept_after_override: 1,
  override: 0.25,
  size_return: 1,
  size_exchange: 1,
};

/**
 * The bounds kept, as the lowest step of an `at_least` bound (−1 … +2) and one more than the highest of an `at_most`
 * bound (−1 … +2, i.e. at most −2 … +1): a bound on the latent step at −1.5, −0.5, +0.5 and +1.5. Bounds further out
 * count at the outermost (a "too small" two sizes above the chart's answer as at least +2).
 */
export const BOUND_STEPS: readonly number[] = [-1, 0, 1, 2];

export const NO_EVIDENCE: EvidenceSums = {
  weight: 0,
  weightedSteps: 0,
  weightedSquares: 0,
  undirected: 0,
  undirectedAbove: 0,
  undirectedBelow: 0,
  atLeast: [0, 0, 0, 0],
  atMost: [0, 0, 0, 0],
  count: 0,
};

/** The weight of each kind: a bare override weighs less than an outcome. */
export function evidenceWeight(e: Evidence): number {
  return KIND_WEIGHT[e.kind];
}

/** exp((t − EPOCH) / τ), its exponent clamped (see EPOCH). Throws on an invalid date, which is a caller's bug. */
export function growth(t: Date, tauDays: number): number {
  const exponent = (t.getTime() - EPOCH.getTime()) / (tauDays * DAY_MS);
  if (Number.isNaN(exponent)) throw new RangeError('evidence needs a valid date');
  return Math.exp(Math.min(Math.max(exponent, -MAX_EXPONENT), MAX_EXPONENT));
}

/** One outcome's contribution to the sums. */
export function sumsOf(e: Evidence, settings: LearningSettings = LEARNING): EvidenceSums {
  const w = evidenceWeight(e) * growth(e.at, settings.tauDays);
  if (e.steps === null) {
    if (!Number.isFinite(e.bought)) throw new RangeError('evidence steps must be finite');
    const side = Math.round(e.bought);
    return { ...NO_EVIDENCE, undirected: w, undirectedAbove: side > 0 ? w : 0, undirectedBelow: side < 0 ? w : 0, count: 1 };
  }
  if (!Number.isFinite(e.steps)) throw new RangeError('evidence steps must be finite');
  if (e.bound !== undefined) {
    // at least y: the latent step ≥ y − ½; at most y: ≤ y + ½, kept as "at least y + 1" in the other list's terms
    const index = boundIndex(e.bound === 'at_least' ? e.steps : e.steps + 1);
    const bounds = [0, 0, 0, 0];
    bounds[index] = w;
    return { ...NO_EVIDENCE, [e.bound === 'at_least' ? 'atLeast' : 'atMost']: bounds, count: 1 };
  }
  const y = Math.min(Math.max(e.steps, -MAX_STEPS), MAX_STEPS);
  return { ...NO_EVIDENCE, weight: w, weightedSteps: w * y, weightedSquares: w * y * y, count: 1 };
}

/** The index in BOUND_STEPS of a bound's step, clamped to the kept range. */
const boundIndex = (step: number) =>
  Math.min(Math.max(Math.round(step), BOUND_STEPS[0]), BOUND_STEPS[BOUND_STEPS.length - 1]) - BOUND_STEPS[0];

/** The sums of the union of two sets of outcomes. */
export function addSums(a: EvidenceSums, b: EvidenceSums): EvidenceSums {
  return {
    weight: a.weight + b.weight,
    weightedSteps: a.weightedSteps + b.weightedSteps,
    weightedSquares: a.weightedSquares + b.weightedSquares,
    undirected: a.undirected + b.undirected,
    undirectedAbove: a.undirectedAbove + b.undirectedAbove,
    undirectedBelow: a.undirectedBelow + b.undirectedBelow,
    atLeast: a.atLeast.map((x, i) => x + b.atLeast[i]),
    atMost: a.atMost.map((x, i) => x + b.atMost[i]),
    count: a.count + b.count,
  };
}

/**
 * The sums that, added, take `a`'s outcomes back out: an outcome replaced by a later one of its order line is
 * subtracted exactly as it was added (its growth factor is fixed by its date, not by when it is read).
 */
export function negatedSums(a: EvidenceSums): EvidenceSums {
  return {
    weight: -a.weight,
    weightedSteps: -a.weightedSteps,
    weightedSquares: -a.weightedSquares,
    undirected: -a.undirected,
    undirectedAbove: -a.undirectedAbove,
    undirectedBelow: -a.undirectedBelow,
    atLeast: a.atLeast.map((x) => -x),
    atMost: a.atMost.map((x) => -x),
    count: -a.count,
  };
}

/** One level's posterior: its offset, the scatter of shoppers around it, and the variance of the offset's estimate. */
interface Level {
  readonly mean: number;
  readonly scatter: number;
  readonly meanVariance: number;
}

/** Rounds of the expectation–maximisation step at most; it stops sooner once the offset moves less than EM_TOLERANCE. */
const EM_ROUNDS = 100;
const EM_TOLERANCE = 1e-10;
/** A level's shoppers never scatter less than this (steps²): keeps the bounds' expectations finite. */
const MIN_SCATTER = 1e-4;

/** First and second moments of the latent step y ~ N(mean, sd²) given y ≥ bound (`up`) or y ≤ bound. */
function beyond(mean: number, sd: number, bound: number, up: boolean): { m1: number; m2: number } {
  // by symmetry, y ≤ b is −y ≥ −b
  const sign = up ? 1 : -1;
  const a = (sign * bound - sign * mean) / sd;
  const h = hazard(a);
  const first = sign * mean + sd * h;
  const second = mean * mean + sd * sd + sd * (sign * bound + sign * mean) * h;
  return { m1: sign * first, m2: second };
}

/**
 * A level's sums (decayed to now by `decay`) shrunk towards its parent level with prior strength `strength`.
 *
 * Exact evidence counts as it is. Bounded evidence counts at its expectation under the current estimate, y ~ N(mean,
 * scatter): "at least b" (the latent step beyond b − ½) at mean + sd·φ(α)/(1 − Φ(α)), α = (b − ½ − mean) / sd, and
 * likewise downwards; a size problem with no direction at b, outside (b − ½, b + ½), at the mixture of both tails by
 * their probabilities. Mean and scatter are then re-estimated, until the mean settles: the maximum of the level's
 * likelihood. The offset's uncertainty counts a bounded outcome by how much it narrows y (1 − its variance / scatter):
 * a direction far from the estimate almost as much as an exact step, an undirected problem near it nothing.
 */
function shrink(sums: EvidenceSums, decay: number, parent: Level, strength: number, settings: LearningSettings): Level {
  const w = sums.weight * decay;
  const s1 = sums.weightedSteps * decay;
  const s2 = sums.weightedSquares * decay;
  const above = sums.undirectedAbove * decay;
  const below = sums.undirectedBelow * decay;
  type Bounded = { readonly weight: number; readonly at: number; readonly kind: 'up' | 'down' | 'either' };
  const all: Bounded[] = [
    { weight: below, at: -1, kind: 'either' },
    { weight: Math.max(0, sums.undirected * decay - above - below), at: 0, kind: 'either' },
    { weight: above, at: 1, kind: 'either' },
    ...BOUND_STEPS.map((step, i): Bounded => ({ weight: sums.atLeast[i] * decay, at: step - 0.5, kind: 'up' })),
    ...BOUND_STEPS.map((step, i): Bounded => ({ weight: sums.atMost[i] * decay, at: step - 0.5, kind: 'down' })),
  ];
  const bounded = all.filter((b) => b.weight > 0);
  const total = w + bounded.reduce((sum, b) => sum + b.weight, 0);
  const prior = settings.scatterStrength * parent.scatter;
  const estimate = (m1: number, m2: number) => {
    const mean = (strength * parent.mean + m1) / (strength + total);
    // Σ w (y − mean)² over all evidence, floored at 0 against rounding
    const spread = Math.max(0, m2 - 2 * mean * m1 + mean * mean * total);
    return { mean, scatter: Math.max(MIN_SCATTER, (prior + spread) / (settings.scatterStrength + total)) };
  };
  let level = estimate(s1, s2);
  // what the bounded evidence tells of the mean, in exact outcomes' worth
  let told = 0;
  for (let round = 0; round < EM_ROUNDS && bounded.length > 0; round++) {
    const sd = Math.sqrt(level.scatter);
    let m1 = s1;
    let m2 = s2;
    told = 0;
    for (const b of bounded) {
      let moments: { m1: number; m2: number };
      if (b.kind === 'either') {
        // a step or more either side of `at`: beyond at + ½ or below at − ½, by the tails' probabilities
        const up = beyond(level.mean, sd, b.at + 0.5, true);
        const down = beyond(level.mean, sd, b.at - 0.5, false);
        const pUp = upperTail((b.at + 0.5 - level.mean) / sd);
        const pDown = upperTail((level.mean - b.at + 0.5) / sd);
        const share = pUp + pDown > 0 ? pUp / (pUp + pDown) : level.mean > b.at ? 1 : 0;
        moments = { m1: share * up.m1 + (1 - share) * down.m1, m2: share * up.m2 + (1 - share) * down.m2 };
      } else {
        moments = beyond(level.mean, sd, b.at, b.kind === 'up');
      }
      m1 += b.weight * moments.m1;
      m2 += b.weight * moments.m2;
      const variance = Math.max(0, moments.m2 - moments.m1 * moments.m1);
      told += b.weight * Math.max(0, 1 - variance / level.scatter);
    }
    const next = estimate(m1, m2);
    const moved = Math.abs(next.mean - level.mean);
    level = next;
    if (moved < EM_TOLERANCE) break;
  }
  const known = strength + w + told;
  const share = strength / (strength + total);
  return { ...level, meanVariance: level.scatter / known + share * share * parent.meanVariance };
}

/** The product's offset, shrunk towards its product type's, which is shrunk towards the store's, which is shrunk towards 0. */
export function learnedOffset(
  levels: { product: EvidenceSums; productType: EvidenceSums; store: EvidenceSums },
  now: Date,
  settings: LearningSettings = LEARNING,
): LearnedOffset {
  const [offset] = learnedOffsets(
    levels.store,
    new Map([['', levels.productType]]),
    [{ sums: levels.product, productTypeId: '' }],
    now,
    settings,
  );
  return offset;
}

/**
 * The offsets of many products of one store at once, each as `learnedOffset` gives it: the store's level is learned
 * once, and each product type's once, whatever the number of products (a type missing from `types` has no evidence).
 */
export function learnedOffsets(
  store: EvidenceSums,
  types: ReadonlyMap<string, EvidenceSums>,
  products: ReadonlyArray<{ readonly sums: EvidenceSums; readonly productTypeId: string }>,
  now: Date,
  settings: LearningSettings = LEARNING,
): LearnedOffset[] {
  const decay = 1 / growth(now, settings.tauDays);
  const root: Level = { mean: 0, scatter: settings.rootScatter ** 2, meanVariance: 0 };
  const storeLevel = shrink(store, decay, root, settings.store, settings);
  const typeLevels = new Map<string, Level>();
  const typeLevel = (id: string): Level => {
    let level = typeLevels.get(id);
    if (!level) typeLevels.set(id, (level = shrink(types.get(id) ?? NO_EVIDENCE, decay, storeLevel, settings.productType, settings)));
    return level;
  };
  return products.map(({ sums, productTypeId }) => {
    const product = shrink(sums, decay, typeLevel(productTypeId), settings.product, settings);
    const sd = Math.sqrt(product.meanVariance);
    return {
      steps: product.mean,
      sd,
      low: product.mean - Z95 * sd,
      high: product.mean + Z95 * sd,
      evidence: (sums.weight + sums.undirected + sum(sums.atLeast) + sum(sums.atMost)) * decay,
      count: sums.count,
    };
  });
}
