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
    const x: AnswerFeatures = {
      mean: 3 + 1.5 * z(),
      variance: 0.2,
      body: true,
      usual: withUsual ? 3 + 1.5 * z() : null,
      offset: 0.4 * z(),
    };
    sums = addLinkSums(sums, linkSumsOf(x, truth(x) + sd * z(), NOW)!.sums);
  }
  return sums;
}

const moments = (p: readonly number[]) => {
  const mean = p.reduce((a, q, s) => a + q * s, 0);
  return { mean, variance: p.reduce((a, q, s) => a + q * (s - mean) ** 2, 0) };
};

describe('the answer link', () => {
  it('learns the weights and the scatter of a store whose shoppers know their size better than their answers say', () => {
    const truth = (x: AnswerFeatures) => 0.3 + 0.2 * x.mean + 0.8 * (x.usual as number) + 1.5 * x.offset;
    const link = fitLink('both', storeOf(20_000, truth, 0.6, true), NOW)!;
    expect(link.beta.map((b) => Math.round(b * 10) / 10)).toEqual([0.3, 0.2, 0.8, 1.5]);
    // 0.36 of scatter where the answers claimed 0.2
    expect(link.extraVariance).toBeCloseTo(0.16, 1);
  });

  it('starts at the answer itself: stays near it on a few outcomes, and answers nothing below the minimum', () => {
    const truth = (x: AnswerFeatures) => 2 + x.mean;
    expect(fitLink('chart', storeOf(LINK.minimum - 1, truth, 0.3, false), NOW)).toBeNull();
    const few = fitLink('chart', storeOf(25, truth, 0.3, false), NOW)!;
    const many = fitLink('chart', storeOf(5_000, truth, 0.3, false), NOW)!;
    // the intercept moves from 0 towards 2 as outcomes come in: about a third of the way at 25 (g = 0.5)
    expect(few.beta[0]).toBeGreaterThan(0.3);
    expect(few.beta[0]).toBeLessThan(1);
    expect(many.beta[0]).toBeCloseTo(2, 1);
    expect(many.beta[1]).toBeCloseTo(1, 1);
    // answers claimed 0.2 and scattered 0.09: narrower
    expect(many.extraVariance).toBeCloseTo(-0.11, 2);
  });

  it('takes an outcome back exactly as it was added, in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ mean: fc.double({ min: -2, max: 12, noNaN: true }), y: fc.integer({ min: 0, max: 10 }) }), {
          minLength: 1,
          maxLength: 30,
        }),
        (outcomes) => {
          const each = outcomes.map(
            (o) => linkSumsOf({ mean: o.mean, variance: 0.5, body: true, usual: null, offset: 0.1 }, o.y, NOW)!.sums,
          );
          const all = each.reduce((a, b) => addLinkSums(a, b), noLinkSums('chart'));
          const back = each.reduceRight((a, b) => addLinkSums(a, b, -1), all);
          for (const v of [...back.xx, ...back.xy, back.yy, back.vv, back.weight, back.count]) expect(Math.abs(v)).toBeLessThan(1e-6);
        },
      ),
    );
  });

  it("moves the engine's answer to the link's mean and brings it to the link's variance, its shape kept", () => {
    const answer = [0.05, 0.15, 0.6, 0.15, 0.05, 0];
    const x = { ...moments(answer), body: true, usual: null, offset: 0 };
    const same = linkProbabilities({ kind: 'chart', beta: [0, 1, 0], extraVariance: 0, evidence: 100 }, x, answer);
    same.forEach((p, s) => expect(p).toBeCloseTo(answer[s], 12));

    const wider = linkProbabilities({ kind: 'chart', beta: [0.5, 1, 0], extraVariance: 0.5, evidence: 100 }, x, answer);
    expect(wider.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(moments(wider).mean).toBeCloseTo(x.mean + 0.5, 1);
    expect(moments(wider).variance).toBeGreaterThan(x.variance + 0.3);

    const narrower = linkProbabilities({ kind: 'chart', beta: [0, 1, 0], extraVariance: -0.3, evidence: 100 }, x, answer);
    expect(narrower.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(moments(narrower).mean).toBeCloseTo(x.mean, 9);
    expect(moments(narrower).variance).toBeLessThan(x.variance);
    expect(narrower[2]).toBeGreaterThan(answer[2]);
  });

  it('tells the kinds of answers apart', () => {
    const x = { mean: 2, variance: 1, offset: 0 };
    expect(linkKind({ ...x, body: true, usual: null })).toBe('chart');
    expect(linkKind({ ...x, body: true, usual: 2 })).toBe('both');
    expect(linkKind({ ...x, body: false, usual: 2 })).toBe('usual');
  });
});
