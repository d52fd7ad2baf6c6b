import { describe, expect, it } from '@jest/globals';
import { BODY_MODEL_COEFFICIENTS } from './body-model.coefficients.js';
import { conditioning, predict, sexProbabilities } from './body-model.js';
import { SEXES, ZONES } from './types.js';

describe('body model', () => {
  it('carries its provenance', () => {
    const p = BODY_MODEL_COEFFICIENTS.provenance;
    expect(p.sourceFiles.map((f) => f.name).sort()).toEqual([
      'ANSUR_II_FEMALE_Public.csv',
      'ANSUR_II_MALE_Public.csv',
      'p_demo_bmx_train.csv',
    ]);
    p.sourceFiles.forEach((f) => expect(f.sha256).toMatch(/^[0-9a-f]{64}$/));
    const ansurRows = (sex: 'female' | 'male') => p.rowsUsed[sex].ansurTrain + p.rowsUsed[sex].ansurHeldOut + p.rowsUsed[sex].ansurExcluded;
    expect(ansurRows('female')).toBe(1986);
    expect(ansurRows('male')).toBe(4082);
    expect(p.rowsUsed.female.nhanesAdults + p.rowsUsed.male.nhanesAdults).toBeGreaterThan(5000);
    expect(p.zoneSources.waist).toMatch(/^NHANES/);
    expect(p.zoneSources.chest).toMatch(/^ANSUR II/);
    expect(BODY_MODEL_COEFFICIENTS.modelVersion).toMatch(/^civilian-\d{8}-[0-9a-f]{8}$/);
  });

  it('widens the spread where civilians vary more: the hip with age, not the skeletal lengths', () => {
    const sdOf = (age: number, zone: (typeof ZONES)[number]) => predict('female', 165, 70, age).sd[ZONES.indexOf(zone)];
    expect(sdOf(75, 'hip')).toBeGreaterThan(sdOf(25, 'hip'));
    expect(sdOf(75, 'foot_length')).toBe(sdOf(25, 'foot_length'));
    // the spread never depends on weight (the size distribution stays monotone in it)
    expect(predict('male', 180, 60, 40).sd).toEqual(predict('male', 180, 140, 40).sd);
  });

  it('predicts plausible bodies', () => {
    const cm = (sex: 'female' | 'male', zone: (typeof ZONES)[number]) =>
      Math.exp(predict(sex, sex === 'male' ? 176 : 163, sex === 'male' ? 85 : 68, 30).mean[ZONES.indexOf(zone)]);
    expect(cm('male', 'chest')).toBeGreaterThan(100);
    expect(cm('male', 'chest')).toBeLessThan(112);
    expect(cm('female', 'hip')).toBeGreaterThan(96);
    expect(cm('female', 'hip')).toBeLessThan(108);
    expect(cm('male', 'foot_length')).toBeGreaterThan(25);
    expect(cm('male', 'foot_length')).toBeLessThan(29);
  });

  it('never lets a heavier body get smaller estimates, nor a taller one of the same BMI', () => {
    for (const sex of SEXES) {
      for (const model of [BODY_MODEL_COEFFICIENTS[sex].withAge, BODY_MODEL_COEFFICIENTS[sex].withoutAge]) {
        const h = model.terms.indexOf('logHeightCm');
        const w = model.terms.indexOf('logWeightKg');
        for (const row of model.coefficients) {
          expect(row[w]).toBeGreaterThanOrEqual(0);
          expect(row[h] + 2 * row[w]).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });

  it('conditions with non-negative weights only', () => {
    const model = predict('female', 165, 65, undefined).model;
    for (let mask = 1; mask < 1 << ZONES.length; mask += 37) {
      const c = conditioning(model, mask);
      for (const w of c.weights) for (const v of w) expect(v).toBeGreaterThanOrEqual(0);
      for (const v of c.residualVariance) expect(v).toBeLessThanOrEqual(1 + 1e-9);
    }
  });

  it('tells the sexes apart by height and weight', () => {
    expect(sexProbabilities(190, 95).male).toBeGreaterThan(0.95);
    expect(sexProbabilities(155, 52).female).toBeGreaterThan(0.9);
    const extreme = sexProbabilities(230, 30);
    expect(extreme.female + extreme.male).toBeCloseTo(1, 12);
  });
});
