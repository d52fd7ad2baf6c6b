/**
 * A merchant, a store with a small catalog (one product in six sizes), store-bound keys and a handful of fit
 * sessions of that product, made through the service's API.
 */
import { call } from './service.js';

/** The name of the merchant every bench run creates, and deletes with all its rows at the end. */
export const BENCH_MERCHANT = 'Size-Fit bench run';

export interface BenchStore {
  readonly merchantId: string;
  readonly storeId: string;
  readonly adminKey: string;
  /** Store-bound keys, one per scope the bench uses. */
  readonly keys: { readonly events: string; readonly fit: string };
  readonly productId: string;
  /** The product's variants, XS to XXL. */
  readonly variantIds: readonly string[];
  /** Fit sessions of the product (started, not answered), for purchases that name their session. */
  readonly sessionIds: readonly string[];
}

/** How many sessions `createBenchStore` starts: purchases reuse them, each with an order line of its own. */
const BENCH_SESSIONS = 4;

/** Six sizes of a tee, chest and waist in cm. */
export const SIZES: ReadonlyArray<[string, number, number]> = [
  ['XS', 78, 63],
  ['S', 86, 71],
  ['M', 94, 79],
  ['L', 102, 87],
  ['XL', 110, 95],
  ['XXL', 118, 103],
];

export async function createBenchStore(base: string, operatorKey: string, name = 'Bench'): Promise<BenchStore> {
  const merchant = await call(base, 'POST', '/v1/merchants', operatorKey, { name });
  const adminKey = merchant.api_key.secret as string;
  const storeId = (await call(base, 'POST', '/v1/stores', adminKey, { name: `${name} store` })).id as string;
  const key = async (scope: string) =>
    (await call(base, 'POST', '/v1/api-keys', adminKey, { name: scope, store_id: storeId, scopes: [scope] })).secret as string;
  const s = `/v1/stores/${storeId}`;
  const type = await call(base, 'POST', `${s}/product-types`, adminKey, {
    name: 'Tee',
    category: 'tops',
    zone_weights: { chest: 1, waist: 0.5 },
  });
  const chart = await call(base, 'POST', `${s}/size-charts`, adminKey, {
    name: 'Tops',
    unit: 'cm',
    measurement_type: 'body',
    sizes: SIZES.map(([label, chest, waist]) => ({
      label,
      measurements: { chest: { min: chest, max: chest + 8 }, waist: { min: waist, max: waist + 8 } },
    })),
  });
  const product = await call(base, 'POST', `${s}/products`, adminKey, {
    title: 'Crew tee',
    product_type_id: type.id,
    size_chart_id: chart.id,
  });
  const variantIds: string[] = [];
  for (const [label] of SIZES) {
    variantIds.push((await call(base, 'POST', `${s}/products/${product.id}/variants`, adminKey, { size_label: label })).id as string);
  }
  const keys = { events: await key('events'), fit: await key('fit') };
  const sessionIds: string[] = [];
  for (let i = 0; i < BENCH_SESSIONS; i++) {
    sessionIds.push((await call(base, 'POST', `${s}/sessions`, keys.fit, { product_id: product.id })).id as string);
  }
  return { merchantId: merchant.merchant.id as string, storeId, adminKey, keys, productId: product.id as string, variantIds, sessionIds };
}

/** The answers of the i-th shopper of a run: heights, weights, ages and sexes that cover the chart. */
export function shopper(i: number) {
  return {
    height: { value: 155 + (i % 40), unit: 'cm' },
    weight: { value: 50 + ((i * 7) % 60), unit: 'kg' },
    age: 20 + (i % 50),
    sex: i % 3 === 0 ? 'female' : 'male',
  };
}
