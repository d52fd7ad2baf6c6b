/**
 * The size a shopper says she usually wears (`usual_size`), read as one more measurement of her size: where it is a size
 * of the product's chart, each size's probability is weighed by how likely a shopper of that size is to name it,
 * N(named size + how the product runs, USUAL_SIZE_SD²) in size steps, and renormalised. A product that runs a size
 * small (learned, or the merchant's `runs_small`) moves the named size up by that much: her usual M is an L here.
 * A returning shopper's own learned offset does not move it: the size she names already carries her preference (it
 * moves the chart for her body, as the product's does). A label the chart does not have tells nothing (another size
 * system) and is left out.
 */
import type { FitAdjustment } from './types.js';

/**
 * How far a size that fits lies from the size she usually wears, in size steps (one standard deviation): 0.89 on
 * RentTheRunway, where 40,448 rentals that fitted lay at that spread around the median size of the customer's earlier
 * rentals (`npm run eval:learning`, "Which answers earn their keep"; 46% at it, 30% a step either way). Rounded to 0.9.
 */
export const USUAL_SIZE_SD = 0.9;

/** The merchant's `fit_adjustment` in size steps: the tailor moves every range by a third of its zone's mean width. */
export const ADJUSTMENT_STEPS: Readonly<Record<FitAdjustment, number>> = { runs_small: 1 / 3, true_to_size: 0, runs_large: -1 / 3 };

/** The position of the named size in the chart's labels (case and surrounding spaces aside), or −1. */
export function usualSizeIndex(labels: readonly string[], usual: string | undefined): number {
  if (usual === undefined) return -1;
  const named = usual.trim().toLowerCase();
  return labels.findIndex((label) => label.trim().toLowerCase() === named);
}

/** The size probabilities weighed by a named size at position `at` (fractional: moved by how the product runs). */
export function withUsualSize(probability: readonly number[], at: number): number[] {
  const weighed = probability.map((p, s) => p * Math.exp(-((s - at) ** 2) / (2 * USUAL_SIZE_SD ** 2)));
  const total = weighed.reduce((a, b) => a + b, 0);
  // every size improbable under both: the body's answer stands
  return total > 0 ? weighed.map((w) => w / total) : [...probability];
}
