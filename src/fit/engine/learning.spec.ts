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
  NO_EVIDENCE,
  sumsOf,
} from './learning.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const daysBefore = (days: number, from = NOW) => new Date(from.getTime() - days * DAY);
const kept = (at = NOW): Evidence => ({ kind: 'kept', steps: 0, at });
const small = (at = NOW): Evidence => ({ kind: 'size_return', steps: 1, at });
const large = (at = NOW): Evidence => ({ kind: 'size_return', steps: -1, at });
const undirected = (at = NOW): Evidence => ({ kind: 'size_return', steps: null, at });
const sums = (evidence: readonly Evidence[]): EvidenceSums => evidence.map((e) => sumsOf(e)).reduce(addSums, NO_EVIDENCE);
const times = (n: number, make: () => Evidence) => Array.from({ length: n }, make);
const product = (evidence: readonly Evidence[], now = NOW) =>
  learnedOffset({ product: sums(evidence), productType: NO_EVIDENCE, store: NO_EVIDENCE }, now);

const KINDS: EvidenceKind[] = ['kept', 'kept_after_override', 'override', 'size_return', 'size_exchange'];
const evidence = fc.record({
  kind: fc.constantFrom(...KINDS),
  steps: fc.option(fc.integer({ min: -4, max: 4 }), { nil: null }),
  at: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2032-01-01T00:00:00Z'), noInvalidDate: true }),
});
/** Equal up to the rounding that summing in another order leaves. */
const sameSums = (a: EvidenceSums, b: EvidenceSums) => {
  for (const key of ['weight', 'weightedSteps', 'weightedSquares', 'undirected'] as const) {
    expect(Math.abs(a[key] - b[key])).toBeLessThanOrEqual(1e-9 * (Math.abs(a[key]) + Math.abs(b[key])) + 1e-300);
  }
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

  it('weighs size problems with a direction as much as a kept item, and undirected ones and bare overrides less', () => {
    expect(evidenceWeight(small())).toBe(evidenceWeight(kept()));
    expect(evidenceWeight(undirected())).toBeLessThan(evidenceWeight(small()));
    expect(evidenceWeight({ kind: 'override', steps: 1, at: NOW })).toBeLessThan(evidenceWeight(small()));
    expect(sumsOf(undirected())).toEqual({ ...NO_EVIDENCE, undirected: evidenceWeight(undirected()) * sumsOf(kept()).weight, count: 1 });
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

  it('widens the uncertainty on undirected size problems without moving the offset', () => {
    const directedSteps = (max: number) => fc.array(fc.integer({ min: -max, max }), { minLength: 1, maxLength: 60 });
    const check = (steps: number[], n: number, strictly: boolean) => {
      const directed = steps.map((s): Evidence => ({ kind: 'size_exchange', steps: s, at: NOW }));
      const before = product(directed);
      const after = product([...directed, ...times(n, () => undirected())]);
      expect(after.steps).toBeCloseTo(before.steps, 12);
      if (strictly) expect(after.sd).toBeGreaterThan(before.sd);
      else expect(after.sd).toBeGreaterThanOrEqual(before.sd * (1 - 1e-12));
      expect(after.count).toBe(before.count + n);
    };
    // within a step of the chart an undirected problem (a step off at least) always widens; further off, never narrows
    fc.assert(fc.property(directedSteps(1), fc.integer({ min: 1, max: 30 }), (steps, n) => check(steps, n, true)));
    fc.assert(fc.property(directedSteps(6), fc.integer({ min: 1, max: 30 }), (steps, n) => check(steps, n, false)));
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
        expect(Object.values(s).every(Number.isFinite)).toBe(true);
        const o = learnedOffset({ product: s, productType: s, store: s }, now);
        expect([o.steps, o.sd, o.low, o.high, o.evidence].every(Number.isFinite)).toBe(true);
        expect(o.steps).toBeGreaterThanOrEqual(0);
        expect(o.steps).toBeLessThanOrEqual(1);
      }
    }
    expect(() => sumsOf(kept(new Date(NaN)))).toThrow(RangeError);
  });

  it('is deterministic', () => {
    const e = [...times(7, () => small(daysBefore(40))), large(daysBefore(3)), undirected(daysBefore(9))];
    const levels = { product: sums(e), productType: sums([...e, ...e]), store: sums([...e, ...e, ...e]) };
    expect(learnedOffset(levels, NOW)).toEqual(learnedOffset(levels, NOW));
    expect(sums(e)).toEqual(sums(e));
  });
});
