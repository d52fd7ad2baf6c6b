import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addSums,
  type Evidence,
  type EvidenceKind,
  evidenceWeight,
  type EvidenceSums,
  LEARNING,
  learnedOffset,
  learnedOffsets,
  NO_EVIDENCE,
  sumsOf,
} from './learning.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const daysBefore = (days: number, from = NOW) => new Date(from.getTime() - days * DAY);
const kept = (at = NOW): Evidence => ({ kind: 'kept', steps: 0, bought: 0, at });
/** Exchanges to the next size up or down: exactly a step. */
const small = (at = NOW): Evidence => ({ kind: 'size_exchange', steps: 1, bought: 0, at });
const large = (at = NOW): Evidence => ({ kind: 'size_exchange', steps: -1, bought: 0, at });
/** Bounds: a step or more up (down) from the size bought. */
const tooSmall = (at = NOW, bought = 0): Evidence => ({ kind: 'size_return', steps: bought + 1, bound: 'at_least', bought, at });
const tooLarge = (at = NOW, bought = 0): Evidence => ({ kind: 'size_return', steps: bought - 1, bound: 'at_most', bought, at });
const undirected = (at = NOW, bought = 0): Evidence => ({ kind: 'size_return', steps: null, bought, at });
const sums = (evidence: readonly Evidence[]): EvidenceSums => evidence.map((e) => sumsOf(e)).reduce(addSums, NO_EVIDENCE);
const times = (n: number, make: () => Evidence) => Array.from({ length: n }, make);
const product = (evidence: readonly Evidence[], now = NOW) =>
  learnedOffset({ product: sums(evidence), productType: NO_EVIDENCE, store: NO_EVIDENCE }, now);

const KINDS: EvidenceKind[] = ['kept', 'kept_after_override', 'override', 'size_return', 'size_exchange'];
const evidence = fc.record({
  kind: fc.constantFrom(...KINDS),
  steps: fc.option(fc.integer({ min: -4, max: 4 }), { nil: null }),
  bound: fc.constantFrom(undefined, 'at_least' as const, 'at_most' as const),
  bought: fc.integer({ min: -2, max: 2 }),
  at: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2032-01-01T00:00:00Z'), noInvalidDate: true }),
});
/** Equal up to the rounding that summing in another order leaves. */
const sameSums = (a: EvidenceSums, b: EvidenceSums) => {
  const close = (x: number, y: number) => expect(Math.abs(x - y)).toBeLessThanOrEqual(1e-9 * (Math.abs(x) + Math.abs(y)) + 1e-300);
  for (const key of ['weight', 'weightedSteps', 'weightedSquares', 'undirected', 'undirectedAbove', 'undirectedBelow'] as const) {
    close(a[key], b[key]);
  }
  a.atLeast.forEach((x, i) => close(x, b.atLeast[i]));
  a.atMost.forEach((x, i) => close(x, b.atMost[i]));
  expect(a.count).toBe(b.count);
};

describe('evidence sums', () => {
  it('add up to the same sums in any order and any grouping', () => {
    fc.assert(
      fc.property(fc.array(evidence, { maxLength: 40 }), fc.array(evidence, { maxLength: 40 }), (a, b) => {
        const union = sums([...a, ...b]);
        sameSums(union, addSums(sums(b), sums(a)));
        sameSums(union, sums([...b, ...a].reverse()));
        const x = learnedOffset({ product: union, productType: union, store: union }, NOW);
        const y = learnedOffset({ product: addSums(sums(b), sums(a)), productType: union, store: union }, NOW);
        expect(y.steps).toBeCloseTo(x.steps, 9);
        expect(y.sd).toBeCloseTo(x.sd, 9);
      }),
    );
  });

  it('weighs every outcome as much as a kept item, and a bare override less', () => {
    expect(evidenceWeight(small())).toBe(evidenceWeight(kept()));
    expect(evidenceWeight(undirected())).toBe(evidenceWeight(kept()));
    expect(evidenceWeight({ kind: 'override', steps: 1, bought: 1, at: NOW })).toBeLessThan(evidenceWeight(small()));
    const w = sumsOf(kept()).weight;
    expect(sumsOf(undirected())).toEqual({ ...NO_EVIDENCE, undirected: w, count: 1 });
    expect(sumsOf(undirected(NOW, 1))).toEqual({ ...NO_EVIDENCE, undirected: w, undirectedAbove: w, count: 1 });
    expect(sumsOf(undirected(NOW, -2))).toEqual({ ...NO_EVIDENCE, undirected: w, undirectedBelow: w, count: 1 });
  });
});

describe('learnedOffset', () => {
  it('says little on three outcomes and a lot on three hundred', () => {
    const few = product(times(3, () => small()));
    const many = product(times(300, () => small()));
    expect(few.steps).toBeGreaterThan(0);
    expect(few.steps).toBeLessThan(0.4);
    expect(many.steps).toBeGreaterThan(0.95);
    expect(many.sd).toBeLessThan(few.sd / 3);
    expect(many.count).toBe(300);
    expect(many.evidence).toBeCloseTo(300, 6);
    expect(many.low).toBeLessThan(many.steps);
    expect(many.high).toBeCloseTo(2 * many.steps - many.low, 12);
  });

  it("gives a product with no evidence its type's offset, and a type with none the store's", () => {
    const typeEvidence = sums(times(10, () => small()));
    const byType = learnedOffset({ product: NO_EVIDENCE, productType: typeEvidence, store: NO_EVIDENCE }, NOW);
    expect(byType.steps).toBeCloseTo(10 / (LEARNING.productType + 10), 12);
    expect(byType.count).toBe(0);
    expect(byType.evidence).toBe(0);
    const storeEvidence = sums(times(400, () => large()));
    const byStore = learnedOffset({ product: NO_EVIDENCE, productType: NO_EVIDENCE, store: storeEvidence }, NOW);
    expect(byStore.steps).toBeCloseTo(-400 / (LEARNING.store + 400), 12);
    const nothing = learnedOffset({ product: NO_EVIDENCE, productType: NO_EVIDENCE, store: NO_EVIDENCE }, NOW);
    expect(nothing.steps).toBe(0);
    expect(nothing.sd).toBeGreaterThan(0);
  });

  it('learns a product that runs half a size small although a third of its size problems say no direction', () => {
    // half her shoppers need the next size up: 100 keep the chart's size, of the 100 others 70 say "too small", 30 nothing
    const e = [...times(100, () => kept()), ...times(70, () => small()), ...times(30, () => undirected())];
    const learned = product(e);
    expect(learned.steps).toBeGreaterThan(0.45);
    expect(learned.steps).toBeLessThan(0.55);
    // dropping the undirected problems would have said 70 / 170 of the way, shrunk: well short of a half
    const withoutThem = product(e.filter((x) => x.steps !== null));
    expect(withoutThem.steps).toBeLessThan(0.42);
    // and bought a size above the chart's answer, the same problem points the other way
    const above = product([...times(100, () => kept()), ...times(60, () => undirected(NOW, 1))]);
    expect(above.steps).toBeLessThan(0.3);
  });

  it('reads a bound as what lies beyond it: "a step or more up" says more than "exactly a step" of a product that runs small', () => {
    // a fifth of a product's shoppers keep the chart's size, the others need one or two sizes up: bounds of "a step or
    // more" learn more of that than reading each as exactly one step
    const asOneStep = product([...times(40, () => kept()), ...times(160, () => small())]);
    const asBound = product([...times(40, () => kept()), ...times(160, () => tooSmall())]);
    expect(asOneStep.steps).toBeLessThan(0.8);
    expect(asBound.steps).toBeGreaterThan(asOneStep.steps + 0.05);
    expect(asBound.sd).toBeGreaterThan(asOneStep.sd * 0.99);
    const mirrored = product([...times(40, () => kept()), ...times(160, () => tooLarge())]);
    expect(mirrored.steps).toBeCloseTo(-asBound.steps, 9);
  });

  it('reads the largest size kept as that size or bigger, so it does not pull a product that runs small to 0', () => {
    const largestKept = (): Evidence => ({ ...kept(), bound: 'at_least' });
    const runsSmall = [...times(60, () => small()), ...times(20, () => kept())];
    const asExact = product([...runsSmall, ...times(20, () => kept())]);
    const asBound = product([...runsSmall, ...times(20, largestKept)]);
    expect(asBound.steps).toBeGreaterThan(asExact.steps + 0.05);
    // and a product true to its chart, whose largest size is kept, is not pushed up by much
    const trueToSize = product([
      ...times(60, () => kept()),
      ...times(10, () => small()),
      ...times(10, () => large()),
      ...times(10, largestKept),
    ]);
    expect(trueToSize.steps).toBeGreaterThan(0);
    expect(trueToSize.steps).toBeLessThan(0.15);
  });

  it('keeps a product true to its chart at 0 whatever share of its problems say no direction', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (k, d, u) => {
        const e = [...times(k, () => kept()), ...times(d, () => small()), ...times(d, () => large()), ...times(u, () => undirected())];
        const learned = product(e);
        expect(Math.abs(learned.steps)).toBeLessThan(1e-9);
        expect(Number.isFinite(learned.sd) && learned.sd > 0).toBe(true);
      }),
    );
  });

  it('knows an offset less well from undirected problems than from directed ones', () => {
    const base = [...times(50, () => kept()), ...times(20, () => small())];
    const directed = product([...base, ...times(20, () => small())]);
    const undirectedToo = product([...base, ...times(20, () => undirected())]);
    const neither = product(base);
    expect(undirectedToo.sd).toBeGreaterThan(directed.sd);
    expect(undirectedToo.steps).toBeGreaterThan(neither.steps * 0.9);
    expect(undirectedToo.steps).toBeLessThan(directed.steps);
  });

  it('lets old evidence weigh less, so a re-cut product follows its new outcomes', () => {
    const old = times(50, () => small(daysBefore(0, new Date('2025-01-01T00:00:00Z'))));
    const fresh = product(old, new Date('2025-01-01T00:00:00Z'));
    const twoYearsOn = product(old, new Date('2027-01-01T00:00:00Z'));
    expect(twoYearsOn.steps).toBeLessThan(fresh.steps - 0.2);
    expect(twoYearsOn.evidence).toBeCloseTo(50 * Math.exp(-730 / LEARNING.tauDays), 6);
    // three hundred outcomes of the old cut three years ago, forty of the new cut in the last month
    const recut = product([...times(300, () => small(daysBefore(3 * 365))), ...times(40, () => large(daysBefore(30)))]);
    expect(recut.steps).toBeLessThan(-0.3);
  });

  it('stays finite for outcomes and readings centuries either side of the epoch', () => {
    const dates = ['1826-01-01', '1950-06-01', '2026-01-01', '2100-01-01', '2526-01-01'].map((d) => new Date(`${d}T00:00:00Z`));
    for (const at of dates) {
      for (const now of dates) {
        const e = [...times(1000, () => small(at)), ...times(10, () => undirected(at)), kept(now)];
        const s = sums(e);
        expect(Object.values(s).flat().every(Number.isFinite)).toBe(true);
        const o = learnedOffset({ product: s, productType: s, store: s }, now);
        expect([o.steps, o.sd, o.low, o.high, o.evidence].every(Number.isFinite)).toBe(true);
        expect(o.steps).toBeGreaterThanOrEqual(0);
        expect(o.steps).toBeLessThanOrEqual(1);
      }
    }
    expect(() => sumsOf(kept(new Date(NaN)))).toThrow(RangeError);
  });

  it('learns many products of a store at once exactly as it learns each alone', () => {
    const item = fc.record({ type: fc.constantFrom('shirts', 'dresses', 'coats'), evidence: fc.array(evidence, { maxLength: 12 }) });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), (items) => {
        const products = items.map((i) => ({ sums: sums(i.evidence), productTypeId: i.type }));
        // coats are left out of the map: a type with no evidence
        const types = new Map(['shirts', 'dresses'].map((t) => [t, sums(items.filter((i) => i.type === t).flatMap((i) => i.evidence))]));
        const store = sums(items.flatMap((i) => i.evidence));
        const together = learnedOffsets(store, types, products, NOW);
        products.forEach((p, index) => {
          const alone = learnedOffset({ product: p.sums, productType: types.get(p.productTypeId) ?? NO_EVIDENCE, store }, NOW);
          expect(together[index]).toEqual(alone);
        });
      }),
    );
  });

  it('is deterministic', () => {
    const e = [...times(7, () => small(daysBefore(40))), large(daysBefore(3)), undirected(daysBefore(9))];
    const levels = { product: sums(e), productType: sums([...e, ...e]), store: sums([...e, ...e, ...e]) };
    expect(learnedOffset(levels, NOW)).toEqual(learnedOffset(levels, NOW));
    expect(sums(e)).toEqual(sums(e));
  });
});
