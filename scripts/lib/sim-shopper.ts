/**
 * What a simulated shopper does with a recommendation, and what she reports after wearing the size she bought: pure and
 * seeded, so a run is repeatable. She mostly follows the recommendation; some override it by one size, more often
 * towards the size that fits them than away from it. After the purchase her true fit decides: the right size is kept,
 * another is returned or exchanged for size. The noise a store really sees is part of it: some never report anything,
 * some returns say no direction, and an exchange names the new size or not.
 */

/** The shares that shape the behaviour, each a probability. */
export interface Behaviour {
  /** Chooses one size up or down instead of the recommendation. */
  readonly override: number;
  /** An override goes towards her true size (when the recommendation is not it). */
  readonly overrideTowardsFit: number;
  /** Never reports an outcome (the purchase is all the store hears). */
  readonly silent: number;
  /** A wrong size is exchanged rather than returned. */
  readonly exchange: number;
  /** A return or exchange says which way the size was off (`fit_feedback`). */
  readonly directed: number;
  /** An exchange names the size it went to (her true size). */
  readonly namesNewSize: number;
}

export const BEHAVIOUR: Behaviour = {
  override: 0.15,
  overrideTowardsFit: 0.75,
  silent: 0.1,
  exchange: 0.4,
  directed: 0.6,
  namesNewSize: 0.7,
};

export type FitFeedback = 'too_small' | 'too_large';

/** What the store hears after the purchase. Sizes are positions in chart order. */
export type Outcome =
  | { readonly kind: 'kept' }
  | { readonly kind: 'return'; readonly feedback: FitFeedback | null }
  | { readonly kind: 'exchange'; readonly feedback: FitFeedback | null; readonly newSize: number | null };

/** The size she buys: the recommendation, or one size beside it (within the chart's `sizes`). */
export function chooseSize(recommended: number, truth: number, sizes: number, random: () => number, b = BEHAVIOUR): number {
  if (random() >= b.override) return recommended;
  const towards = truth === recommended ? (random() < 0.5 ? 1 : -1) : Math.sign(truth - recommended);
  const step = random() < b.overrideTowardsFit ? towards : -towards;
  const chosen = recommended + step;
  return chosen < 0 || chosen >= sizes ? recommended - step : chosen;
}

/**
 * Whether she will never report an outcome: drawn before she shops, so a run can plan how many shoppers give the
 * outcomes it needs.
 */
export const staysSilent = (random: () => number, b = BEHAVIOUR): boolean => random() < b.silent;

/** What she reports after wearing `bought` when `truth` is her size (a shopper who reports). */
export function outcomeOf(bought: number, truth: number, random: () => number, b = BEHAVIOUR): Outcome {
  if (bought === truth) return { kind: 'kept' };
  const direction: FitFeedback = truth > bought ? 'too_small' : 'too_large';
  const feedback = random() < b.directed ? direction : null;
  if (random() >= b.exchange) return { kind: 'return', feedback };
  return { kind: 'exchange', feedback, newSize: random() < b.namesNewSize ? truth : null };
}

/** A seeded Fisher–Yates shuffle (a new array). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
