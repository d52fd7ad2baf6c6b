import { describe, expect, it } from '@jest/globals';
import type { Answer } from './sim-metrics.js';
import { plotSvg } from './sim-plot.js';
import { checkpoint } from './sim-report.js';

const answers = (right: number): Answer[] =>
  Array.from({ length: 10 }, (_, i) => ({ truth: 1, predicted: i < right ? 1 : 0, confidence: 0.6 }));
const learned = (steps: number) => ({ size_steps: steps, sd: 0.1, low: steps - 0.2, high: steps + 0.2, outcomes: 10 });

describe('the simulation plot', () => {
  it('draws three engines and each product with its true offset, escaping text', () => {
    const checkpoints = [0, 25, 50].map((outcomes, k) =>
      checkpoint(
        outcomes,
        { learning: [answers(5 + k), answers(5 + k)], statedChart: [answers(5), answers(5)], trueChart: [answers(8), answers(8)] },
        [learned(0), learned(0.3 * k)],
      ),
    );
    const svg = plotSvg(checkpoints, [0, 1], 'a & b');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    // three engines, then one learned path per product
    expect(svg.match(/<polyline /g)).toHaveLength(5);
    expect(svg).toContain('a &amp; b');
    expect(svg).not.toContain('NaN');
  });
});
