import { describe, expect, it } from '@jest/globals';
import type { Rental, Verdict } from './rtr.js';
import { chooseStrengths, STRENGTHS, VerdictCounts } from './outcome-baselines.js';

const r = (itemId: string, userId: string, verdict: Verdict) => ({ itemId, userId, verdict });

describe('baselines counted online', () => {
  it('shares the verdicts seen so far, Laplace-smoothed', () => {
    const c = new VerdictCounts();
    expect(c.globalShares()).toEqual([1 / 3, 1 / 3, 1 / 3]);
    c.add([r('a', 'u', 'fit'), r('a', 'v', 'small'), r('b', 'u', 'fit')]);
    expect(c.globalShares()).toEqual([2 / 6, 3 / 6, 1 / 6]);
    expect(c.itemCount('a')).toBe(2);
    expect(c.customerCount('u')).toBe(2);
    expect(c.customerCount('w')).toBe(0);
  });

  it('smooths an item’s rates towards the global shares by alpha rentals', () => {
    const c = new VerdictCounts();
    c.add([r('a', 'u', 'fit'), r('a', 'v', 'small'), r('b', 'u', 'fit')]);
    const g = c.globalShares();
    const p = c.itemRates('a', 2);
    expect(p[0]).toBeCloseTo((1 + 2 * g[0]) / 4, 12);
    expect(p[1]).toBeCloseTo((1 + 2 * g[1]) / 4, 12);
    expect(p[2]).toBeCloseTo((0 + 2 * g[2]) / 4, 12);
    expect(c.itemRates('unseen', 2)).toEqual(g);
  });

  it('moves the item’s odds by the customer’s own departure from the global shares', () => {
    const c = new VerdictCounts();
    c.add([r('a', 'u', 'small'), r('a', 'v', 'fit'), r('b', 'u', 'small'), r('b', 'w', 'fit')]);
    const g = c.globalShares();
    const item = c.itemRates('a', 1);
    const own = [(2 + 1 * g[0]) / 3, (0 + 1 * g[1]) / 3, (0 + 1 * g[2]) / 3];
    const raw = [0, 1, 2].map((k) => (item[k] * own[k]) / g[k]);
    const total = raw[0] + raw[1] + raw[2];
    const p = c.itemAndCustomer('a', 'u', { alpha: 1, beta: 1 });
    raw.forEach((x, k) => expect(p[k]).toBeCloseTo(x / total, 12));
    // a customer never seen leaves the item's rates as they are
    c.itemAndCustomer('a', 'new', { alpha: 1, beta: 1 }).forEach((x, k) => expect(x).toBeCloseTo(item[k], 12));
  });

  it('chooses the prior strengths on the days given, by log loss', () => {
    // every item always fits, customers alike: the weakest prior on the item wins
    const days = Array.from({ length: 20 }, (_, d) =>
      ['a', 'b', 'c'].map((itemId, k) => ({ ...r(itemId, `u${d}-${k}`, itemId === 'c' ? 'small' : 'fit'), at: d }) as unknown as Rental),
    );
    const s = chooseStrengths(days);
    expect(s.chosen.alpha).toBe(STRENGTHS[0]);
    expect(Object.keys(s.alphaLoss)).toHaveLength(STRENGTHS.length);
    expect(STRENGTHS).toContain(s.chosen.beta);
  });
});
