/**
 * The simulation's merchant and stores, created over the API: one product type of bottoms, products on a body chart,
 * one variant per size. Stores never share what they learn, so each engine compared gets a store of its own.
 */
import type { Chart } from '../../src/sizing/types.js';
import type { Api } from './sim-api.js';
import { chartBody, ZONE_WEIGHTS } from './sim-chart.js';

/** A product as the simulation tracks it: its id, its variants by size position, and how it really fits. */
export interface SimProduct {
  readonly id: string;
  /** Size steps it really runs small (positive) or large (negative) against the stated chart. */
  readonly offset: number;
  readonly variants: readonly string[];
}

export interface SimStore {
  readonly id: string;
  readonly products: readonly SimProduct[];
}

const withId = (body: { id: string }) => body.id;

/** A new merchant, and the API as its admin key. */
export async function createMerchant(operator: Api, name: string): Promise<Api> {
  const created = await operator.post<{ api_key: { secret: string } }>('/v1/merchants', { name });
  return operator.as(created.api_key.secret);
}

/**
 * A store whose products are given by `charts`: each its own chart (the same chart object gives the same chart row),
 * labelled with the offset it really runs by.
 */
export async function createStore(
  admin: Api,
  name: string,
  products: readonly { readonly offset: number; readonly chart: Chart }[],
): Promise<SimStore> {
  const storeId = withId(await admin.post('/v1/stores', { name }));
  const base = `/v1/stores/${storeId}`;
  const typeId = withId(await admin.post(`${base}/product-types`, { name: 'Bottoms', category: 'bottoms', zone_weights: ZONE_WEIGHTS }));
  const chartIds = new Map<Chart, string>();
  const simProducts: SimProduct[] = [];
  for (const [n, { offset, chart }] of products.entries()) {
    let chartId = chartIds.get(chart);
    if (chartId === undefined) {
      chartId = withId(await admin.post(`${base}/size-charts`, chartBody(`${name} chart ${chartIds.size + 1}`, chart)));
      chartIds.set(chart, chartId);
    }
    const productId = withId(
      await admin.post(`${base}/products`, { title: `Trousers ${n + 1}`, product_type_id: typeId, size_chart_id: chartId }),
    );
    const variants: string[] = [];
    for (const size of chart.sizes) {
      variants.push(
        withId(await admin.post(`${base}/products/${productId}/variants`, { size_label: size.label, sku: `P${n + 1}-${size.label}` })),
      );
    }
    simProducts.push({ id: productId, offset, variants });
  }
  return { id: storeId, products: simProducts };
}
