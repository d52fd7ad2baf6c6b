import { expect } from '@jest/globals';
import type { TestApp } from './app.js';
import { bearer } from './app.js';

/**
 * Catalog rows for tests, created over HTTP with a key that may write the store's catalog (an admin or `catalog`
 * key). Each helper asserts the 201 and returns the response body; anything left out gets a sensible default.
 */

export interface ProductTypeBody {
  id: string;
  store_id: string;
  name: string;
  category: string;
  zone_weights: Record<string, number>;
  created_at: string;
  updated_at: string;
}

export interface SizeDefinitionBody {
  label: string;
  measurements: Record<string, { min: number; max: number }>;
}

export interface SizeChartBody {
  id: string;
  store_id: string;
  name: string;
  unit: 'cm' | 'in';
  measurement_type: 'body' | 'garment';
  ease_cm: number | null;
  sizes: SizeDefinitionBody[];
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductBody {
  id: string;
  store_id: string;
  external_id: string | null;
  title: string;
  product_type_id: string;
  size_chart_id: string;
  fit_adjustment: 'runs_small' | 'true_to_size' | 'runs_large';
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface VariantBody {
  id: string;
  product_id: string;
  external_id: string | null;
  size_label: string;
  sku: string | null;
  title: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Three body sizes in cm, smallest first: S, M, L, measured at chest and waist. */
export const DEFAULT_SIZES: SizeDefinitionBody[] = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
];

async function created<T>(request: Promise<{ status: number; body: unknown }>): Promise<T> {
  const response = await request;
  // The body is part of the comparison so that a failure shows why the service refused.
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
  return response.body as T;
}

export function createProductType(
  t: TestApp,
  secret: string,
  storeId: string,
  body: Record<string, unknown> = {},
): Promise<ProductTypeBody> {
  return created(
    t
      .http()
      .post(`/v1/stores/${storeId}/product-types`)
      .set(bearer(secret))
      .send({ name: 'T-shirt', category: 'tops', zone_weights: { chest: 1, waist: 0.5 }, ...body }),
  );
}

export function createSizeChart(t: TestApp, secret: string, storeId: string, body: Record<string, unknown> = {}): Promise<SizeChartBody> {
  return created(
    t
      .http()
      .post(`/v1/stores/${storeId}/size-charts`)
      .set(bearer(secret))
      .send({ name: 'Tops', unit: 'cm', measurement_type: 'body', sizes: DEFAULT_SIZES, ...body }),
  );
}

/** A product; when `product_type_id` or `size_chart_id` is left out, a default type or chart is created for it. */
export async function createProduct(t: TestApp, secret: string, storeId: string, body: Record<string, unknown> = {}): Promise<ProductBody> {
  const product_type_id = body.product_type_id ?? (await createProductType(t, secret, storeId)).id;
  const size_chart_id = body.size_chart_id ?? (await createSizeChart(t, secret, storeId)).id;
  return created(
    t
      .http()
      .post(`/v1/stores/${storeId}/products`)
      .set(bearer(secret))
      .send({ title: 'Classic tee', ...body, product_type_id, size_chart_id }),
  );
}

export function createVariant(
  t: TestApp,
  secret: string,
  storeId: string,
  productId: string,
  body: Record<string, unknown> = {},
): Promise<VariantBody> {
  return created(
    t
      .http()
      .post(`/v1/stores/${storeId}/products/${productId}/variants`)
      .set(bearer(secret))
      .send({ size_label: 'M', ...body }),
  );
}
