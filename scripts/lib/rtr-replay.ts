/**
 * Replaying RentTheRunway rentals, in time order, through the service's own estimator (src/sizing/learning.ts):
 * each rental is an outcome for its item (the product), its category (the product type) and the one store. Before a
 * rental is recorded, the state built from the earlier ones is read, so every figure is what the service would have
 * known at that moment.
 */
import {
  addSums,
  type Evidence,
  type EvidenceSums,
  learnedOffset,
  type LearningSettings,
  NO_EVIDENCE,
  sumsOf,
} from '../../src/sizing/learning.js';
import { VERDICTS, type Rental } from './rtr.js';

/**
 * A rental's evidence: the customer rented the size she chose (no chart was shown), so the reference is that size, as
 * for any outcome bought without a fit session. "small": her size lay one step bigger; "large": one smaller, as the
 * service reads a return that says which way.
 */
export function evidenceOfRental(r: Rental): Evidence {
  const at = new Date(r.at);
  if (r.verdict === 'fit') return { kind: 'kept', steps: 0, bought: 0, at };
  return { kind: 'size_return', steps: r.verdict === 'small' ? 1 : -1, bought: 0, at };
}

/** The learned offset of each rental's item just before the rental (same order as `rentals`). */
export function replayOffsets(rentals: readonly Rental[], settings: LearningSettings): { steps: Float64Array; sd: Float64Array } {
  const items = new Map<string, EvidenceSums>();
  const categories = new Map<string, EvidenceSums>();
  let store = NO_EVIDENCE;
  const steps = new Float64Array(rentals.length);
  const sd = new Float64Array(rentals.length);
  rentals.forEach((r, i) => {
    const product = items.get(r.itemId) ?? NO_EVIDENCE;
    const productType = categories.get(r.category) ?? NO_EVIDENCE;
    const offset = learnedOffset({ product, productType, store }, new Date(r.at), settings);
    steps[i] = offset.steps;
    sd[i] = offset.sd;
    const added = sumsOf(evidenceOfRental(r), settings);
    items.set(r.itemId, addSums(product, added));
    categories.set(r.category, addSums(productType, added));
    store = addSums(store, added);
  });
  return { steps, sd };
}

/** Each rental's item's earlier rentals: how many, and how many of each verdict ([small, fit, large]). */
export function itemHistory(rentals: readonly Rental[]): { earlier: number[]; verdicts: [number, number, number][] } {
  const seen = new Map<string, [number, number, number]>();
  const earlier: number[] = [];
  const verdicts: [number, number, number][] = [];
  for (const r of rentals) {
    const counts = seen.get(r.itemId) ?? [0, 0, 0];
    earlier.push(counts[0] + counts[1] + counts[2]);
    verdicts.push([...counts]);
    counts[VERDICTS.indexOf(r.verdict)]++;
    seen.set(r.itemId, counts);
  }
  return { earlier, verdicts };
}
