import { describe, expect, it } from '@jest/globals';
import type { Answer } from './sim-metrics.js';
import { checkpoint, checkTargets, markdown } from './sim-report.js';

/** `n` answers, of which the first `right` are the true size, each stated with `confidence`. */
const answers = (n: number, right: number, confidence: number): Answer[] =>
  Array.from({ length: n }, (_, i) => ({ truth: 2, predicted: i < right ? 2 : 3, confidence }));

const learned = (steps: number) => ({ size_steps: steps, sd: 0.05, low: steps - 0.1, high: steps + 0.1, outcomes: 200 });

describe('the simulation report', () => {
  const offsets = [0, 1];
  const last = checkpoint(
    200,
    {
      learning: [answers(100, 70, 0.7), answers(100, 70, 0.7)],
      statedChart: [answers(100, 70, NaN), answers(100, 20, NaN)],
      trueChart: [answers(100, 71, 0.7), answers(100, 71, 0.7)],
    },
    [learned(0.1), learned(0.95)],
  );

  it('scores the engines on the same shoppers', () => {
    expect(last.learning.all.exact).toBeCloseTo(0.7, 12);
    expect(last.statedChart.byProduct[1].exact).toBeCloseTo(0.2, 12);
    expect(last.gapToTrueChart.difference).toBeCloseTo(-0.01, 12);
  });

  it('judges the targets at the last checkpoint', () => {
    expect(checkTargets(last, offsets).map((t) => t.met)).toEqual([true, true, true]);
    const drifted = { ...last, learned: [learned(0.2), learned(0.95)] };
    expect(checkTargets(drifted, offsets)[1]).toMatchObject({ met: false, value: '+0.20' });
  });

  it('writes one row per checkpoint and per product', () => {
    const text = markdown([last], offsets, 'header', checkTargets(last, offsets));
    expect(text.startsWith('header\n')).toBe(true);
    expect(text).toContain('| 200 | 70.0% | 45.0% | 71.0% | −1.0 (±');
    expect(text).toContain('| P2 | +1.00 | +0.95 [+0.85, +1.05] | 70.0% | 20.0% | 71.0% |');
    expect(text).toContain('| outcomes per product | P1 (0) | P2 (+1) |');
    expect(text).not.toContain('trails');
  });

  it('names the products on which learning trails the engine that knows the true chart', () => {
    const behind = checkpoint(
      200,
      {
        learning: [answers(100, 70, 0.7), answers(100, 60, 0.6)],
        statedChart: [answers(100, 70, NaN), answers(100, 20, NaN)],
        trueChart: [answers(100, 71, 0.7), answers(100, 71, 0.7)],
      },
      [learned(0.1), learned(0.95)],
    );
    expect(markdown([behind], offsets, 'header', [])).toContain('by more than 2.0 points on P2 (+1) −11.0 points.');
  });
});
