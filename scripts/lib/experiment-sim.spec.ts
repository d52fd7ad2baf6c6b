import { describe, expect, it } from '@jest/globals';
import { behave, drawShopper, generator, priorPurchases, trueRates } from './experiment-sim.js';

describe('simulated shoppers of an experiment', () => {
  it('are the same for the same seed', () => {
    const draw = (seed: number) => {
      const random = generator(seed);
      return Array.from({ length: 40 }, () => behave(random, drawShopper(random), { conversion: 0.3, sizeReturn: 0.2 }));
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
  });

  it('buy and return at the rates their arm says, over many shoppers', () => {
    const random = generator(11);
    const truth = { conversion: 0.3, sizeReturn: 0.2 };
    let buyers = 0;
    let lines = 0;
    let returned = 0;
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      const bought = behave(random, drawShopper(random), truth);
      if (bought.length) buyers++;
      lines += bought.length;
      returned += bought.filter(Boolean).length;
    }
    const rates = trueRates(truth);
    // within five standard errors of the draws (lines of one shopper share her habit: a little wider)
    expect(Math.abs(buyers / n - rates.conversion)).toBeLessThan(5 * Math.sqrt(0.21 / n));
    expect(Math.abs(returned / lines - rates.sizeReturn)).toBeLessThan(7 * Math.sqrt(0.16 / lines));
    // what the report scores against is near the arm's stated rates
    expect(Math.abs(rates.conversion - 0.3)).toBeLessThan(0.01);
    expect(Math.abs(rates.sizeReturn - 0.2)).toBeLessThan(0.01);
  });

  it('have earlier purchases that track how keen a buyer they are (what CUPED reads)', () => {
    const random = generator(5);
    const keen = Array.from({ length: 20_000 }, () => drawShopper(random));
    const prior = keen.map((s) => priorPurchases(random, s));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const above = prior.filter((_, i) => keen[i].keenness > 0);
    const below = prior.filter((_, i) => keen[i].keenness <= 0);
    expect(mean(above)).toBeGreaterThan(2 * mean(below));
  });
});
