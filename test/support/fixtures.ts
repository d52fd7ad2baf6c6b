import { expect } from '@jest/globals';
import type { TestApp } from './app.js';
import { bearer, OPERATOR_KEY } from './app.js';

export interface Key {
  id: string;
  secret: string;
  store_id: string | null;
  scopes: string[];
}

export interface Tenant {
  merchantId: string;
  admin: Key;
  storeId: string;
}

let counter = 0;

/** A fresh merchant with its unrestricted admin key and one store: every test builds its own. */
export async function createTenant(t: TestApp, name = `Merchant ${++counter}`): Promise<Tenant> {
  const merchant = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name });
  expect(merchant.status).toBe(201);
  const admin = merchant.body.api_key as Key;
  const storeId = await createStore(t, admin.secret);
  return { merchantId: merchant.body.merchant.id, admin, storeId };
}

export async function createStore(t: TestApp, adminSecret: string, name = `Store ${++counter}`): Promise<string> {
  const store = await t.http().post('/v1/stores').set(bearer(adminSecret)).send({ name });
  expect(store.status).toBe(201);
  return store.body.id as string;
}

export async function issueKey(
  t: TestApp,
  adminSecret: string,
  body: { scopes: string[]; store_id?: string; expires_at?: string; name?: string },
): Promise<Key> {
  const response = await t
    .http()
    .post('/v1/api-keys')
    .set(bearer(adminSecret))
    .send({ name: 'test key', ...body });
  expect(response.status).toBe(201);
  return response.body as Key;
}

/** Asserts an RFC 9457 problem answer with the given status and code. */
export function expectProblem(
  response: { status: number; body: unknown; headers: Record<string, unknown> },
  status: number,
  code: string,
): void {
  expect({ status: response.status, code: (response.body as { code?: string }).code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.body as Record<string, unknown>;
  expect(body).toMatchObject({ type: `/problems/${code}`, status, code });
  expect(typeof body.title).toBe('string');
  expect(body.request_id).toBe(response.headers['request-id']);
}

/** An expected field error: its field, and its code (left out in the record form as `undefined`: any code). */
export type ExpectedErrors =
  Readonly<Record<string, string | undefined>> | ReadonlyArray<{ readonly field: string; readonly code: string }>;

/**
 * A 400 `validation_failed` whose field errors are exactly these, each with a message: either `{ field: code }` (a
 * code of `undefined` is not checked), or a list of `{ field, code }` when one field carries several codes.
 */
export function expectErrors(
  response: { status: number; body: unknown; headers: Record<string, unknown> },
  expected: ExpectedErrors,
): void {
  expectProblem(response, 400, 'validation_failed');
  const errors = (response.body as { errors: { field: string; code: string; message: string }[] }).errors;
  for (const error of errors) expect(typeof error.message).toBe('string');
  const wanted: { field: string; code?: string }[] = Array.isArray(expected)
    ? expected.map(({ field, code }) => ({ field, code }))
    : Object.entries(expected).map(([field, code]) => ({ field, code }));
  const anyCode = new Set(wanted.filter((error) => error.code === undefined).map((error) => error.field));
  const order = (a: { field: string; code?: string }, b: { field: string; code?: string }) =>
    a.field.localeCompare(b.field) || (a.code ?? '').localeCompare(b.code ?? '');
  const got = errors.map(({ field, code }) => ({ field, code: anyCode.has(field) ? undefined : code }));
  expect(got.sort(order)).toEqual(wanted.sort(order));
}

/** 401 with the one body for every authentication failure, and the Bearer challenge. */
export function expectUnauthenticated(response: { status: number; body: unknown; headers: Record<string, unknown> }): void {
  expectProblem(response, 401, 'unauthenticated');
  expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
}

/** Everything about a problem body except the parts that differ per request. */
export function problemShape(response: { status: number; body: unknown }): Record<string, unknown> {
  const { request_id: _requestId, ...rest } = response.body as Record<string, unknown>;
  return { status: response.status, ...rest };
}

/** A timestamp as every answer writes one: UTC, with milliseconds. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An id as the service makes them. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A well-formed id that names nothing. */
export const MISSING_ID = '01936f6e-0000-7000-8000-000000000000';
