import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { upperTail } from '../sizing/normal.js';
import {
  analyseExperiment,
  planSampleSize,
  sampleRatioCheck,
  type ArmMoments,
  type Comparison,
  type ExperimentAnalysis,
  type ExperimentInput,
  type Lift,
  type MetricMoments,
  type SampleSizeInput,
} from './statistics.js';

/** One unit's numerator, denominator and (optionally) pre-experiment covariate. */
interface Unit {
  readonly a: number;
  readonly b: number;
  readonly x?: number;
}

/** The sums SQL would return for these units. */
function momentsOf(units: readonly Unit[]): MetricMoments {
  const sum = (f: (u: Unit) => number) => units.reduce((s, u) => s + f(u), 0);
  const moments = {
    sumA: sum((u) => u.a),
    sumB: sum((u) => u.b),
    sumAA: sum((u) => u.a * u.a),
    sumBB: sum((u) => u.b * u.b),
    sumAB: sum((u) => u.a * u.b),
  };
  if (units.some((u) => u.x === undefined)) return moments;
  const x = (u: Unit) => u.x ?? 0;
  return {
    ...moments,
    covariate: { sumX: sum(x), sumXX: sum((u) => x(u) ** 2), sumAX: sum((u) => u.a * x(u)), sumBX: sum((u) => u.b * x(u)) },
  };
}

/** A conversion metric's sums: a = converted, b = 1. */
const conversion = (converted: number, units: number): MetricMoments => ({
  sumA: converted,
  sumB: units,
  sumAA: converted,
  sumBB: units,
  sumAB: converted,
});

function arm(id: string, units: readonly Unit[]): ArmMoments<'metric'> {
  return { arm: id, units: units.length, metrics: { metric: momentsOf(units) } };
}

function analyse(arms: readonly ArmMoments<'metric'>[], plannedUnits: number): ExperimentAnalysis<'metric'> {
  const input: ExperimentInput<'metric'> = { arms, control: arms[0].arm, plannedUnits };
  return analyseExperiment(input);
}

const firstComparison = (result: ExperimentAnalysis<'metric'>): Comparison => result.metrics.metric.comparisons[0];

function absolute(comparison: Comparison, which: 'plain' | 'cuped' = 'plain'): Lift {
  const lift = comparison[which].absolute;
  if (lift === null) throw new Error('no absolute lift');
  return lift;
}

/** Var(R̂) by brute force: the sample variance of the per-unit linearization L = (a − R b) / mean(b), over n. */
function linearizedVariance(units: readonly Unit[]): number {
  const n = units.length;
  const rate = units.reduce((s, u) => s + u.a, 0) / units.reduce((s, u) => s + u.b, 0);
  const meanB = units.reduce((s, u) => s + u.b, 0) / n;
  const l = units.map((u) => (u.a - rate * u.b) / meanB);
  const meanL = l.reduce((s, v) => s + v, 0) / n;
  return l.reduce((s, v) => s + (v - meanL) ** 2, 0) / (n - 1) / n;
}

/** Var(R̂) by the textbook delta method: (σ_a² − 2R σ_ab + R² σ_b²) / (n μ_b²) with sample (co)variances. */
function deltaMethodVariance(units: readonly Unit[]): number {
  const n = units.length;
  const mean = (f: (u: Unit) => number) => units.reduce((s, u) => s + f(u), 0) / n;
  const cov = (f: (u: Unit) => number, g: (u: Unit) => number) =>
    units.reduce((s, u) => s + (f(u) - mean(f)) * (g(u) - mean(g)), 0) / (n - 1);
  const a = (u: Unit) => u.a;
  const b = (u: Unit) => u.b;
  const rate = mean(a) / mean(b);
  return (cov(a, a) - 2 * rate * cov(a, b) + rate * rate * cov(b, b)) / (n * mean(b) ** 2);
}

/** Mulberry32: a small seeded PRNG, so every Monte Carlo here draws the same numbers on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isClose = (actual: number, expected: number, relative = 1e-9) =>
  Math.abs(actual - expected) <= relative * Math.max(Math.abs(expected), 1e-12);

const unitArb = fc.record({ a: fc.integer({ min: 0, max: 4 }), b: fc.integer({ min: 1, max: 4 }), x: fc.integer({ min: 0, max: 6 }) });
const unitsArb = fc.array(unitArb, { minLength: 3, maxLength: 25 }).map((units) => units.map((u) => ({ ...u, a: Math.min(u.a, u.b) })));

describe('rates and their delta-method variance', () => {
  it('match a hand-computed ratio: lines returned over lines bought, clustered by shopper', () => {
    // R = 4 / 6; a − R·b = (1/3, −2/3, 2/3, −1/3), Σ² = 10/9; mean b = 1.5, so Σ L² = (10/9) / 2.25 = 40/81;
    // Var(L) = (40/81) / 3 and Var(R̂) = Var(L) / 4 = 10/243
    const treatment = [
      { a: 1, b: 1 },
      { a: 0, b: 1 },
      { a: 2, b: 2 },
      { a: 1, b: 2 },
    ];
    const control = [
      { a: 0, b: 1 },
      { a: 1, b: 1 },
      { a: 1, b: 3 },
    ];
    const result = analyse([arm('control', control), arm('treatment', treatment)], 100);
    const [c, t] = result.metrics.metric.arms;
    expect(t.plain.rate).toBeCloseTo(2 / 3, 12);
    expect(t.plain.standardError).toBeCloseTo(Math.sqrt(10 / 243), 12);
    expect(c.plain.rate).toBeCloseTo(2 / 5, 12);
    // without a covariate, CUPED is plain
    expect(t.cuped).toEqual(t.plain);
    const lift = absolute(firstComparison(result));
    expect(lift.estimate).toBeCloseTo(2 / 3 - 2 / 5, 12);
    expect(lift.standardError ** 2).toBeCloseTo(10 / 243 + linearizedVariance(control), 12);
  });

  it('agrees with the per-unit linearization and with the textbook delta method on any units', () => {
    fc.assert(
      fc.property(unitsArb, unitsArb, (control, treatment) => {
        const result = analyse([arm('c', control), arm('t', treatment)], 1000);
        const [c, t] = result.metrics.metric.arms;
        for (const [estimate, units] of [
          [c.plain, control],
          [t.plain, treatment],
        ] as const) {
          const variance = (estimate.standardError ?? NaN) ** 2;
          expect(isClose(variance, linearizedVariance(units), 1e-9) || linearizedVariance(units) < 1e-15).toBe(true);
          expect(isClose(variance, deltaMethodVariance(units), 1e-9) || deltaMethodVariance(units) < 1e-15).toBe(true);
        }
        const lifts = firstComparison(result).plain;
        if (lifts.absolute === null || lifts.relative === null || c.plain.rate === null || t.plain.rate === null) return;
        const [rc, rt] = [c.plain.rate, t.plain.rate];
        const [vc, vt] = [linearizedVariance(control), linearizedVariance(treatment)];
        expect(lifts.absolute.estimate).toBeCloseTo(rt - rc, 12);
        expect(isClose(lifts.absolute.standardError ** 2, vc + vt, 1e-9)).toBe(true);
        expect(lifts.relative.estimate).toBeCloseTo(rt / rc - 1, 12);
        expect(isClose(lifts.relative.standardError ** 2, vt / rc ** 2 + (rt ** 2 * vc) / rc ** 4, 1e-9)).toBe(true);
      }),
    );
  });

  it('gives null, not NaN, for an arm without purchases or lifts without spread', () => {
    const input: ExperimentInput<'conversion' | 'sizeReturn'> = {
      arms: [
        { arm: 'control', units: 50, metrics: { conversion: conversion(0, 50), sizeReturn: momentsOf([]) } },
        { arm: 'treatment', units: 40, metrics: { conversion: conversion(0, 40), sizeReturn: momentsOf([{ a: 1, b: 2 }]) } },
      ],
      control: 'control',
      plannedUnits: 1000,
    };
    const result = analyseExperiment(input);
    expect(result.metrics.sizeReturn.arms[0].plain).toEqual({ rate: null, standardError: null });
    expect(result.metrics.sizeReturn.comparisons[0]).toEqual({
      arm: 'treatment',
      plain: { absolute: null, relative: null },
      cuped: { absolute: null, relative: null },
      varianceReduction: null,
    });
    // nobody converted anywhere: the rates are 0 with no spread, and no interval can be stated
    expect(result.metrics.conversion.arms[1].plain).toEqual({ rate: 0, standardError: 0 });
    expect(result.metrics.conversion.comparisons[0].plain).toEqual({ absolute: null, relative: null });
    // the control converted, the treatment did not: an absolute lift, but a relative one needs a non-zero control
    const some = analyseExperiment({
      ...input,
      arms: [{ ...input.arms[0], metrics: { ...input.arms[0].metrics, conversion: conversion(5, 50) } }, input.arms[1]],
    });
    expect(some.metrics.conversion.comparisons[0].plain.absolute?.estimate).toBeCloseTo(-0.1, 12);
    const reversed = analyseExperiment({
      ...input,
      arms: [input.arms[0], { ...input.arms[1], metrics: { ...input.arms[1].metrics, conversion: conversion(4, 40) } }],
    });
    expect(reversed.metrics.conversion.comparisons[0].plain.absolute).not.toBeNull();
    expect(reversed.metrics.conversion.comparisons[0].plain.relative).toBeNull();
  });

  it('compares every treatment with the control, in arm order, and refuses malformed experiments', () => {
    const arms = ['b', 'control', 'c'].map((id, i) => ({ arm: id, units: 1000, metrics: { metric: conversion(100 + 20 * i, 1000) } }));
    const result = analyseExperiment({ arms, control: 'control', plannedUnits: 3000 });
    expect(result.units).toBe(3000);
    expect(result.plannedSizeReached).toBe(true);
    expect(result.metrics.metric.comparisons.map((c) => [c.arm, c.plain.absolute?.estimate.toFixed(3)])).toEqual([
      ['b', '-0.020'],
      ['c', '0.020'],
    ]);
    expect(analyseExperiment({ arms, control: 'control', plannedUnits: 3001 }).plannedSizeReached).toBe(false);
    expect(() => analyseExperiment({ arms, control: 'nope', plannedUnits: 3000 })).toThrow(RangeError);
    expect(() => analyseExperiment({ arms: arms.slice(0, 1), control: 'b', plannedUnits: 3000 })).toThrow(RangeError);
    expect(() => analyseExperiment({ arms: [...arms, ...arms], control: 'b', plannedUnits: 3000 })).toThrow(RangeError);
    expect(() => analyseExperiment({ arms, control: 'control', plannedUnits: 0 })).toThrow(RangeError);
  });
});

describe('intervals', () => {
  /** Control converts 10%, treatment `rate`, `perArm` units each. */
  const conversionLift = (perArm: number, rate: number, plannedUnits: number) =>
    analyseExperiment({
      arms: [
        { arm: 'control', units: perArm, metrics: { metric: conversion(Math.round(perArm * 0.1), perArm) } },
        { arm: 'treatment', units: perArm, metrics: { metric: conversion(Math.round(perArm * rate), perArm) } },
      ],
      control: 'control',
      plannedUnits,
    }).metrics.metric.comparisons[0];

  it('fixed horizon: estimate ± 1.959964 standard errors, with the two-sided normal p-value', () => {
    const lift = absolute(conversionLift(2000, 0.12, 4000));
    expect((lift.fixedHorizon.high - lift.estimate) / lift.standardError).toBeCloseTo(1.959964, 6);
    expect((lift.estimate - lift.fixedHorizon.low) / lift.standardError).toBeCloseTo(1.959964, 6);
    expect(lift.fixedHorizonP).toBeCloseTo(2 * upperTail(lift.estimate / lift.standardError), 12);
    // 0.02 over sqrt(0.09/1999 + 0.1056/1999) = 2.0226 standard errors
    expect(lift.estimate / lift.standardError).toBeCloseTo(0.02 / Math.sqrt(0.09 / 1999 + 0.1056 / 1999), 9);
  });

  it('always valid: contains the estimate, is wider than the fixed one, agrees with its p-value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 200_000 }),
        fc.double({ min: 0.02, max: 0.3, noNaN: true }),
        fc.double({ min: 0.05, max: 20, noNaN: true }),
        (perArm, rate, progress) => {
          const comparison = conversionLift(perArm, rate, (2 * perArm) / progress);
          for (const lift of [comparison.plain.absolute, comparison.plain.relative]) {
            if (lift === null) continue;
            const { alwaysValid, fixedHorizon } = lift;
            expect(alwaysValid.low).toBeLessThanOrEqual(lift.estimate);
            expect(alwaysValid.high).toBeGreaterThanOrEqual(lift.estimate);
            expect(alwaysValid.low).toBeLessThan(fixedHorizon.low);
            expect(alwaysValid.high).toBeGreaterThan(fixedHorizon.high);
            expect(lift.alwaysValidP).toBeGreaterThanOrEqual(lift.fixedHorizonP);
            expect(lift.fixedHorizonP).toBeLessThanOrEqual(1);
            expect(lift.significant).toBe(lift.alwaysValidP < 0.05);
            expect(lift.direction).toBe(alwaysValid.low > 0 ? 'higher' : alwaysValid.high < 0 ? 'lower' : 'inconclusive');
          }
        },
      ),
    );
  });

  it('always valid: narrows as units come in, and is tightest against the standard error at the planned size', () => {
    const widths = [250, 500, 1000, 2000, 4000, 8000, 16_000].map((perArm) => {
      const lift = absolute(conversionLift(perArm, 0.12, 8000));
      return { width: lift.alwaysValid.high - lift.alwaysValid.low, perSe: (lift.alwaysValid.high - lift.estimate) / lift.standardError };
    });
    for (let i = 1; i < widths.length; i++) expect(widths[i].width).toBeLessThan(widths[i - 1].width);
    // 4000 per arm is the planned size: √(1 + r*) with r* = ln(1 + r*) − 2 ln 0.05, ≈ 3.03 standard errors
    expect(widths[4].perSe).toBeCloseTo(3.0349, 3);
    for (const [i, w] of widths.entries()) if (i !== 4) expect(w.perSe).toBeGreaterThan(widths[4].perSe);
  });

  it('a treatment that clearly converts more or less has its direction', () => {
    expect(absolute(conversionLift(20_000, 0.13, 40_000)).direction).toBe('higher');
    expect(absolute(conversionLift(20_000, 0.07, 40_000)).direction).toBe('lower');
    expect(absolute(conversionLift(20_000, 0.1, 40_000)).direction).toBe('inconclusive');
    expect(absolute(conversionLift(20_000, 0.1, 40_000)).significant).toBe(false);
  });

  it('A/A experiments read at 20 looks: peeking at the fixed interval rejects far above 5%, the always-valid one within it', () => {
    const random = mulberry32(20250601);
    const experiments = 1000;
    const looks = 20;
    const perLook = 100;
    let fixedRejected = 0;
    let alwaysValidRejected = 0;
    for (let e = 0; e < experiments; e++) {
      const converted = [0, 0];
      let fixed = false;
      let alwaysValid = false;
      for (let look = 1; look <= looks; look++) {
        for (const i of [0, 1]) for (let u = 0; u < perLook; u++) if (random() < 0.2) converted[i]++;
        const units = look * perLook;
        const lift = analyseExperiment({
          arms: [0, 1].map((i) => ({ arm: `arm${i}`, units, metrics: { metric: conversion(converted[i], units) } })),
          control: 'arm0',
          plannedUnits: 2 * looks * perLook,
        }).metrics.metric.comparisons[0].plain.absolute;
        if (lift === null) continue;
        fixed ||= lift.fixedHorizon.low > 0 || lift.fixedHorizon.high < 0;
        alwaysValid ||= lift.significant;
      }
      fixedRejected += Number(fixed);
      alwaysValidRejected += Number(alwaysValid);
    }
    // observed with this seed: fixed 0.247, always valid 0.008
    expect(fixedRejected / experiments).toBeGreaterThan(0.1);
    // 5% plus three Monte Carlo standard errors (√(0.05 · 0.95 / 1000) ≈ 0.007)
    expect(alwaysValidRejected / experiments).toBeLessThanOrEqual(0.05 + 0.021);
  });
});

describe('coverage of a ratio metric', () => {
  it('the fixed-horizon interval of a size-return rate per line covers the true lift at least 93% of the time', () => {
    const random = mulberry32(7);
    /** Units that buy 1 to 4 lines 40% of the time; each shopper returns each line with her own propensity, mean `rate`. */
    const draw = (n: number, rate: number): Unit[] =>
      Array.from({ length: n }, () => {
        if (random() >= 0.4) return { a: 0, b: 0 };
        const lines = 1 + Math.floor(random() * 4);
        const propensity = rate * 2 * random();
        let returned = 0;
        for (let l = 0; l < lines; l++) if (random() < propensity) returned++;
        return { a: returned, b: lines };
      });
    const simulations = 600;
    let covered = 0;
    let coveredRelative = 0;
    for (let s = 0; s < simulations; s++) {
      const comparison = firstComparison(analyse([arm('control', draw(1000, 0.2)), arm('treatment', draw(1000, 0.15))], 2000));
      const lift = absolute(comparison);
      const relative = comparison.plain.relative;
      if (lift.fixedHorizon.low <= -0.05 && -0.05 <= lift.fixedHorizon.high) covered++;
      if (relative && relative.fixedHorizon.low <= -0.25 && -0.25 <= relative.fixedHorizon.high) coveredRelative++;
    }
    // observed with this seed: 0.948 absolute, 0.950 relative
    expect(covered / simulations).toBeGreaterThanOrEqual(0.93);
    expect(coveredRelative / simulations).toBeGreaterThanOrEqual(0.93);
  });
});

describe('CUPED', () => {
  /** The CUPED estimates by brute force over units: L per arm, θ pooled within arms, R − θ (x̄_arm − x̄_all). */
  function bruteForceCuped(arms: readonly (readonly Unit[])[]) {
    const stats = arms.map((units) => {
      const n = units.length;
      const rate = units.reduce((s, u) => s + u.a, 0) / units.reduce((s, u) => s + u.b, 0);
      const meanB = units.reduce((s, u) => s + u.b, 0) / n;
      const meanX = units.reduce((s, u) => s + (u.x ?? 0), 0) / n;
      const l = units.map((u) => (u.a - rate * u.b) / meanB);
      const dx = units.map((u) => (u.x ?? 0) - meanX);
      return { n, rate, meanX, l, dx };
    });
    const sLx = stats.reduce((s, a) => s + a.l.reduce((t, v, i) => t + v * a.dx[i], 0), 0);
    const sxx = stats.reduce((s, a) => s + a.dx.reduce((t, v) => t + v * v, 0), 0);
    const theta = sLx / sxx;
    const meanAll = stats.reduce((s, a) => s + a.meanX * a.n, 0) / stats.reduce((s, a) => s + a.n, 0);
    return stats.map((a) => ({
      theta,
      rate: a.rate - theta * (a.meanX - meanAll),
      variance: a.l.reduce((s, v, i) => s + (v - theta * a.dx[i]) ** 2, 0) / (a.n - 1) / a.n,
    }));
  }

  it('matches the brute-force adjustment on any units', () => {
    fc.assert(
      fc.property(unitsArb, unitsArb, unitsArb, (first, second, third) => {
        const arms = [first, second, third];
        const expected = bruteForceCuped(arms);
        fc.pre(Number.isFinite(expected[0].theta));
        const result = analyse([arm('c', first), arm('t', second), arm('u', third)], 1000).metrics.metric;
        expect(result.cupedSlope).toBeCloseTo(expected[0].theta, 9);
        result.arms.forEach((estimate, i) => {
          expect(estimate.cuped.rate).toBeCloseTo(expected[i].rate, 9);
          expect(estimate.cuped.standardError ?? NaN).toBeCloseTo(Math.sqrt(expected[i].variance), 9);
        });
      }),
    );
  });

  it('is plain, with no reduction, when the covariate does not vary within arms', () => {
    const random = mulberry32(3);
    const units = (x: number) => Array.from({ length: 300 }, () => ({ a: random() < 0.3 ? 1 : 0, b: 1, x }));
    for (const [cx, tx] of [
      [0, 0],
      [2, 2],
      [1, 3],
      [0.1, 0.1],
    ]) {
      const result = analyse([arm('control', units(cx)), arm('treatment', units(tx))], 600).metrics.metric;
      expect(result.cupedSlope).toBe(0);
      for (const estimate of result.arms) expect(estimate.cuped).toEqual(estimate.plain);
      expect(result.comparisons[0].cuped).toEqual(result.comparisons[0].plain);
      expect(result.comparisons[0].varianceReduction).toBe(0);
    }
  });

  it('reduces the variance when past purchases predict conversion, and leaves the lift unbiased', () => {
    const random = mulberry32(42);
    /** Past purchases 0 to 5; conversion 2% plus 19 points per past purchase, plus `effect`. */
    const draw = (n: number, effect: number): Unit[] =>
      Array.from({ length: n }, () => {
        const x = Math.floor(random() * 6);
        return { a: random() < 0.02 + 0.19 * x + effect ? 1 : 0, b: 1, x };
      });
    const simulations = 400;
    const plain: number[] = [];
    const cuped: number[] = [];
    const reductions: number[] = [];
    let cupedCovered = 0;
    for (let s = 0; s < simulations; s++) {
      const comparison = firstComparison(analyse([arm('control', draw(1000, 0)), arm('treatment', draw(1000, 0.02))], 2000));
      const adjusted = absolute(comparison, 'cuped');
      plain.push(absolute(comparison).estimate);
      cuped.push(adjusted.estimate);
      reductions.push(comparison.varianceReduction ?? NaN);
      if (adjusted.fixedHorizon.low <= 0.02 && 0.02 <= adjusted.fixedHorizon.high) cupedCovered++;
    }
    const mean = (values: readonly number[]) => values.reduce((s, v) => s + v, 0) / values.length;
    const variance = (values: readonly number[]) => values.reduce((s, v) => s + (v - mean(values)) ** 2, 0) / (values.length - 1);
    // the share of the conversion's variance past purchases explain, Cov(a, x)² / (Var(a) Var(x)) with Var(x) = 35/12,
    // Cov(a, x) = 0.19 · 35/12 and Var(a) = 0.495 · 0.505 (control) or 0.515 · 0.485: 0.42 in both arms
    // observed with this seed: claimed 0.421, between experiments 0.395, bias −0.0002 (Monte Carlo error 0.0009), coverage 0.948
    expect(mean(reductions)).toBeGreaterThan(0.38);
    expect(mean(reductions)).toBeLessThan(0.46);
    // the reduction is real: the adjusted lift varies that much less between experiments (Monte Carlo error ≈ 0.04)
    expect(1 - variance(cuped) / variance(plain)).toBeGreaterThan(0.3);
    expect(Math.abs(mean(cuped) - 0.02)).toBeLessThan(3 * Math.sqrt(variance(cuped) / simulations));
    expect(cupedCovered / simulations).toBeGreaterThanOrEqual(0.93);
  });
});

describe('the sample-ratio-mismatch check', () => {
  it('has the p-values of the chi-square tables at 1, 2 and 3 degrees of freedom', () => {
    // χ² = 98² · 2 / 5000 = 3.8416 (table: 3.841 at 0.05)
    const one = sampleRatioCheck([5098, 4902], [0.5, 0.5]);
    expect(one.chiSquare).toBeCloseTo(3.8416, 9);
    expect(one.p).toBeCloseTo(0.05, 4);
    // (6² + 176² + 170²) / 10000 = 5.9912 (table: 5.991)
    const two = sampleRatioCheck([10_006, 9824, 10_170], [1, 1, 1]);
    expect(two.chiSquare).toBeCloseTo(5.9912, 9);
    expect(two.p).toBeCloseTo(0.05, 4);
    // (25² + 145² + 97² + 217²) / 10000 = 7.8148 (table: 7.815)
    const three = sampleRatioCheck([10_025, 9855, 9903, 10_217], [0.25, 0.25, 0.25, 0.25]);
    expect(three.chiSquare).toBeCloseTo(7.8148, 9);
    expect(three.p).toBeCloseTo(0.05, 4);
    // uneven shares: 2132 / 7868 against 20% / 80% is χ² = 132² / 2000 + 132² / 8000 = 10.89, p = 2 · (1 − Φ(3.3))
    const uneven = sampleRatioCheck([2132, 7868], [0.2, 0.8]);
    expect(uneven.chiSquare).toBeCloseTo(10.89, 9);
    expect(uneven.p).toBeCloseTo(2 * 0.00048342, 7);
    expect(uneven.mismatch).toBe(true);
    expect(sampleRatioCheck([2000, 8000], [20, 80])).toEqual({ chiSquare: 0, p: 1, mismatch: false });
  });

  it('flags 5200 / 4800 of a 50/50 split at 10,000 units, not 5050 / 4950', () => {
    const skewed = sampleRatioCheck([5200, 4800], [0.5, 0.5]);
    expect(skewed.chiSquare).toBeCloseTo(16, 9);
    expect(skewed.p).toBeCloseTo(6.334e-5, 7);
    expect(skewed.mismatch).toBe(true);
    const fine = sampleRatioCheck([5050, 4950], [0.5, 0.5]);
    expect(fine.p).toBeCloseTo(0.3173, 4);
    expect(fine.mismatch).toBe(false);
  });

  it('does not flag an experiment without units, and refuses counts that do not match the shares', () => {
    expect(sampleRatioCheck([0, 0, 0], [0.2, 0.3, 0.5])).toEqual({ chiSquare: 0, p: 1, mismatch: false });
    expect(() => sampleRatioCheck([10, 10], [0.2, 0.3, 0.5])).toThrow(RangeError);
    expect(() => sampleRatioCheck([10, 10, 10, 10, 10], [1, 1, 1, 1, 1])).toThrow(RangeError);
    expect(() => sampleRatioCheck([10, 10], [1, 0])).toThrow(RangeError);
  });
});

describe('the sample-size planner', () => {
  it('needs about 3,841 shoppers per arm to see 10% → 12% conversion (α 0.05, power 0.8)', () => {
    const plan = planSampleSize({ baseline: 0.1, minimumEffect: 0.02, shares: [0.5, 0.5], control: 0 });
    // (1.959964 + 0.841621)² · (0.09 + 0.1056) / 0.0004 = 3838.1; R's power.prop.test(p1 = 0.1, p2 = 0.12,
    // power = 0.8), with the null's pooled variance, says 3840.8
    expect(plan.unitsPerArm).toEqual([3839, 3839]);
    expect(plan.totalUnits).toBe(7678);
    expect(Math.abs(plan.unitsPerArm[0] - 3841) / 3841).toBeLessThan(0.001);
    // the effect's sign does not matter beyond the rates it implies: 12% → 10% is the same pair of rates
    expect(planSampleSize({ baseline: 0.12, minimumEffect: -0.02, shares: [50, 50], control: 0 }).unitsPerArm).toEqual([3839, 3839]);
  });

  it('gives every arm its share of the total the most demanding comparison needs', () => {
    const plan = planSampleSize({ baseline: 0.1, minimumEffect: 0.02, shares: [0.5, 0.25, 0.25], control: 0 });
    // the pair control (½) / treatment (¼): N = 7.84888 · (0.09 / 0.5 + 0.1056 / 0.25) / 0.0004 = 11,810.6
    const z = 1.959963984540054 + 0.8416212335729143;
    const total = (z * z * (0.09 / 0.5 + 0.1056 / 0.25)) / 0.0004;
    expect(plan.unitsPerArm).toEqual([Math.ceil(total / 2), Math.ceil(total / 4), Math.ceil(total / 4)]);
    expect(plan.totalUnits).toBe(plan.unitsPerArm.reduce((s, n) => s + n, 0));
  });

  it('plans a rate per line in lines, then units, and refuses what cannot be planned', () => {
    const perUnit = planSampleSize({ baseline: 0.2, minimumEffect: -0.05, shares: [1, 1], control: 0 });
    const perLine = planSampleSize({
      baseline: 0.2,
      minimumEffect: -0.05,
      shares: [1, 1],
      control: 0,
      perLine: { purchaseRate: 0.3, linesPerPurchaser: 2 },
    });
    // 7.848879 · (0.16 + 0.1275) / 0.0025 = 902.6 lines per arm; at 0.6 lines per exposed unit, 1504.4 units
    expect(perUnit.unitsPerArm).toEqual([903, 903]);
    expect(perLine.unitsPerArm).toEqual([1505, 1505]);
    const clustered = planSampleSize({
      baseline: 0.2,
      minimumEffect: -0.05,
      shares: [1, 1],
      control: 0,
      perLine: { purchaseRate: 0.3, linesPerPurchaser: 2, designEffect: 1.5 },
    });
    expect(Math.abs(clustered.unitsPerArm[0] - 1.5 * perLine.unitsPerArm[0])).toBeLessThan(2);
    const bad: SampleSizeInput[] = [
      { baseline: 0, minimumEffect: 0.01, shares: [1, 1], control: 0 },
      { baseline: 0.1, minimumEffect: 0, shares: [1, 1], control: 0 },
      { baseline: 0.1, minimumEffect: -0.2, shares: [1, 1], control: 0 },
      { baseline: 0.1, minimumEffect: 0.01, shares: [1], control: 0 },
      { baseline: 0.1, minimumEffect: 0.01, shares: [1, 1], control: 2 },
      { baseline: 0.1, minimumEffect: 0.01, shares: [1, 1], control: 0, perLine: { purchaseRate: 0, linesPerPurchaser: 2 } },
    ];
    for (const input of bad) expect(() => planSampleSize(input)).toThrow(RangeError);
  });

  it('delivers its power: at the planned size the fixed-horizon test detects the effect about 80% of the time', () => {
    const random = mulberry32(11);
    // a size-return rate per line, 20% → 15%: shoppers buy 1 to 3 lines 30% of the time (2 on average), lines independent
    const plan = planSampleSize({
      baseline: 0.2,
      minimumEffect: -0.05,
      shares: [1, 1],
      control: 0,
      perLine: { purchaseRate: 0.3, linesPerPurchaser: 2 },
    });
    const draw = (n: number, rate: number): Unit[] =>
      Array.from({ length: n }, () => {
        if (random() >= 0.3) return { a: 0, b: 0 };
        const lines = 1 + Math.floor(random() * 3);
        let returned = 0;
        for (let l = 0; l < lines; l++) if (random() < rate) returned++;
        return { a: returned, b: lines };
      });
    const simulations = 600;
    let detected = 0;
    for (let s = 0; s < simulations; s++) {
      const result = analyse(
        [arm('control', draw(plan.unitsPerArm[0], 0.2)), arm('treatment', draw(plan.unitsPerArm[1], 0.15))],
        plan.totalUnits,
      );
      expect(result.plannedSizeReached).toBe(true);
      if (absolute(firstComparison(result)).fixedHorizon.high < 0) detected++;
    }
    // observed with this seed: 0.818 at 1505 units per arm; Monte Carlo error ≈ 0.016
    expect(detected / simulations).toBeGreaterThan(0.75);
    expect(detected / simulations).toBeLessThan(0.85);
  });
});
