/**
 * A store whose outcomes taught the service how its products fit, for timing `GET …/product-fit` (the ranked list the
 * console's table and integrations read): products of one type and one chart, each with purchases and what became of
 * them (kept, kept in the largest size, returned too small, returned for size with no direction), sent as integrations
 * send them, in batches.
 */
import { JsonClient } from './http.js';
import { SIZES, type BenchStore } from './fixtures.js';
import { call } from './service.js';

export interface LearnedStore {
  readonly storeId: string;
  readonly adminKey: string;
  /** One of its products, with outcomes: part 4 runs fit sessions on it too. */
  readonly productId: string;
  readonly products: number;
  readonly outcomes: number;
}

/** Outcomes per product: a third of them bounded or with no direction, as the simulation and RentTheRunway have them. */
const OUTCOMES_PER_PRODUCT = 12;

export async function createLearnedStore(base: string, bench: BenchStore, products: number): Promise<LearnedStore> {
  const { adminKey, storeId } = bench;
  const s = `/v1/stores/${storeId}`;
  const type = await call(base, 'POST', `${s}/product-types`, adminKey, { name: 'Jeans', category: 'bottoms', zone_weights: { waist: 1 } });
  const chart = await call(base, 'POST', `${s}/size-charts`, adminKey, {
    name: 'Bottoms',
    unit: 'cm',
    measurement_type: 'body',
    sizes: SIZES.map(([label, , waist]) => ({ label, measurements: { waist: { min: waist, max: waist + 8 } } })),
  });
  const client = new JsonClient(base, 8);
  const made: Array<{ id: string; variants: string[] }> = [];
  for (let first = 0; first < products; first += 8) {
    const batch = Array.from({ length: Math.min(8, products - first) }, async (_, k) => {
      const product = await client.call('POST', `${s}/products`, adminKey, {
        title: `Jeans ${first + k}`,
        product_type_id: type.id,
        size_chart_id: chart.id,
      });
      const variants: string[] = [];
      for (const [label] of SIZES) {
        variants.push((await client.call('POST', `${s}/products/${product.id}/variants`, adminKey, { size_label: label })).id as string);
      }
      return { id: product.id as string, variants };
    });
    made.push(...(await Promise.all(batch)));
  }
  const occurredAt = new Date(Date.now() - 60_000).toISOString();
  const events: unknown[] = [];
  made.forEach((product, p) => {
    for (let i = 0; i < OUTCOMES_PER_PRODUCT; i++) {
      // products drift from running small to running large across the store
      const line = { product_id: product.id, order_id: `fit-${p}-${i}`, line_item_id: `fit-${p}-${i}` };
      const size = i % 6 === 5 ? SIZES.length - 1 : 2;
      const base = { source: 'bench-outcomes', occurred_at: occurredAt, ...line, variant_id: product.variants[size] };
      events.push({ ...base, external_id: `${line.order_id}-purchase`, type: 'purchase' });
      const outcome =
        i % 6 === 5
          ? { type: 'item_kept' }
          : i % 6 === 4
            ? { type: 'return_requested', reason: 'size' }
            : i % 3 === p % 3
              ? { type: 'return_requested', reason: 'size', fit_feedback: p % 2 ? 'too_small' : 'too_large' }
              : { type: 'item_kept' };
      events.push({ ...base, external_id: `${line.order_id}-outcome`, ...outcome });
    }
  });
  for (let first = 0; first < events.length; first += 500) {
    const answer = await client.call('POST', `${s}/events/batch`, bench.keys.events, { events: events.slice(first, first + 500) });
    const refused = (answer.results as Array<{ status: number }>).filter((r) => r.status !== 201);
    if (refused.length) throw new Error(`product-fit store: ${refused.length} outcomes refused: ${JSON.stringify(refused[0])}`);
  }
  client.close();
  return { storeId, adminKey, productId: made[0].id, products, outcomes: events.length / 2 };
}

/** `GET …/product-fit` timed one request at a time after a warm-up, beside the reference `GET /v1/stores/{id}`. */
export async function timeProductFit(base: string, store: LearnedStore, requests: number) {
  const client = new JsonClient(base, 1);
  const time = async (path: string) => {
    const samples: number[] = [];
    for (let i = 0; i < requests + 10; i++) {
      const t = performance.now();
      await client.call('GET', path, store.adminKey);
      if (i >= 10) samples.push(performance.now() - t);
    }
    return samples;
  };
  const list = await time(`/v1/stores/${store.storeId}/product-fit?limit=20`);
  const reference = await time(`/v1/stores/${store.storeId}`);
  client.close();
  return { list, reference };
}
