import type { AnswerFeatures } from './answer-link.js';
import { growth, LEARNING, type Evidence } from './learning.js';

/**
 * What a size is likely to turn out as, for the shopper who asks, should she take it: too small, a fit, or too large.
 * The distribution over her best size (the recommendation's `confidence`) answers another question, and cannot answer
 * this one: a shopper who takes a size has chosen it knowing more than her answers tell (76% of the sizes customers
 * chose fitted them on RentTheRunway, where a distribution over her best size puts 13% on the size she took).
 *
 * So the odds of each verdict are learned from what happened to the sizes shoppers took, per store and online:
 * - the product's own verdicts (kept, returned or exchanged as too small or too large), shrunk towards its type's
 *   shares by `ITEM_STRENGTH` outcomes, the type's towards the store's by `TYPE_STRENGTH`, the store's towards `PRIOR`
 *   by `STORE_STRENGTH`: the rates a merchant would count for the item, a new item starting from its kind's;
 * - times, for the place of that size against her answer (its distance, in sizes, from the answer's mean and from
 *   the size she says she usually wears), the ratio of the verdicts seen at that place to those the item's rates
 *   expected there when they were seen, shrunk by `PLACE_STRENGTH` outcomes' worth towards the ratio of its distance
 *   from her usual size alone, itself shrunk as strongly towards 1. A shopper who takes a size above the one she
 *   usually wears, or above what her body says, is told what such choices turned out as, beyond what the item's rates
 *   already say.
 *
 * Every count is a decaying sum (learning.ts), added to in the transaction that records an outcome and taken back
 * exactly when a line's lesson is replaced. Pure and deterministic.
 */

const VERDICTS = ['too_small', 'fit', 'too_large'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Three numbers, one per verdict, in VERDICTS' order. */
export type Triple = readonly [number, number, number];

/** The store's shares before it has outcomes: RentTheRunway's training rentals (13% too small, 74% fit, 13% too large). */
const PRIOR: Triple = [0.13, 0.74, 0.13];
const STORE_STRENGTH = 20;
const TYPE_STRENGTH = 20;
const ITEM_STRENGTH = 5;
const PLACE_STRENGTH = 20;
/** Places further than this many sizes from the answer's mean, or from her usual size, count as this far. */
const PLACE_REACH = 3;

/** A row of decaying sums: the verdicts seen, and (for a place) the item rates' expectation of them when seen. */
export interface VerdictSums {
  readonly observed: Triple;
  readonly expected: Triple;
  /** Outcomes counted, not decayed. */
  readonly count: number;
}

export const NO_VERDICTS: VerdictSums = { observed: [0, 0, 0], expected: [0, 0, 0], count: 0 };

/** The key of the store's own row, of a product's, and of a place against the answer. */
export const STORE_KEY = 'store';
export const productKey = (productId: string): string => `product:${productId}`;
export const typeKey = (productTypeId: string): string => `type:${productTypeId}`;

/**
 * The places of chart position `position` against an answer that read `features` of her: against the answer's mean
 * and her usual size, and against her usual size alone (`none` when she named none).
 */
export function placeKeys(position: number, features: AnswerFeatures): { place: string; usual: string } {
  const reach = (x: number) => Math.max(-PLACE_REACH, Math.min(PLACE_REACH, Math.round(x)));
  const usual = features.usual === null ? 'none' : String(reach(position - features.usual));
  return { place: `place:${reach(position - features.mean)}:${usual}`, usual: `usual:${usual}` };
}

/** The verdict an outcome gives on the size bought; null for a choice that is not an outcome, or a problem with no direction. */
export function verdictOf(evidence: Evidence): Verdict | null {
  if (evidence.kind === 'kept' || evidence.kind === 'kept_after_override') return 'fit';
  if (evidence.kind === 'override' || evidence.steps === null) return null;
  if (evidence.steps === evidence.bought) return null;
  return evidence.steps > evidence.bought ? 'too_small' : 'too_large';
}

/**
 * What one outcome adds, by key: to its store, its product and its product's type (when it has one), and, when `place`
 * is given (with the item's rates then), to its place and its place against her usual size alone.
 */
export function verdictSumsOf(
  product: { readonly id: string; readonly typeId: string | null },
  verdict: Verdict,
  at: Date,
  place: { keys: readonly string[]; expected: Triple } | null,
): Array<{ key: string; sums: VerdictSums }> {
  const w = growth(at, LEARNING.tauDays);
  const observed = VERDICTS.map((v) => (v === verdict ? w : 0)) as unknown as Triple;
  const seen = { observed, expected: [0, 0, 0] as Triple, count: 1 };
  const rows = [
    { key: STORE_KEY, sums: seen },
    { key: productKey(product.id), sums: seen },
  ];
  if (product.typeId !== null) rows.push({ key: typeKey(product.typeId), sums: seen });
  const expected = place?.expected.map((e) => w * e) as unknown as Triple;
  for (const key of place?.keys ?? []) rows.push({ key, sums: { observed, expected, count: 1 } });
  return rows;
}

export function addVerdictSums(a: VerdictSums, b: VerdictSums, sign: 1 | -1 = 1): VerdictSums {
  return {
    observed: a.observed.map((x, i) => x + sign * b.observed[i]) as unknown as Triple,
    expected: a.expected.map((x, i) => x + sign * b.expected[i]) as unknown as Triple,
    count: a.count + sign * b.count,
  };
}

/** The item's verdict rates at `now`: its own verdicts shrunk towards its type's shares, those towards the store's. */
export function itemRates(
  levels: { readonly product?: VerdictSums; readonly type?: VerdictSums; readonly store?: VerdictSums },
  now: Date,
): Triple {
  const decay = 1 / growth(now, LEARNING.tauDays);
  const storeShares = shrunk(levels.store?.observed ?? [0, 0, 0], decay, PRIOR, STORE_STRENGTH);
  const typeShares = shrunk(levels.type?.observed ?? [0, 0, 0], decay, storeShares, TYPE_STRENGTH);
  return shrunk(levels.product?.observed ?? [0, 0, 0], decay, typeShares, ITEM_STRENGTH);
}

/** The levels of a product's rates among a store's rows read by key. */
export function levelsOf(rows: ReadonlyMap<string, VerdictSums>, productId: string, productTypeId: string | null) {
  return {
    product: rows.get(productKey(productId)),
    type: productTypeId === null ? undefined : rows.get(typeKey(productTypeId)),
    store: rows.get(STORE_KEY),
  };
}

/**
 * The odds of each verdict for each size of a chart of `sizes` sizes, for a shopper whose answer read `features`: the
 * item's rates, times each place's learned ratio of verdicts seen to verdicts expected, renormalised.
 */
export function sizeVerdicts(
  item: Triple,
  places: ReadonlyMap<string, VerdictSums>,
  features: AnswerFeatures,
  sizes: number,
  now: Date,
): Triple[] {
  const decay = 1 / growth(now, LEARNING.tauDays);
  /** A place's ratio of verdicts seen to expected, shrunk towards `towards` by PLACE_STRENGTH outcomes' worth. */
  const ratio = (sums: VerdictSums | undefined, i: number, rate: number, towards: number) => {
    if (!sums) return towards;
    const prior = PLACE_STRENGTH * rate;
    return (sums.observed[i] * decay + prior * towards) / (sums.expected[i] * decay + prior);
  };
  return Array.from({ length: sizes }, (_, position) => {
    const keys = placeKeys(position, features);
    const [place, usual] = [places.get(keys.place), places.get(keys.usual)];
    const odds = item.map((rate, i) => rate * ratio(place, i, rate, ratio(usual, i, rate, 1)));
    const total = odds.reduce((s, x) => s + x, 0);
    return odds.map((x) => x / total) as unknown as Triple;
  });
}

/** Decayed counts shrunk towards `towards` by `strength` outcomes' worth, as shares. */
function shrunk(counts: Triple, decay: number, towards: Triple, strength: number): Triple {
  const n = counts.reduce((s, x) => s + x, 0) * decay;
  return counts.map((c, i) => (c * decay + strength * towards[i]) / (n + strength)) as unknown as Triple;
}
