import { describe, expect, it } from '@jest/globals';
import { useService } from '../testing/service.js';
import { createSizeFitClient, type EventRequest, type FetchFunction, secretOf, SizeFitProblem } from './size-fit.js';

describe('createSizeFitClient against the real service', () => {
  const service = useService();

  async function tenant(name: string) {
    const operator = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: service.operatorKey, fetch: service.fetch });
    const created = await operator.POST('/v1/merchants', { body: { name } });
    const admin = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: secretOf(created.api_key), fetch: service.fetch });
    const store = await admin.POST('/v1/stores', { body: { name: `${name} store` } });
    return { admin, secret: secretOf(created.api_key), storeId: store.id };
  }

  it('retries a create whose answer was lost with the same Idempotency-Key: one store, replayed', async () => {
    const { secret } = await tenant('Lost answers');
    const replayed: Array<string | null> = [];
    let lose = true;
    const flaky: FetchFunction = async (request) => {
      const response = await service.fetch(request);
      if (request.method === 'POST' && lose) {
        lose = false;
        throw new TypeError('fetch failed: the connection dropped before the answer arrived');
      }
      replayed.push(response.headers.get('Idempotent-Replayed'));
      return response;
    };
    const admin = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: secret, fetch: flaky, retry: { baseDelayMs: 1 } });
    const store = await admin.POST('/v1/stores', { body: { name: 'Retried store' } });
    expect(replayed).toEqual(['true']);
    const names: string[] = [];
    for await (const each of admin.list('/v1/stores')) names.push(each.name);
    expect(names.filter((name) => name === 'Retried store')).toHaveLength(1);
    await expect(admin.GET('/v1/stores/{store_id}', { params: { path: { store_id: store.id } } })).resolves.toMatchObject({ id: store.id });
  });

  it('walks a list across pages, newest first', async () => {
    const { admin, storeId } = await tenant('Paged lists');
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      await admin.POST('/v1/stores/{store_id}/product-types', {
        params: { path: { store_id: storeId } },
        body: { name, category: 'tops', zone_weights: { chest: 1 } },
      });
    }
    const names: string[] = [];
    for await (const type of admin.list('/v1/stores/{store_id}/product-types', {
      params: { path: { store_id: storeId }, query: { limit: 2 } },
    }))
      names.push(type.name);
    expect(names).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('sends more than 500 events in batches; sending them again stores nothing more', async () => {
    const { admin, storeId } = await tenant('Many events');
    const occurred_at = new Date().toISOString();
    const events: EventRequest[] = Array.from({ length: 501 }, (_, index) => ({
      source: 'storefront',
      external_id: `view-${index}`,
      type: 'fit_viewed',
      occurred_at,
    }));
    const first = await admin.sendEvents(storeId, events);
    expect(first.map((result) => result.status)).toEqual(events.map(() => 201));
    const again = await admin.sendEvents(storeId, events.slice(495));
    expect(again.map((result) => result.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(again[5]?.event?.id).toBe(first[500]?.event?.id);
  });

  it('throws the service problems as SizeFitProblem', async () => {
    const { admin, storeId } = await tenant('Problems');
    const failure = await admin
      .POST('/v1/stores/{store_id}/events', {
        params: { path: { store_id: storeId } },
        body: { source: 'shop', external_id: 'p-1', type: 'purchase', occurred_at: new Date().toISOString() },
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SizeFitProblem);
    expect(failure).toMatchObject({ status: 400, code: 'validation_failed' });
    if (!(failure instanceof SizeFitProblem)) return;
    expect(failure.errors.map((error) => error.field).sort()).toEqual(['line_item_id', 'order_id', 'product_id', 'variant_id']);
    expect(failure.request_id).toMatch(/\S/);

    const revoked = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: 'sfk_not-a-key', fetch: service.fetch });
    await expect(revoked.GET('/v1/merchant')).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('gives a shopper her arm on a product page, the same each time; the holdout’s session is refused 409 experiment_holdout', async () => {
    const { admin, storeId } = await tenant('Experiments');
    const inStore = { path: { store_id: storeId } };
    const type = await admin.POST('/v1/stores/{store_id}/product-types', {
      params: inStore,
      body: { name: 'T-shirt', category: 'tops', zone_weights: { chest: 1 } },
    });
    const chart = await admin.POST('/v1/stores/{store_id}/size-charts', {
      params: inStore,
      body: {
        name: 'Tops',
        unit: 'cm',
        measurement_type: 'body',
        sizes: ['S', 'M'].map((label, index) => ({ label, measurements: { chest: { min: 86 + 8 * index, max: 94 + 8 * index } } })),
      },
    });
    const product = await admin.POST('/v1/stores/{store_id}/products', {
      params: inStore,
      body: { title: 'Crew tee', product_type_id: type.id, size_chart_id: chart.id },
    });
    await expect(admin.assign(storeId, { shopper_ref: 'cust_0', product_id: product.id })).resolves.toEqual({
      experiment_id: null,
      arm: null,
      treatment: 'size_help',
    });

    const draft = await admin.POST('/v1/stores/{store_id}/experiments', {
      params: inStore,
      body: {
        name: 'Does size help cut size returns?',
        arms: [
          { name: 'size help', share: 0.5, treatment: 'size_help' },
          { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
        ],
        product_ids: [product.id],
        primary_metric: 'size_return_rate',
        minimum_effect: 0.03,
      },
    });
    const experiment = await admin.POST('/v1/stores/{store_id}/experiments/{id}/start', {
      params: { path: { ...inStore.path, id: draft.id } },
    });
    const arms = new Map<string, string>();
    for (let i = 1; arms.size < 2 && i < 100; i++) {
      const shopper = `cust_${i}`;
      const assignment = await admin.assign(storeId, { shopper_ref: shopper, product_id: product.id });
      expect(assignment.experiment_id).toBe(experiment.id);
      if (!arms.has(assignment.treatment)) arms.set(assignment.treatment, shopper);
    }
    const holdout = arms.get('no_size_help') ?? '';
    const helped = arms.get('size_help') ?? '';
    await expect(admin.assign(storeId, { shopper_ref: holdout, product_id: product.id })).resolves.toEqual({
      experiment_id: experiment.id,
      arm: 'holdout',
      treatment: 'no_size_help',
    });

    const refused = await admin
      .POST('/v1/stores/{store_id}/sessions', { params: inStore, body: { product_id: product.id, shopper_ref: holdout } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SizeFitProblem);
    expect(refused).toMatchObject({ status: 409, code: 'experiment_holdout' });
    await expect(
      admin.POST('/v1/stores/{store_id}/sessions', { params: inStore, body: { product_id: product.id, shopper_ref: helped } }),
    ).resolves.toMatchObject({ state: 'started' });
    await expect(admin.assign(storeId, { shopper_ref: holdout, product_id: storeId })).rejects.toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'product_id' })],
    });
  });
});
