import { expect } from '@jest/globals';
import type { Response } from 'supertest';
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

/** A well-formed id that names nothing. */

/**
 * The catalog tests' requests on the app `t`, each with a key: `at(storeId, path)` is the store's route, and
 * `get`/`post`/`patch`/`del` send one request. Call it in a `describe` block; use what it returns in tests.
 */
export function catalogRequests(t: TestApp) {
  const at = (storeId: string, path: string) => `/v1/stores/${storeId}${path}`;
  const get = (secret: string, path: string) => t.http().get(path).set(bearer(secret));
  const post = (secret: string, path: string, body: object) => t.http().post(path).set(bearer(secret)).send(body);
  const patch = (secret: string, path: string, body: object) => t.http().patch(path).set(bearer(secret)).send(body);
  const del = (secret: string, path: string) => t.http().delete(path).set(bearer(secret));

  /** Three items created oldest to newest read back newest first in pages of two that follow next_cursor. */
  async function expectTwoPages(secret: string, listPath: string, oldestFirst: string[]): Promise<void> {
    expect(oldestFirst).toHaveLength(3);
    const [oldest, middle, newest] = oldestFirst;
    const join = listPath.includes('?') ? '&' : '?';
    const first = await get(secret, `${listPath}${join}limit=2`);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual([newest, middle]);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: middle });
    const second = await get(secret, `${listPath}${join}limit=2&starting_after=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.data.map((item: { id: string }) => item.id)).toEqual([oldest]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const all = await get(secret, listPath);
    expect(all.body.data.map((item: { id: string }) => item.id)).toEqual([newest, middle, oldest]);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
  }

  /** A product that a fit session refers to, so that deleting it archives it. */
  async function startSession(secret: string, storeId: string, productId: string): Promise<Response> {
    const response = await post(secret, at(storeId, '/sessions'), { product_id: productId });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return response;
  }

  return { at, get, post, patch, del, expectTwoPages, startSession };
}
