import { describe, expect, it } from '@jest/globals';
import { readRecommendation, refusalOf } from './outcome-live.js';

describe('what the answers route said', () => {
  it('names a refusal by its codes and fields', () => {
    const body = {
      code: 'validation_failed',
      errors: [
        { field: 'answers.weight', code: 'needed_for_recommendation' },
        { field: 'answers.height', code: 'needed_for_recommendation' },
      ],
    };
    expect(refusalOf(400, body)).toBe('needed_for_recommendation: height, weight');
    expect(refusalOf(400, { code: 'validation_failed' })).toBe('400 validation_failed');
  });

  it('reads a recommendation into the chart’s sizes', () => {
    const read = readRecommendation(['4', '8', '12', '16'], {
      size_label: '8',
      confidence: 0.6,
      alternatives: [{ size_label: '12', confidence: 0.3 }],
      model_version: 'm+learned.0.40.0.20',
      adjustment: { source: 'learned', size_steps: 0.4, sd: 0.2, evidence: 12, chart_size_label: '4', shopper_steps: null },
    });
    expect(read.recommended).toBe(1);
    expect(read.chartSize).toBe(0);
    expect(read.offsetSteps).toBe(0.4);
    expect(read.confidence).toBe(0.6);
    [0.05, 0.6, 0.3, 0.05].forEach((p, i) => expect(read.distribution[i]).toBeCloseTo(p, 12));
  });
});
