import { describe, expect, it } from '@jest/globals';
import { createSizeFitClient, secretOf } from '../client/size-fit.js';
import { useService } from '../testing/service.js';
import { runJourney } from './journey.js';

describe('the integrator journey (kit/examples/journey.ts) against the real service', () => {
  const service = useService();

  it('walks from a merchant to the metrics of an accepted, purchased recommendation', async () => {
    const lines: string[] = [];
    const result = await runJourney({
      baseUrl: service.baseUrl,
      operatorKey: service.operatorKey,
      fetch: service.fetch,
      log: (line) => lines.push(line),
    });

    expect(result.assignment).toEqual({ experiment_id: null, arm: null, treatment: 'size_help' });
    expect(result.decision).toMatchObject({ size_label: result.recommendation.size_label, outcome: 'accepted' });
    expect(result.purchase).toMatchObject({ type: 'purchase', session_id: result.sessionId, order_id: '1001' });
    expect(result.resentStatus).toBe(200);
    // Listed two at a time, newest first, across pages.
    expect(result.keyNames).toEqual(['checkout (rotated) (revoked)', 'reporting', 'checkout', 'storefront backend']);
    expect(result.metrics.store_id).toBe(result.storeId);
    expect(result.metrics.counts).toMatchObject({
      started_sessions: 1,
      recommended_sessions: 1,
      accepted_sessions: 1,
      converted_sessions: 1,
      purchased_lines: 1,
    });
    expect(result.metrics.rates).toMatchObject({ quiz_completion: 1, recommendation_acceptance: 1, fit_assisted_conversion: 1 });
    expect(lines.length).toBeGreaterThan(5);
  });

  it('runs in an existing merchant given its admin key, without the operator key', async () => {
    const operator = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: service.operatorKey, fetch: service.fetch });
    const created = await operator.POST('/v1/merchants', { body: { name: 'Existing Apparel' } });

    const result = await runJourney({ baseUrl: service.baseUrl, adminKey: secretOf(created.api_key), fetch: service.fetch });

    expect(result.merchantId).toBe(created.merchant.id);
    expect(result.decision).toMatchObject({ outcome: 'accepted' });
    expect(result.metrics.counts).toMatchObject({ converted_sessions: 1, purchased_lines: 1 });
  });
});
