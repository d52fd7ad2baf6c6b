/**
 * Learning how a product really fits from what its shoppers keep, return and exchange: an online estimate of how many
 * size steps of its chart the product runs small (positive) or large (negative), relative to what the stated chart (with
 * the merchant's own adjustment, without any learned offset) recommends.
 *
 * The model: a shopper's evidence y (where her true size lay, in steps from the chart's answer) is the product's offset
 * μ plus her own scatter of variance σ². μ is drawn around its product type's offset, the type's around the store's, the
 * store's around 0 (the chart is right until shown otherwise); each prior counts as a number of outcomes (`product`,
 * `productType`, `store` below), so a product with a few outcomes stays near its type and one with hundreds speaks for
 * itself. σ² is estimated the same way, shrunk towards the level above; a size problem with no known direction says
 * |y| ≥ 1 and nothing about the sign, so it widens σ² (and with it the offset's uncertainty) and never moves μ.
 *
 * Everything is kept as additive sums with an exact exponential decay, so the sums can be stored per product and added
 * to in the transaction that records an outcome, in any order. Pure and deterministic: no clock, no randomness.
 */

/**
 * One outcome's evidence. steps: where the shopper's true size lay, in size steps from the chart's own recommendation
 * (0 = as recommended; +1 = one size bigger); null = a size problem with no known direction.
 */
export interface Evidence {
  readonly kind: EvidenceKind;
  readonly steps: number | null;
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
  /** Σ w over directed evidence. */
  readonly weight: number;
  /** Σ w·y over directed evidence. */
  readonly weightedSteps: number;
  /** Σ w·y² over directed evidence. */
  readonly weightedSquares: number;
  /** Σ w over size problems with no direction. */
  readonly undirected: number;
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
  /** effective (decayed) weight of the product's own evidence */
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
const Z95 = 1.959964;

/** Kept items are the unit; size problems with a direction as strong; a size chosen but not yet kept says less. */
const KIND_WEIGHT: Readonly<Record<EvidenceKind, number>> = {
  kept: 1,
  kept_after_override: 1,
  override: 0.25,
  size_return: 1,
  size_exchange: 1,
};
/** A size problem with no direction only says the chart missed: half the weight of one that says which way. */
const UNDIRECTED_WEIGHT = 0.5;

export const NO_EVIDENCE: EvidenceSums = { weight: 0, weightedSteps: 0, weightedSquares: 0, undirected: 0, count: 0 };

/** The weight of each kind (strong: returns/exchanges with direction; weak: undirected ones, bare overrides). */
export function evidenceWeight(e: Evidence): number {
  return KIND_WEIGHT[e.kind] * (e.steps === null ? UNDIRECTED_WEIGHT : 1);
}

/** exp((t − EPOCH) / τ), its exponent clamped (see EPOCH). Throws on an invalid date, which is a caller's bug. */
function growth(t: Date, tauDays: number): number {
  const exponent = (t.getTime() - EPOCH.getTime()) / (tauDays * DAY_MS);
  if (Number.isNaN(exponent)) throw new RangeError('evidence needs a valid date');
  return Math.exp(Math.min(Math.max(exponent, -MAX_EXPONENT), MAX_EXPONENT));
}

/** One outcome's contribution to the sums. */
export function sumsOf(e: Evidence, settings: LearningSettings = LEARNING): EvidenceSums {
  const w = evidenceWeight(e) * growth(e.at, settings.tauDays);
  if (e.steps === null) return { ...NO_EVIDENCE, undirected: w, count: 1 };
  if (!Number.isFinite(e.steps)) throw new RangeError('evidence steps must be finite');
  const y = Math.min(Math.max(e.steps, -MAX_STEPS), MAX_STEPS);
  return { weight: w, weightedSteps: w * y, weightedSquares: w * y * y, undirected: 0, count: 1 };
}

/** The sums of the union of two sets of outcomes. */
export function addSums(a: EvidenceSums, b: EvidenceSums): EvidenceSums {
  return {
    weight: a.weight + b.weight,
    weightedSteps: a.weightedSteps + b.weightedSteps,
    weightedSquares: a.weightedSquares + b.weightedSquares,
    undirected: a.undirected + b.undirected,
    count: a.count + b.count,
  };
}

/** One level's posterior: its offset, the scatter of shoppers around it, and the variance of the offset's estimate. */
interface Level {
  readonly mean: number;
  readonly scatter: number;
  readonly meanVariance: number;
}

/** A level's sums (decayed to now by `decay`) shrunk towards its parent level with prior strength `strength`. */
function shrink(sums: EvidenceSums, decay: number, parent: Level, strength: number, settings: LearningSettings): Level {
  const w = sums.weight * decay;
  const s1 = sums.weightedSteps * decay;
  const s2 = sums.weightedSquares * decay;
  const u = sums.undirected * decay;
  const mean = (strength * parent.mean + s1) / (strength + w);
  // Σ w (y − mean)² over the directed evidence, floored at 0 against rounding
  const spread = Math.max(0, s2 - 2 * mean * s1 + mean * mean * w);
  const prior = settings.scatterStrength * parent.scatter;
  const directed = (prior + spread) / (settings.scatterStrength + w);
  // an undirected problem lay at least a step off either way (E[(±1 − mean)²] = 1 + mean²) and at least as far off as
  // the directed evidence scatters: so it can only widen the scatter, never narrow it
  const undirected = Math.max(1 + mean * mean, directed);
  const scatter = (prior + spread + u * undirected) / (settings.scatterStrength + w + u);
  const share = strength / (strength + w);
  return { mean, scatter, meanVariance: scatter / (strength + w) + share * share * parent.meanVariance };
}

/** The product's offset, shrunk towards its product type's, which is shrunk towards the store's, which is shrunk towards 0. */
export function learnedOffset(
  levels: { product: EvidenceSums; productType: EvidenceSums; store: EvidenceSums },
  now: Date,
  settings: LearningSettings = LEARNING,
): LearnedOffset {
  const decay = 1 / growth(now, settings.tauDays);
  const root: Level = { mean: 0, scatter: settings.rootScatter ** 2, meanVariance: 0 };
  const store = shrink(levels.store, decay, root, settings.store, settings);
  const type = shrink(levels.productType, decay, store, settings.productType, settings);
  const product = shrink(levels.product, decay, type, settings.product, settings);
  const sd = Math.sqrt(product.meanVariance);
  return {
    steps: product.mean,
    sd,
    low: product.mean - Z95 * sd,
    high: product.mean + Z95 * sd,
    evidence: levels.product.weight * decay,
    count: levels.product.count,
  };
}
