/**
 * The baselines of `npm run eval:outcomes`, counted online over the same stream of rentals the service is sent: each
 * rental is predicted from the rentals of earlier days only (history included), never from itself or its own day.
 *
 * - global shares: the verdicts' shares so far (Laplace-smoothed);
 * - item rates: the item's earlier verdicts, Dirichlet-smoothed towards the global shares by `alpha` rentals;
 * - item and customer: the item rates times the customer's own rates (her earlier verdicts, smoothed towards the
 *   global shares by `beta` rentals) over the global shares, renormalised: a naive-Bayes combination in which her own
 *   tendency to call things small or large moves the item's odds by as much as it departs from everyone's.
 */
import { VERDICTS, type Rental, type Verdict } from './rtr.js';
import type { Probabilities } from './rtr-ordinal.js';

type Counts = [number, number, number];

export interface Strengths {
  /** Prior strength of an item's rates, in rentals at the global shares. */
  readonly alpha: number;
  /** Prior strength of a customer's own rates. */
  readonly beta: number;
}

/** The prior strengths tried (rentals), smallest first. */
export const STRENGTHS = [0.5, 1, 2, 5, 10, 20, 50, 100] as const;

const total = (c: Counts) => c[0] + c[1] + c[2];

export class VerdictCounts {
  private readonly all: Counts = [0, 0, 0];
  private readonly items = new Map<string, Counts>();
  private readonly customers = new Map<string, Counts>();

  /** Counts a day's rentals, once every one of them has been predicted. */
  add(rentals: readonly Pick<Rental, 'itemId' | 'userId' | 'verdict'>[]): void {
    for (const r of rentals) {
      const k = VERDICTS.indexOf(r.verdict);
      this.all[k]++;
      bump(this.items, r.itemId, k);
      bump(this.customers, r.userId, k);
    }
  }

  /** Earlier rentals of the item, and of the customer. */
  itemCount(itemId: string): number {
    return total(this.items.get(itemId) ?? [0, 0, 0]);
  }

  customerCount(userId: string): number {
    return total(this.customers.get(userId) ?? [0, 0, 0]);
  }

  globalShares(): Probabilities {
    const n = total(this.all);
    return [(this.all[0] + 1) / (n + 3), (this.all[1] + 1) / (n + 3), (this.all[2] + 1) / (n + 3)];
  }

  itemRates(itemId: string, alpha: number): Probabilities {
    return smoothed(this.items.get(itemId), this.globalShares(), alpha);
  }

  itemAndCustomer(itemId: string, userId: string, s: Strengths): Probabilities {
    const g = this.globalShares();
    const item = smoothed(this.items.get(itemId), g, s.alpha);
    const own = smoothed(this.customers.get(userId), g, s.beta);
    return normalised([(item[0] * own[0]) / g[0], (item[1] * own[1]) / g[1], (item[2] * own[2]) / g[2]]);
  }
}

function bump(map: Map<string, Counts>, key: string, k: number): void {
  const c = map.get(key) ?? [0, 0, 0];
  c[k]++;
  map.set(key, c);
}

function smoothed(c: Counts | undefined, g: Probabilities, strength: number): Probabilities {
  const counts = c ?? [0, 0, 0];
  const n = total(counts);
  return [
    (counts[0] + strength * g[0]) / (n + strength),
    (counts[1] + strength * g[1]) / (n + strength),
    (counts[2] + strength * g[2]) / (n + strength),
  ];
}

function normalised(p: readonly [number, number, number]): Probabilities {
  const s = p[0] + p[1] + p[2];
  return [p[0] / s, p[1] / s, p[2] / s];
}

const logLoss = (p: Probabilities, v: Verdict) => -Math.log(Math.max(p[VERDICTS.indexOf(v)], 1e-12));

/**
 * The prior strengths, chosen on the history alone: its days replayed in order, each rental predicted from the days
 * before; `alpha` is the item rates' best log loss over STRENGTHS, then `beta` the combination's with that `alpha`.
 * Returns the choice with every strength's mean log loss.
 */
export function chooseStrengths(days: readonly (readonly Rental[])[]): {
  chosen: Strengths;
  alphaLoss: Record<number, number>;
  betaLoss: Record<number, number>;
} {
  const counts = new VerdictCounts();
  const itemLoss = STRENGTHS.map(() => 0);
  const comboLoss = STRENGTHS.map(() => STRENGTHS.map(() => 0));
  let n = 0;
  for (const day of days) {
    for (const r of day) {
      STRENGTHS.forEach((alpha, a) => {
        itemLoss[a] += logLoss(counts.itemRates(r.itemId, alpha), r.verdict);
        STRENGTHS.forEach(
          (beta, b) => (comboLoss[a][b] += logLoss(counts.itemAndCustomer(r.itemId, r.userId, { alpha, beta }), r.verdict)),
        );
      });
      n++;
    }
    counts.add(day);
  }
  const argmin = (xs: readonly number[]) => xs.reduce((best, x, i) => (x < xs[best] ? i : best), 0);
  const a = argmin(itemLoss);
  const b = argmin(comboLoss[a]);
  return {
    chosen: { alpha: STRENGTHS[a], beta: STRENGTHS[b] },
    alphaLoss: Object.fromEntries(STRENGTHS.map((s, i) => [s, itemLoss[i] / n])),
    betaLoss: Object.fromEntries(STRENGTHS.map((s, i) => [s, comboLoss[a][i] / n])),
  };
}
