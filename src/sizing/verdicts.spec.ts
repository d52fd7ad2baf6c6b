import { describe, expect, it } from '@jest/globals';
import type { AnswerFeatures } from './answer-link.js';
import { growth, LEARNING } from './learning.js';
import {
  addVerdictSums,
  itemRates,
  levelsOf,
  NO_VERDICTS,
  placeKeys,
  productKey,
  sizeVerdicts,
  STORE_KEY,
  type Triple,
  typeKey,
  verdictOf,
  type VerdictSums,
  verdictSumsOf,
} from './verdicts.js';

const NOW = new Date('2026-12-01T00:00:00Z');
const FEATURES: AnswerFeatures = { mean: 1.2, variance: 0.5, body: true, usual: 1, offset: 0 };

/** The sums of many outcomes at NOW, added one by one. */
function summed(outcomes: Array<{ verdict: 'too_small' | 'fit' | 'too_large'; place?: { keys: string[]; expected: Triple } }>) {
  const rows = new Map<string, VerdictSums>();
  for (const { verdict, place } of outcomes) {
    for (const { key, sums } of verdictSumsOf({ id: 'p1', typeId: 't1' }, verdict, NOW, place ?? null)) {
      rows.set(key, addVerdictSums(rows.get(key) ?? NO_VERDICTS, sums));
    }
  }
  return rows;
}

const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('verdict odds', () => {
  it('reads kept items as a fit, directed problems as their direction, and nothing else', () => {
    const at = NOW;
    expect(verdictOf({ kind: 'kept', steps: 0, bought: 0, at })).toBe('fit');
    expect(verdictOf({ kind: 'kept_after_override', steps: 1, bound: 'at_least', bought: 1, at })).toBe('fit');
    expect(verdictOf({ kind: 'size_return', steps: 1, bought: 0, at })).toBe('too_small');
    expect(verdictOf({ kind: 'size_exchange', steps: -2, bound: 'at_most', bought: -1, at })).toBe('too_large');
    expect(verdictOf({ kind: 'size_return', steps: null, bought: 0, at })).toBeNull();
    expect(verdictOf({ kind: 'override', steps: 1, bought: 1, at })).toBeNull();
  });

  it("gives an item with no outcomes its store's shares, and one with many its own", () => {
    const none = itemRates({}, NOW);
    expect(none.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(none[1]).toBeGreaterThan(0.7);

    const rows = summed([...times(300, { verdict: 'too_small' as const }), ...times(100, { verdict: 'fit' as const })]);
    const rates = itemRates(levelsOf(rows, 'p1', 't1'), NOW);
    expect(rates[0]).toBeGreaterThan(0.73);
    expect(rates[0]).toBeLessThan(0.75);
    // a new product of that type starts from the type's rates, one of another type from the store's
    expect(itemRates(levelsOf(rows, 'p2', 't1'), NOW)[0]).toBeGreaterThan(0.7);
    expect(itemRates(levelsOf(rows, 'p3', 't2'), NOW)).toEqual(itemRates({ store: rows.get(STORE_KEY) }, NOW));
  });

  it('moves a size by what its place turned out as, beyond the item rates, and backs off to her usual size alone', () => {
    const item: Triple = [0.2, 0.7, 0.1];
    const { place, usual } = placeKeys(1, FEATURES);
    expect(place).toBe('place:0:0');
    expect(usual).toBe('usual:0');
    // at her usual size, twice the "too small" the item's rates expected
    const at = { keys: [place, usual], expected: item };
    const rows = summed([
      ...times(160, { verdict: 'too_small' as const, place: at }),
      ...times(240, { verdict: 'fit' as const, place: at }),
    ]);
    const [, atUsual] = sizeVerdicts(item, rows, FEATURES, 4, NOW);
    expect(atUsual[0]).toBeGreaterThan(0.35);
    expect(atUsual.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);

    // a place never seen, with her usual size's marginal known, follows the marginal
    const marginalOnly = new Map([...rows].filter(([key]) => key.startsWith('usual:')));
    const [, backedOff] = sizeVerdicts(item, marginalOnly, FEATURES, 4, NOW);
    expect(backedOff[0]).toBeCloseTo(atUsual[0], 1);
    // a size at a place nothing was seen at keeps the item's rates
    const [, , , far] = sizeVerdicts(item, rows, FEATURES, 4, NOW);
    expect(far.map((x) => Number(x.toFixed(12)))).toEqual(item);
  });

  it('takes back exactly what an outcome added', () => {
    const place = { keys: ['place:1:1', 'usual:1'], expected: [0.2, 0.7, 0.1] as Triple };
    const added = verdictSumsOf({ id: 'p1', typeId: 't1' }, 'too_large', new Date('2025-03-01T00:00:00Z'), place);
    for (const { sums } of added) {
      const back = addVerdictSums(addVerdictSums(NO_VERDICTS, sums), sums, -1);
      expect(back).toEqual({ observed: [0, 0, 0], expected: [0, 0, 0], count: 0 });
    }
    expect(added.map((r) => r.key)).toEqual([STORE_KEY, productKey('p1'), typeKey('t1'), 'place:1:1', 'usual:1']);
    // stored grown by the outcome's date, as every sum of learning
    expect(added[0].sums.observed[2]).toBeCloseTo(growth(new Date('2025-03-01T00:00:00Z'), LEARNING.tauDays), 12);
  });
});
