import fc from 'fast-check';
import { describe, expect, it } from '@jest/globals';
import { MODEL_VERSION, recommend } from './recommend.js';
import { bestSize } from './tailor.js';
import { bodyChart, waistFromM } from '../../test/support/charts.js';
import { InsufficientAnswersError, type Chart, type RecommendInput, type Shopper } from './types.js';

/** Hip ranges 2 cm above the chest's. */
const tops = bodyChart(
  ['chest', 'waist', 'hip'],
  (
    [
      ['XS', 80, 87, 64, 72],
      ['S', 87, 94, 72, 80],
      ['M', 94, 102, 80, 88],
      ['L', 102, 110, 88, 97],
      ['XL', 110, 118, 97, 107],
      ['XXL', 118, 128, 107, 119],
    ] as const
  ).map(([label, c0, c1, w0, w1]) => [label, c0, c1, w0, w1, c0 + 2, c1 + 2] as const),
);

const input = (shopper: Partial<Shopper>, extra: Partial<RecommendInput> = {}): RecommendInput => ({
  chart: tops,
  zoneWeights: { chest: 1, waist: 0.5 },
  fitAdjustment: 'true_to_size',
  ...extra,
  shopper: { measured: {}, ...shopper },
});

const total = (r: ReturnType<typeof recommend>) => r.confidence + r.alternatives.reduce((s, a) => s + a.confidence, 0);

const bottoms = bodyChart(
  ['waist', 'hip'],
  [
    ['XS', 62, 70, 84, 91],
    ['S', 70, 78, 91, 98],
    ['M', 78, 86, 98, 105],
    ['L', 86, 95, 105, 112],
    ['XL', 95, 105, 112, 120],
    ['XXL', 105, 117, 120, 130],
  ],
);

describe('recommend', () => {
  it('recommends from height and weight with a calibrated-looking answer', () => {
    const r = recommend(input({ heightCm: 178, weightKg: 80, age: 30, sex: 'male' }));
    expect(['M', 'L']).toContain(r.sizeLabel);
    expect(r.confidence).toBeGreaterThan(0.3);
    expect(r.confidence).toBeLessThanOrEqual(1);
    expect(r.measurements.chest).toMatchObject({ source: 'estimated' });
    expect(r.measurements.chest?.valueCm).toBeGreaterThan(95);
    expect(r.measurements.chest?.valueCm).toBeLessThan(108);
    expect(r.measurements.chest?.sdCm).toBeGreaterThan(1);
    expect(Object.keys(r.measurements).sort()).toEqual(['chest', 'waist']);
    // the fit covers every zone the chosen size defines, the unused hip included
    expect(Object.keys(r.fit).sort()).toEqual(['chest', 'hip', 'waist']);
    expect(r.modelVersion).toBe(MODEL_VERSION);
    expect(MODEL_VERSION).toMatch(/^civilian-\d{8}-[0-9a-f]{8}$/);
  });

  it('gives probabilities that sum to about 1, most likely first, each rounded to 3 decimals', () => {
    for (const shopper of [
      { heightCm: 165, weightKg: 62, sex: 'female' as const },
      { heightCm: 185, weightKg: 95 },
      { heightCm: 160, weightKg: 120, age: 70 },
      { measured: { chest: 94, waist: 80 } },
    ]) {
      const r = recommend(input(shopper));
      expect(total(r)).toBeGreaterThan(0.98);
      expect(total(r)).toBeLessThan(1.005);
      const ps = r.alternatives.map((a) => a.confidence);
      expect([...ps].sort((a, b) => b - a)).toEqual(ps);
      for (const p of [r.confidence, ...ps]) {
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(Math.round(p * 1000) / 1000).toBe(p);
      }
      expect(ps.every((p) => p >= 0.005)).toBe(true);
      expect(r.alternatives.map((a) => a.sizeLabel)).not.toContain(r.sizeLabel);
    }
  });

  it('is deterministic: the same input gives the same answer, bit for bit', () => {
    const shopper = { heightCm: 171, weightKg: 77.5, measured: { waist: 88 } };
    expect(recommend(input(shopper))).toStrictEqual(recommend(input(shopper)));
    expect(JSON.stringify(recommend(input(shopper)))).toBe(JSON.stringify(recommend(input(shopper))));
  });

  it('with every used zone measured, gives exactly the chart answer, without height or weight', () => {
    for (let chest = 78; chest <= 132; chest += 1.5) {
      for (const waist of [60, 72, 72.01, 80, 85, 88, 96.9, 97, 110, 125]) {
        const r = recommend(input({ measured: { chest, waist } }));
        const expected = bestSize({ chart: tops, zoneWeights: { chest: 1, waist: 0.5 }, fitAdjustment: 'true_to_size' }, { chest, waist });
        expect(r.sizeLabel).toBe(expected);
        expect(r.measurements).toEqual({
          chest: { valueCm: chest, source: 'answered', sdCm: 1.5 },
          waist: { valueCm: waist === 72.01 ? 72 : waist, source: 'answered', sdCm: 1.5 },
        });
      }
    }
  });

  it('measured on a boundary: the chart answer, with a confidence that says it is a coin toss', () => {
    const r = recommend(input({ measured: { chest: 102, waist: 84 } }));
    expect(r.sizeLabel).toBe('M');
    expect(r.confidence).toBeGreaterThan(0.4);
    expect(r.confidence).toBeLessThan(0.6);
    expect(r.alternatives[0].sizeLabel).toBe('L');
  });

  it('refuses only when nothing usable was given', () => {
    const refuse = (shopper: Partial<Shopper>) => {
      try {
        recommend(input(shopper));
      } catch (e) {
        expect(e).toBeInstanceOf(InsufficientAnswersError);
        return (e as InsufficientAnswersError).fields.map((f) => f.field);
      }
      throw new Error('expected InsufficientAnswersError');
    };
    expect(refuse({})).toEqual(['height', 'weight']);
    // age, sex and a size this chart does not have tell nothing of the body's size
    expect(refuse({ age: 30, sex: 'female', fitPreference: 'looser', usualSize: '38' })).toEqual(['height', 'weight']);
    for (const enough of [{ heightCm: 170 }, { weightKg: 70 }, { measured: { chest: 100 } }, { usualSize: 'm' }]) {
      expect(() => recommend(input(enough))).not.toThrow();
    }
    // answering every used zone is enough; an unused zone does not matter
    expect(() => recommend(input({ measured: { chest: 100, waist: 85 } }))).not.toThrow();
  });

  it('answers from part of the body with the confidence that part earns', () => {
    const body = { heightCm: 165, weightKg: 62, age: 35, sex: 'female' } as const;
    const full = recommend(input(body));
    const weightOnly = recommend(input({ weightKg: 62, age: 35, sex: 'female' }));
    const heightOnly = recommend(input({ heightCm: 165, age: 35, sex: 'female' }));
    const at = (r: ReturnType<typeof recommend>) => tops.sizes.findIndex((s) => s.label === r.sizeLabel);
    expect(Math.abs(at(weightOnly) - at(full))).toBeLessThanOrEqual(1);
    for (const partial of [weightOnly, heightOnly]) {
      expect(total(partial)).toBeCloseTo(1, 2);
      // the size the full body gets stays among the answers
      expect([partial.sizeLabel, ...partial.alternatives.map((a) => a.sizeLabel)]).toContain(full.sizeLabel);
    }
    // height says less of a chest than weight does, and both less than the two together
    expect(heightOnly.confidence).toBeLessThan(full.confidence);
    expect(weightOnly.confidence).toBeLessThan(full.confidence);
    expect(heightOnly.measurements.chest!.sdCm).toBeGreaterThan(weightOnly.measurements.chest!.sdCm);
    expect(weightOnly.measurements.chest!.sdCm).toBeGreaterThan(full.measurements.chest!.sdCm);
  });

  it('from a measured chest alone, estimates the waist from what bodies with that chest are like', () => {
    const r = recommend(input({ measured: { chest: 98 }, sex: 'female' }));
    expect(r.measurements.chest).toEqual({ valueCm: 98, source: 'answered', sdCm: 1.5 });
    expect(r.measurements.waist).toMatchObject({ source: 'estimated' });
    expect(r.measurements.waist!.valueCm).toBeGreaterThan(75);
    expect(r.measurements.waist!.valueCm).toBeLessThan(100);
    expect(['M', 'L']).toContain(r.sizeLabel);
    // a bigger chest never gets a smaller size
    let previous = 0;
    for (let chest = 80; chest <= 126; chest += 0.5) {
      const at = tops.sizes.findIndex((s) => s.label === recommend(input({ measured: { chest } })).sizeLabel);
      expect(at).toBeGreaterThanOrEqual(previous);
      previous = at;
    }
  });

  it('from the size she usually wears alone: that size, as sure as a usual size is', () => {
    const r = recommend(input({ usualSize: 'L', sex: 'female' }));
    expect(r.sizeLabel).toBe('L');
    expect(r.confidence).toBeGreaterThan(0.3);
    expect(r.confidence).toBeLessThan(0.6);
    expect(
      r.alternatives
        .map((a) => a.sizeLabel)
        .slice(0, 2)
        .sort(),
    ).toEqual(['M', 'XL']);
    expect(total(r)).toBeCloseTo(1, 2);
  });

  it('reads a measurement taken otherwise than with a tape with its own spread', () => {
    const tape = recommend(input({ measured: { chest: 101, waist: 86 } }));
    const braSize = recommend(input({ measured: { chest: 101, waist: 86 }, measuredSdCm: { chest: 3.5 } }));
    expect(braSize.measurements.chest).toEqual({ valueCm: 101, source: 'answered', sdCm: 3.5 });
    expect(braSize.confidence).toBeLessThan(tape.confidence);
    // not the chart's answer on a point it does not know: the likeliest size
    const probabilities = [braSize, ...braSize.alternatives.map((a) => ({ ...a }))].map((a) => a.confidence);
    expect(braSize.confidence).toBe(Math.max(...probabilities));
  });

  it('fit verdicts: unestimable unused zones are left out; answered zones use the answer', () => {
    const r = recommend(input({ measured: { chest: 100, waist: 85 } }));
    expect(r.sizeLabel).toBe('M');
    expect(r.fit).toEqual({ chest: 'regular', waist: 'regular' });
    const snug = recommend(input({ measured: { chest: 101.5, waist: 87.5 } }));
    expect(snug.fit).toEqual({ chest: 'snug', waist: 'snug' });
  });

  it('never takes a size that does not state a weighted zone as containing the body there, and judges that zone', () => {
    // S states no waist: it cannot be said to hold one
    const on = (shopper: Partial<Shopper>) => recommend(input(shopper, { chart: waistFromM, zoneWeights: { chest: 1, waist: 1 } }));
    const measured = (waist: number) => on({ measured: { chest: 90, waist } });
    expect(measured(80)).toMatchObject({ sizeLabel: 'M', fit: { chest: 'loose', waist: 'loose' } });
    // the L is too large at the chest, but S and M hold no such waist
    expect(measured(90)).toMatchObject({ sizeLabel: 'L', fit: { chest: 'too_large', waist: 'regular' } });
    expect(measured(99)).toMatchObject({ sizeLabel: 'L', fit: { chest: 'too_large', waist: 'too_small' } });
    for (const r of [measured(80), measured(90), measured(99)]) {
      expect(r.alternatives.map((a) => a.sizeLabel)).not.toContain('S');
      expect(r.confidence).toBeGreaterThan(0.9);
    }
    // estimated: no draw lands on S, and the chosen size is judged on the waist too
    const estimated = on({ heightCm: 165, weightKg: 55, sex: 'female' });
    expect(estimated.sizeLabel).not.toBe('S');
    expect(estimated.alternatives.map((a) => a.sizeLabel)).not.toContain('S');
    expect(Object.keys(estimated.fit).sort()).toEqual(['chest', 'waist']);
    // the waist does not matter: S holds the chest, and is judged on it alone
    const chestOnly = recommend(input({ measured: { chest: 90, waist: 99 } }, { chart: waistFromM, zoneWeights: { chest: 1 } }));
    expect(chestOnly).toMatchObject({ sizeLabel: 'S', fit: { chest: 'regular' } });
    expect(chestOnly.fit.waist).toBeUndefined();
  });

  it('uses an answered zone to condition the estimated ones', () => {
    const base = { heightCm: 175, weightKg: 80, sex: 'male' as const };
    const plain = recommend(input(base));
    const bigChest = recommend(input({ ...base, measured: { chest: 112 } }));
    expect(bigChest.measurements.waist!.valueCm).toBeGreaterThan(plain.measurements.waist!.valueCm);
    // the spread is log-normal (proportional to the value): relative to the estimate, the answer narrows it
    const relativeSd = (r: typeof plain) => r.measurements.waist!.sdCm / r.measurements.waist!.valueCm;
    expect(relativeSd(bigChest)).toBeLessThan(relativeSd(plain));
  });

  it('mixes the sexes when the sex is unknown, by height and weight', () => {
    const hips = { zoneWeights: { hip: 1 } };
    const f = recommend(input({ heightCm: 160, weightKg: 58, sex: 'female' }, hips)).measurements.hip!.valueCm;
    const m = recommend(input({ heightCm: 160, weightKg: 58, sex: 'male' }, hips)).measurements.hip!.valueCm;
    const unknown = recommend(input({ heightCm: 160, weightKg: 58 }, hips)).measurements.hip!.valueCm;
    expect(f).toBeGreaterThan(m);
    // a short light person is most likely female
    expect(unknown).toBeGreaterThan((f + m) / 2);
    expect(unknown).toBeLessThanOrEqual(f);
  });

  it('clamps ages outside the fitted range and accepts a missing age', () => {
    const at = (age?: number) => recommend(input({ heightCm: 170, weightKg: 70, sex: 'female', age }));
    // every zone clamps into the ages it was fitted on: NHANES adults 18–80, ANSUR II soldiers 17–58
    expect(at(13)).toEqual(at(17));
    expect(at(95)).toEqual(at(80));
    expect(at(undefined).sizeLabel).toBeDefined();
  });

  it('stays finite at the plausibility limits', () => {
    for (const [heightCm, weightKg] of [
      [100, 30],
      [100, 250],
      [230, 30],
      [230, 250],
    ]) {
      const r = recommend(input({ heightCm, weightKg }));
      expect(Number.isFinite(r.confidence)).toBe(true);
      expect(Number.isFinite(r.measurements.chest!.valueCm)).toBe(true);
    }
  });

  it('runs_small recommends a bigger size, runs_large a smaller one', () => {
    const shopper = { heightCm: 175, weightKg: 75, sex: 'male' as const, age: 35 };
    const index = (label: string) => tops.sizes.findIndex((s) => s.label === label);
    const normal = index(recommend(input(shopper)).sizeLabel);
    expect(index(recommend(input(shopper, { fitAdjustment: 'runs_small' })).sizeLabel)).toBeGreaterThanOrEqual(normal);
    expect(index(recommend(input(shopper, { fitAdjustment: 'runs_large' })).sizeLabel)).toBeLessThanOrEqual(normal);
  });

  it('never recommends a smaller size to a bigger body on retail-like charts (sweeps, sex given)', () => {
    const cases: [Chart, RecommendInput['zoneWeights']][] = [
      [tops, { chest: 1, waist: 0.5 }],
      [bottoms, { waist: 1, hip: 1 }],
    ];
    const index = (chart: Chart, r: ReturnType<typeof recommend>) => chart.sizes.findIndex((s) => s.label === r.sizeLabel);
    for (const [chart, zoneWeights] of cases) {
      const at = (shopper: Partial<Shopper>) => index(chart, recommend(input(shopper, { chart, zoneWeights })));
      for (const sex of ['female', 'male'] as const) {
        for (const heightCm of [155, 170, 185, 200]) {
          let last = -1;
          for (let weightKg = 45; weightKg <= 140; weightKg += 2.5) {
            const now = at({ heightCm, weightKg, sex, age: 30 });
            expect(now).toBeGreaterThanOrEqual(last);
            last = now;
          }
        }
        for (const bmi of [19, 24, 29, 34]) {
          let last = -1;
          for (let heightCm = 150; heightCm <= 200; heightCm += 2.5) {
            const now = at({ heightCm, weightKg: bmi * (heightCm / 100) ** 2, sex });
            expect(now).toBeGreaterThanOrEqual(last);
            last = now;
          }
        }
        const zone = Object.keys(zoneWeights)[0] as 'chest' | 'waist';
        for (const [heightCm, weightKg] of [
          [160, 55],
          [175, 80],
          [185, 105],
        ]) {
          let last = -1;
          for (let v = 65; v <= 130; v += 1.5) {
            const now = at({ heightCm, weightKg, sex, measured: { [zone]: v } });
            expect(now).toBeGreaterThanOrEqual(last);
            last = now;
          }
        }
      }
    }
  });

  it('never recommends a smaller size to a heavier shopper on retail-like charts (property, sex given)', () => {
    const cases: [Chart, RecommendInput['zoneWeights']][] = [
      [tops, { chest: 1, waist: 0.5 }],
      [bottoms, { waist: 1, hip: 1 }],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...cases),
        fc.constantFrom('female' as const, 'male' as const),
        fc.double({ min: 150, max: 200, noNaN: true }),
        fc.double({ min: 45, max: 140, noNaN: true }),
        fc.double({ min: 0.1, max: 30, noNaN: true }),
        fc.option(fc.integer({ min: 18, max: 70 }), { nil: undefined }),
        ([chart, zoneWeights], sex, heightCm, weightKg, more, age) => {
          const at = (weight: number) =>
            chart.sizes.findIndex(
              (size) => size.label === recommend(input({ heightCm, weightKg: weight, sex, age }, { chart, zoneWeights })).sizeLabel,
            );
          expect(at(Math.min(250, weightKg + more))).toBeGreaterThanOrEqual(at(weightKg));
        },
      ),
      { numRuns: 300 },
    );
  });
});
