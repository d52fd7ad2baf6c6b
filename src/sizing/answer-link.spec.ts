import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { addLinkSums, type AnswerFeatures, fitLink, LINK, linkKind, linkProbabilities, linkSumsOf, noLinkSums } from './answer-link.js';

const NOW = new Date('2026-11-01T00:00:00Z');

/** A fixed-seed normal sampler (Box–Muller over a linear congruential generator). */
function normals(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** `n` outcomes of shoppers whose size lies at `truth(x)` plus noise of sd `sd`, summed as the store would. */
function storeOf(n: number, truth: (x: AnswerFeatures) => number, sd: number, withUsual: boolean) {
  const z = normals(7);
  let sums = noLinkSums(withUsual ? 'both' : 'chart');
  for (let i = 0; i < n; i++) {
    const x: AnswerFeatures = { chart: 3 + 1.5 * z(), usual: withUsual ? 3 + 1.5 * z() : null, offset: 0.4 * z() };
    const added = linkSumsOf(x, truth(x) + sd * z(), NOW);
    sums = addLinkSums(sums, added!.sums);
  }
  return sums;
}

describe('the answer link', () => {
  it('learns the weights and the scatter of a store whose shoppers know their size better than their bodies say', () => {
    const truth = (x: AnswerFeatures) => 0.3 + 0.2 * (x.chart as number) + 0.8 * (x.usual as number) + 1.5 * x.offset;
    const link = fitLink('both', storeOf(20_000, truth, 0.6, true), NOW)!;
    expect(link.beta.map((b) => Math.round(b * 10) / 10)).toEqual([0.3, 0.2, 0.8, 1.5]);
    expect(link.sd).toBeCloseTo(0.6, 1);
  });

  it('stays near what the engine assumes on a few outcomes, and answers nothing below the minimum', () => {
    const truth = (x: AnswerFeatures) => 2 + (x.chart as number);
    expect(fitLink('chart', storeOf(LINK.minimum - 1, truth, 0.3, false), NOW)).toBeNull();
    const few = fitLink('chart', storeOf(25, truth, 0.3, false), NOW)!;
    const many = fitLink('chart', storeOf(5_000, truth, 0.3, false), NOW)!;
    // the intercept moves from 0 towards 2 as outcomes come in: about a third of the way at 25 (g = 0.5)
    expect(few.beta[0]).toBeGreaterThan(0.3);
    expect(few.beta[0]).toBeLessThan(1);
    expect(many.beta[0]).toBeCloseTo(2, 1);
    expect(few.sd).toBeGreaterThan(many.sd);
  });

  it('takes an outcome back exactly as it was added, in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ chart: fc.double({ min: -2, max: 12, noNaN: true }), y: fc.integer({ min: 0, max: 10 }) }), {
          minLength: 1,
          maxLength: 30,
        }),
        (outcomes) => {
          const each = outcomes.map((o) => linkSumsOf({ chart: o.chart, usual: null, offset: 0.1 }, o.y, NOW)!.sums);
          const all = each.reduce((a, b) => addLinkSums(a, b), noLinkSums('chart'));
          const back = each.reduceRight((a, b) => addLinkSums(a, b, -1), all);
          for (const v of [...back.xx, ...back.xy, back.yy, back.weight, back.count]) expect(Math.abs(v)).toBeLessThan(1e-6);
        },
      ),
    );
  });

  it('answers a distribution over the sizes, around where the link puts her', () => {
    const link = { kind: 'usual' as const, beta: [0.5, 1, 1], sd: 0.5, evidence: 100 };
    const p = linkProbabilities(link, { chart: null, usual: 2, offset: 0 }, 6);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // 2.5: halfway between the third and fourth sizes
    expect(p[2]).toBeCloseTo(p[3], 6);
    expect(p[2]).toBeGreaterThan(p[1]);
    expect(linkKind({ chart: null, usual: null, offset: 1 })).toBeNull();
  });
});
