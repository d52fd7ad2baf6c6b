import { describe, expect, it } from '@jest/globals';
import type { Rental, Verdict } from './rtr.js';
import { fitChart } from './rtr-chart.js';
import { usualSizes } from './rtr-evaluate.js';

const BODY_TYPES = ['hourglass', 'athletic', 'petite', 'pear', null];

/** A fixed linear congruential sequence in [0, 1): the synthetic customers are the same on every run. */
function uniform(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Customers whose "fit" size is a known function of weight and category; some answers left out. */
function customers(n: number): Rental[] {
  const random = uniform(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  return Array.from({ length: n }, (_, i) => {
    const weightLbs = 110 + Math.round(random() * 120);
    const category = pick(['dress', 'gown']);
    const verdict: Verdict = random() < 0.2 ? 'small' : 'fit';
    const bust = random() < 0.9;
    return {
      verdict,
      userId: `u${i}`,
      itemId: String(i % 7),
      category,
      // the "small" rentals were a size too small: the chart must not learn from them
      size: 0.3 * (weightLbs - 110) + (category === 'gown' ? 4 : 0) - (verdict === 'small' ? 4 : 0),
      weightLbs,
      heightIn: random() < 0.05 ? null : 60 + Math.round(random() * 10),
      age: 30,
      bustBand: bust ? pick([32, 34, 36, 38]) : null,
      cup: bust ? pick([1, 2, 3, 4]) : null,
      bodyType: pick(BODY_TYPES),
      at: i,
    };
  });
}

describe('size chart of the engine that never learns', () => {
  it('recommends the size that fitted customers with the same answers, per category', () => {
    const all = customers(3000);
    const chart = fitChart(all);
    const someone = all.find((r) => r.category === 'gown')!;
    const expected = 0.3 * ((someone.weightLbs ?? 0) - 110) + 4;
    // the category's shift (±2 around the pooled fit) is shrunk by 50 rentals out of ~1200: within a tenth of a size
    expect(Math.abs(chart.recommend(someone) - expected)).toBeLessThan(0.2);
    expect(chart.recommend({ ...someone, weightLbs: 200 })).toBeGreaterThan(chart.recommend(someone));
    // an implausible weight counts as not given
    expect(Number.isFinite(chart.recommend({ ...someone, weightLbs: 2000 }))).toBe(true);
  });
});

describe('answers the chart reads', () => {
  it('reads the size she usually wears when asked to, and drops bra size and body type when told', () => {
    // sizes that weight alone cannot tell: each customer a size above or below what her weight says, as her usual
    // size shows
    const all = customers(3000).map((r, i) => ({
      ...r,
      verdict: 'fit' as Verdict,
      category: 'dress',
      size: 0.3 * ((r.weightLbs ?? 0) - 110) + 4 * ((i % 3) - 1),
    }));
    const usual = new Map<Rental, number | null>(all.map((r, i) => [r, i % 10 === 0 ? null : r.size]));
    const withUsual = fitChart(all, { braSize: false, bodyType: false, usualSize: (r) => usual.get(r) ?? null });
    const without = fitChart(all, { braSize: false, bodyType: false });
    const error = (chart: ReturnType<typeof fitChart>) => all.reduce((sum, r) => sum + (chart.recommend(r) - r.size) ** 2, 0) / all.length;
    expect(error(without)).toBeGreaterThan(9);
    expect(error(withUsual)).toBeLessThan(2);
  });

  it('takes the usual size from her earlier days only, as the median', () => {
    const base = customers(5);
    const rentals = [
      { ...base[0], userId: 'a', size: 4, at: 1 },
      { ...base[1], userId: 'a', size: 8, at: 1 },
      { ...base[2], userId: 'b', size: 12, at: 2 },
      { ...base[3], userId: 'a', size: 16, at: 3 },
      { ...base[4], userId: 'a', size: 2, at: 4 },
    ];
    expect(rentals.map((r) => usualSizes(rentals).get(r))).toEqual([null, null, null, 6, 8]);
  });
});
