import { expect } from '@jest/globals';
import { ProductTypesService } from '../../src/catalog/product-types.service.js';
import { ProductsService } from '../../src/catalog/products.service.js';
import { SizeChartsService } from '../../src/catalog/size-charts.service.js';
import { ProblemError } from '../../src/common/problems/problem-error.js';
import { MerchantsService } from '../../src/merchants/merchants.service.js';
import type { Store } from '../../src/stores/store.entity.js';
import { StoresService } from '../../src/stores/stores.service.js';
import type { ServiceModule } from './service-module.js';
import { BODY_CHART, type Shop, type SizeLabel, SIZES } from './session-fixtures.js';

/**
 * The session fixtures' shop (a tops product on the chest/waist body chart, one variant per size), made through the
 * catalog's services instead of HTTP, for service specs (service-module.ts). Needs the catalog module.
 */
export interface ServiceShop extends Omit<Shop, 'secret'> {
  readonly store: Store;
  readonly merchantId: string;
}

let counter = 0;

/** A store of a fresh merchant, or of the merchant `merchantId` names; through their services. */
export async function createServiceStore(m: ServiceModule, merchantId?: string): Promise<Store> {
  const n = ++counter;
  const owner = merchantId ?? (await m.get(MerchantsService).create(`Merchant ${n}`)).merchant.id;
  const stores = m.get(StoresService);
  // as the merchant's unrestricted admin
  const principal = { kind: 'merchant', keyId: null, merchantId: owner, storeId: null, scopes: ['admin'] } as const;
  const created = await stores.create(principal, { name: `Store ${n}` });
  const store = await stores.findOfMerchant(created.id, owner);
  if (!store) throw new Error('createServiceStore: the store just created is not found');
  return store;
}

/** The shop on `store` (a new merchant's store when left out). */
export async function createServiceShop(m: ServiceModule, store?: Store): Promise<ServiceShop> {
  const at = store ?? (await createServiceStore(m));
  const n = ++counter;
  const type = await m.get(ProductTypesService).create(at, { name: `Tops ${n}`, category: 'tops', zone_weights: { chest: 1, waist: 0.5 } });
  const chart = await m
    .get(SizeChartsService)
    .create(at, { name: `Body chart ${n}`, unit: 'cm', measurement_type: 'body', sizes: BODY_CHART });
  const products = m.get(ProductsService);
  const product = await products.create(at, { title: `Tee ${n}`, product_type_id: type.id, size_chart_id: chart.id });
  const variants = {} as Record<SizeLabel, string>;
  for (const label of SIZES) {
    variants[label] = (await products.createVariant(at, product.id, { size_label: label, sku: `SKU-${n}-${label}` })).id;
  }
  return {
    store: at,
    merchantId: at.merchantId,
    storeId: at.id,
    productTypeId: type.id,
    sizeChartId: chart.id,
    productId: product.id,
    variants,
  };
}

/** A problem as a client would branch on it: its status, code and field errors (`field` → `code`, sorted). */
export interface ProblemShape {
  readonly status: number;
  readonly code: string;
  readonly errors?: ReadonlyArray<{ readonly field: string; readonly code: string }>;
}

/** The ProblemError `work` fails with, as a ProblemShape; fails the test if it succeeds or fails otherwise. */
export async function problemOf(work: Promise<unknown>): Promise<ProblemShape> {
  const error = await work.then(
    (value) => ({ resolved: value }),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProblemError);
  const problem = error as ProblemError;
  const errors = problem.errors
    ?.map(({ field, code }) => ({ field, code }))
    .sort((a, b) => a.field.localeCompare(b.field) || a.code.localeCompare(b.code));
  return { status: problem.status, code: problem.code, ...(errors ? { errors } : {}) };
}

/** A value as the HTTP answer carries it: through JSON, so that classes and `undefined` fields drop out. */
export const asSent = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
