import { describe, expect, it } from '@jest/globals';
import { accuracy, ageBand, bmiClass, ece, leastSquares, mostCommonSize, summarise, type Body, type Scored } from './fit-metrics.js';

const row = (truth: number, predicted: number, probabilities: number[], weight = 1): Scored => ({
  truth,
  predicted,
  confidence: probabilities[predicted],
  probabilities,
  weight,
});

// four people scored by hand: right; one size off; one size off on a coin flip; two sizes off and sure of it
const HAND = [row(0, 0, [0.8, 0.2, 0]), row(1, 0, [0.6, 0.4, 0]), row(2, 1, [0, 0.5, 0.5]), row(2, 0, [0.9, 0.1, 0])];

describe('fit evaluation arithmetic', () => {
  it('scores exact, within one, ECE, Brier and log loss as computed by hand', () => {
    const s = summarise(HAND);
    expect(s.n).toBe(4);
    expect(s.exact).toBeCloseTo(0.25, 12);
    expect(s.withinOne).toBeCloseTo(0.75, 12);
    // one person per bin: (|1 − 0.8| + |0 − 0.6| + |0 − 0.5| + |0 − 0.9|) / 4
    expect(s.ece).toBeCloseTo(0.55, 12);
    expect(s.meanConfidence).toBeCloseTo((0.8 + 0.6 + 0.5 + 0.9) / 4, 12);
    // (0.04 + 0.04) + (0.36 + 0.36) + (0.25 + 0.25) + (0.81 + 0.01 + 1)
    expect(s.brier).toBeCloseTo(3.12 / 4, 12);
    // the true size of the last person was given 0: it counts as 0.001
    expect(s.logLoss).toBeCloseTo(-(Math.log(0.8) + Math.log(0.4) + Math.log(0.5) + Math.log(0.001)) / 4, 12);
  });

  it('weights people by their sample weight, in the calibration bins too', () => {
    const weighted = summarise([HAND[0], { ...HAND[3], weight: 3 }]);
    expect(weighted.exact).toBeCloseTo(0.25, 12);
    expect(weighted.withinOne).toBeCloseTo(0.25, 12);
    // one bin of weight 4 in 0.8–0.9: mean confidence (0.8 + 3 × 0.85) / 4, hit rate 1 / 4
    const e = ece([
      { confidence: 0.8, hit: true, weight: 1 },
      { confidence: 0.85, hit: false, weight: 3 },
    ]);
    expect(e).toBeCloseTo(0.8375 - 0.25, 12);
    expect(
      accuracy([
        { truth: 1, predicted: 1, weight: 2 },
        { truth: 1, predicted: 3, weight: 6 },
      ]),
    ).toEqual({
      exact: 0.25,
      withinOne: 0.25,
    });
  });

  it('is perfectly calibrated when every confidence matches its hit rate', () => {
    // four sure and right; four at 0.5, two of them right
    const rows = [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5].map((confidence, i) => ({ confidence, hit: i < 6, weight: 1 }));
    expect(ece(rows)).toBeCloseTo(0, 12);
  });

  const body = (sex: 'female' | 'male', heightCm: number, weightKg: number, age = 30): Body => ({ sex, heightCm, weightKg, age });

  it('baseline "most common size": the mode of the BMI unit, ties to the smaller size, else the nearest unit', () => {
    // BMI 20 (1.6 m, 51.2 kg): sizes 2, 1, 1, 2 → tie, the smaller; BMI 30: size 3
    const train = [
      { ...body('female', 160, 51.2), size: 2 },
      { ...body('female', 160, 51.3), size: 1 },
      { ...body('female', 160, 51.4), size: 1 },
      { ...body('female', 160, 51.5), size: 2 },
      { ...body('female', 160, 76.8), size: 3 },
    ];
    const predict = mostCommonSize(
      train,
      (b) => b.size,
      (b) => b.sex,
    );
    expect(predict(body('female', 160, 52))).toBe(1);
    expect(predict(body('female', 160, 77))).toBe(3);
    // BMI 24 is 4 units from 20 and 6 from 30
    expect(predict(body('female', 160, 61.5))).toBe(1);
    expect(() => predict(body('male', 160, 52))).toThrow(/no training data/);
  });

  it('baseline "least squares": recovers a linear rule of height, weight, BMI and age exactly', () => {
    const rule = (b: Body) => [10 + 0.5 * b.heightCm + 0.2 * b.weightKg - 0.1 * b.age + b.weightKg / (b.heightCm / 100) ** 2];
    const train = [150, 160, 170, 180, 190, 165, 175].flatMap((h, i) =>
      [50, 70, 90].map((w, j) => body('female', h, w + i, 20 + 7 * i + 3 * j)),
    );
    const predict = leastSquares(train, rule, { withAge: true, bySex: true });
    const someone = body('female', 172, 81, 44);
    expect(predict(someone)[0]).toBeCloseTo(rule(someone)[0], 6);
    expect(() => predict({ ...someone, sex: 'male' })).toThrow(/no training data/);
  });

  it('bands ages and BMI at their documented edges', () => {
    expect(ageBand(body('female', 160, 60, 39.9))).toBe('18–39');
    expect(ageBand(body('female', 160, 60, 40))).toBe('40–59');
    expect(ageBand(body('female', 160, 60, 80))).toBe('60+');
    expect(bmiClass(body('female', 200, 100))).toBe('BMI 25–30');
    expect(bmiClass(body('female', 200, 99.9))).toBe('BMI < 25');
    expect(bmiClass(body('female', 200, 140))).toBe('BMI ≥ 35');
  });
});
