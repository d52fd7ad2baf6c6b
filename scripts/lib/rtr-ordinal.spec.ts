import { describe, expect, it } from '@jest/globals';
import type { Verdict } from './rtr.js';
import { fitOrdinal, type GapRow, type OrdinalLink, ordinalProbabilities } from './rtr-ordinal.js';

/** A fixed linear congruential sequence in [0, 1): the synthetic data is the same on every run. */
function uniform(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function synthetic(link: OrdinalLink, n: number): { rows: GapRow[]; verdicts: Verdict[] } {
  const random = uniform(7);
  const rows: GapRow[] = [];
  const verdicts: Verdict[] = [];
  for (let i = 0; i < n; i++) {
    const row = { gap: random() * 4 - 2, offset: random() - 0.5, offsetSd: random() * 0.3 };
    const [small, fit] = ordinalProbabilities(link, row);
    const u = random();
    rows.push(row);
    verdicts.push(u < small ? 'small' : u < small + fit ? 'fit' : 'large');
  }
  return { rows, verdicts };
}

describe('ordinal link', () => {
  it('gives probabilities that sum to 1 and move towards "small" as the gap grows', () => {
    const link = { gapSlope: 1.2, offsetSlope: 3, cutLarge: -1.5, cutSmall: 1.5 };
    const p = ordinalProbabilities(link, { gap: 0.3, offset: 0.1, offsetSd: 0.2 });
    expect(p[0] + p[1] + p[2]).toBeCloseTo(1, 12);
    expect(ordinalProbabilities(link, { gap: 1, offset: 0, offsetSd: 0 })[0]).toBeGreaterThan(
      ordinalProbabilities(link, { gap: 0, offset: 0, offsetSd: 0 })[0],
    );
    // an uncertain offset flattens: less sure of "fit" at the centre
    expect(ordinalProbabilities(link, { gap: 0, offset: 0, offsetSd: 1 })[1]).toBeLessThan(
      ordinalProbabilities(link, { gap: 0, offset: 0, offsetSd: 0 })[1],
    );
  });

  it('recovers the link that generated the verdicts', () => {
    const truth = { gapSlope: 1.2, offsetSlope: 3, cutLarge: -1.5, cutSmall: 1.5 };
    const { rows, verdicts } = synthetic(truth, 20000);
    const fitted = fitOrdinal(rows, verdicts, true);
    expect(fitted.gapSlope).toBeCloseTo(truth.gapSlope, 1);
    expect(fitted.offsetSlope).toBeGreaterThan(2.5);
    expect(fitted.offsetSlope).toBeLessThan(3.5);
    expect(fitted.cutLarge).toBeCloseTo(truth.cutLarge, 1);
    expect(fitted.cutSmall).toBeCloseTo(truth.cutSmall, 1);
    expect(fitOrdinal(rows, verdicts, false).offsetSlope).toBe(0);
  });
});
