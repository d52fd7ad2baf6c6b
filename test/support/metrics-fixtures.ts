import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, type TestApp } from './app.js';
import { createStore, createTenant, type Tenant, TIMESTAMP } from './fixtures.js';
import { type Counts, RATE_KEYS, type Rates, ratesOf, type RefEvent, type RefSession, type Stage } from './metrics-reference.js';
import { createShop, type Shop, SIZES } from './session-fixtures.js';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The answers every metrics session gives: they always produce a recommendation on the shop's chart. */
export const SHOPPER = {
  height: { value: 178, unit: 'cm' },
  weight: { value: 76, unit: 'kg' },
  age: 34,
  sex: 'male',
  fit_preference: 'regular',
};

export const iso = (ms: number | Date) => new Date(ms).toISOString();
/** The start (00:00 UTC) of the UTC day of `ms`. */
export const utcDay = (ms: number) => Math.floor(ms / DAY) * DAY;
/** The UTC date (YYYY-MM-DD) of an instant. */
export const dateOf = (ms: number) => iso(ms).slice(0, 10);
/** Today's UTC date (YYYY-MM-DD). */
export const today = () => dateOf(Date.now());
/** The UTC date (YYYY-MM-DD) `days` after `date` (before it when negative). */
export const addDays = (date: string, days: number) => dateOf(Date.parse(`${date}T00:00:00Z`) + days * DAY);

/** Midnight UTC 20 days ago: far enough back that ranges, sessions and outcomes all lie in the past. */
export const anchor = () => utcDay(Date.now()) - 20 * DAY;

// ——— shops ———

export interface MetricsShop extends Shop {
  tenant: Tenant;
}

/** A fresh merchant and store with the session fixtures' shop; every call uses the unrestricted admin key. */
export async function newMetricsShop(t: TestApp): Promise<MetricsShop> {
  const tenant = await createTenant(t);
  const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
  return { ...shop, tenant };
}

/** Another store of the same merchant, with its own shop (same admin key). */
export async function siblingShop(t: TestApp, of: MetricsShop): Promise<MetricsShop> {
  const storeId = await createStore(t, of.tenant.admin.secret);
  const shop = await createShop(t, storeId, of.tenant.admin.secret);
  return { ...shop, tenant: { ...of.tenant, storeId } };
}

// ——— sessions placed in time ———

/**
 * Moves a session's creation to `at`, straight in the database. Call it right after creating the session and before
 * any event names it (an event may not precede its session).
 */
export async function setSessionCreatedAt(t: TestApp, sessionId: string, at: number | Date): Promise<void> {
  const rows: { created_at: Date }[] = await t.app
    .get(DataSource)
    .query('WITH moved AS (UPDATE sessions SET created_at = $1 WHERE id = $2 RETURNING created_at) SELECT created_at FROM moved', [
      new Date(at),
      sessionId,
    ]);
  expect(rows.map((row) => new Date(row.created_at).toISOString())).toEqual([iso(at)]);
}

export interface PlacedSession extends RefSession {
  /** The recommended size label, when the session got a recommendation. */
  sizeLabel: string | null;
}

/** Fails with the problem the service answered, not just a bare status. */
function expectStatus(response: Response, status: number): void {
  if (response.status !== status) expect({ status: response.status, body: response.body }).toEqual({ status });
}

/**
 * A session of the shop's product created at `at` (moved there in the database), taken as far as `stage`:
 * answered (a recommendation), then decided with the recommended size (accepted) or another one (overridden).
 */
export async function placeSession(t: TestApp, shop: Shop, at: number, stage: Stage = 'started'): Promise<PlacedSession> {
  const base = `/v1/stores/${shop.storeId}/sessions`;
  const started = await t.http().post(base).set(bearer(shop.secret)).send({ product_id: shop.productId });
  expectStatus(started, 201);
  const id = started.body.id as string;
  await setSessionCreatedAt(t, id, at);
  let sizeLabel: string | null = null;
  if (stage !== 'started') {
    const answered = await t.http().post(`${base}/${id}/answers`).set(bearer(shop.secret)).send({ answers: SHOPPER });
    expectStatus(answered, 200);
    sizeLabel = answered.body.recommendation.size_label as string;
    if (stage !== 'recommended') {
      const label = stage === 'accepted' ? sizeLabel : (SIZES.find((s) => s !== sizeLabel) as string);
      const decided = await t.http().post(`${base}/${id}/decision`).set(bearer(shop.secret)).send({ size_label: label });
      expectStatus(decided, 200);
      expect(decided.body.outcome).toBe(stage);
    }
  }
  return { id, storeId: shop.storeId, createdAt: at, stage, sizeLabel };
}

// ——— events ———

export interface EventInput {
  type: string;
  occurred_at: string;
  source?: string;
  external_id?: string;
  product_id?: string | null;
  variant_id?: string | null;
  session_id?: string | null;
  order_id?: string | null;
  line_item_id?: string | null;
  reason?: 'size' | 'other' | null;
  quantity?: number | null;
}

let eventCounter = 0;
const RUN = Math.random().toString(36).slice(2, 8);
export const nextExternalId = () => `metrics-${RUN}-${++eventCounter}`;

/**
 * An order outcome of the shop's product on `order`/`line` (variant M unless told), at `at`; `session` links it to
 * a session (by id), `reason` is for returns and exchanges.
 */
export function outcome(
  shop: Shop,
  type: 'purchase' | 'return_requested' | 'size_exchange' | 'item_kept',
  o: { order: string; line: string; at: number; session?: string | null; reason?: 'size' | 'other'; quantity?: number; variant?: string },
): EventInput {
  return {
    source: 'test-shop',
    external_id: nextExternalId(),
    type,
    product_id: shop.productId,
    variant_id: o.variant ?? shop.variants.M,
    ...(o.session ? { session_id: o.session } : {}),
    order_id: o.order,
    line_item_id: o.line,
    ...(o.reason ? { reason: o.reason } : {}),
    ...(o.quantity !== undefined ? { quantity: o.quantity } : {}),
    occurred_at: iso(o.at),
  };
}

export const purchase = (shop: Shop, o: Parameters<typeof outcome>[2]) => outcome(shop, 'purchase', o);
export const sizeReturn = (shop: Shop, o: Parameters<typeof outcome>[2]) => outcome(shop, 'return_requested', { reason: 'size', ...o });
export const sizeExchange = (shop: Shop, o: Parameters<typeof outcome>[2]) => outcome(shop, 'size_exchange', { reason: 'size', ...o });
export const kept = (shop: Shop, o: Parameters<typeof outcome>[2]) => outcome(shop, 'item_kept', o);

/** Sends one event (POST …/events) and expects it stored (201). */
export async function sendEvent(t: TestApp, shop: Shop, event: EventInput): Promise<Record<string, unknown>> {
  const response = await t.http().post(`/v1/stores/${shop.storeId}/events`).set(bearer(shop.secret)).send(event);
  expectStatus(response, 201);
  return response.body;
}

/** Sends events through POST …/events/batch (500 a request) and expects every one stored (201). */
export async function sendEvents(t: TestApp, shop: Shop, events: readonly EventInput[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const chunk = events.slice(i, i + 500);
    const response = await t.http().post(`/v1/stores/${shop.storeId}/events/batch`).set(bearer(shop.secret)).send({ events: chunk });
    expectStatus(response, 200);
    const results = response.body.results as { status: number; error?: unknown }[];
    expect(results).toHaveLength(chunk.length);
    const refused = results.map((r, k) => ({ status: r.status, error: r.error, event: chunk[k] })).filter((r) => r.status !== 201);
    expect(refused).toEqual([]);
  }
}

/** The reference's view of an event sent to a store. */
export function refEvent(storeId: string, e: EventInput): RefEvent {
  return {
    storeId,
    type: e.type,
    sessionId: e.session_id ?? null,
    orderId: e.order_id ?? null,
    lineItemId: e.line_item_id ?? null,
    reason: e.reason ?? null,
    occurredAt: Date.parse(e.occurred_at),
  };
}

// ——— reading the metrics ———

export interface MetricsBody {
  store_id: string;
  from: string;
  to: string;
  observed_through: string;
  counts: Counts;
  rates: Rates;
  caveats: string[];
}

export interface DayBody {
  date: string;
  from: string;
  to: string;
  counts: Counts;
  rates: Rates;
}

export interface DailyBody {
  store_id: string;
  from: string;
  to: string;
  observed_through: string;
  days: DayBody[];
  caveats: string[];
}

export type RangeQuery = { from?: string | number; to?: string | number } & Record<string, unknown>;

const asQuery = (q: RangeQuery) =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, typeof v === 'number' ? iso(v) : v])) as Record<string, string>;

export const metricsRaw = (t: TestApp, storeId: string, secret: string | null, q: RangeQuery = {}, daily = false) => {
  const request = t
    .http()
    .get(`/v1/stores/${storeId}/metrics${daily ? '/daily' : ''}`)
    .query(asQuery(q));
  return secret === null ? request : request.set(bearer(secret));
};

/** GET …/metrics with the shop's key; expects 200. */
export async function getMetrics(t: TestApp, shop: Shop, q: RangeQuery = {}): Promise<MetricsBody> {
  const response = await metricsRaw(t, shop.storeId, shop.secret, q);
  expectStatus(response, 200);
  return response.body as MetricsBody;
}

/** GET …/metrics/daily with the shop's key; expects 200. */
export async function getDaily(t: TestApp, shop: Shop, q: RangeQuery = {}): Promise<DailyBody> {
  const response = await metricsRaw(t, shop.storeId, shop.secret, q, true);
  expectStatus(response, 200);
  return response.body as DailyBody;
}

/** Counts with every figure zero but those given. */
export function counts(given: Partial<Counts> = {}): Counts {
  return {
    started_sessions: 0,
    recommended_sessions: 0,
    accepted_sessions: 0,
    overridden_sessions: 0,
    converted_sessions: 0,
    purchased_lines: 0,
    size_returned_lines: 0,
    kept_lines: 0,
    size_exchanged_lines: 0,
    ...given,
  };
}

/**
 * Compares rates: equal nulls, and numbers equal to the quotient up to floating-point rounding (1e-12), so a
 * service that rounds its rates to a few decimals still fails.
 */
export function expectRates(actual: Rates, expected: Rates): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  const close = Object.fromEntries(
    Object.entries(expected).map(([k, v]) => {
      const a = actual[k as keyof Rates];
      return [k, v !== null && typeof a === 'number' && Math.abs(a - v) <= 1e-12 ? a : v];
    }),
  );
  expect(actual).toEqual(close);
}

/** Every rate null: what a range without sessions answers. */
export const NULL_RATES = Object.fromEntries(RATE_KEYS.map((k) => [k, null])) as Rates;

/** Every count multiplied by `k`. */
export function scale(c: Counts, k: number): Counts {
  return Object.fromEntries(Object.entries(c).map(([key, v]) => [key, v * k])) as Counts;
}

/** The figures of the body equal `expected` (rates derived from them by the definitions). */
export function expectFigures(body: { counts: Counts; rates: Rates }, expected: Counts): void {
  expect(body.counts).toEqual(expected);
  expectRates(body.rates, ratesOf(expected));
}

/**
 * `metricsAt(shop, from, to)` on the app `t`: GET …/metrics, asserting observed_through lies within the request and
 * echoes the range.
 */
export function metricsAtOf(t: TestApp): (shop: MetricsShop, from: number, to: number) => Promise<MetricsBody> {
  return async function metricsAt(shop: MetricsShop, from: number, to: number): Promise<MetricsBody> {
    const before = Date.now();
    const body = await getMetrics(t, shop, { from, to });
    const after = Date.now();
    expect({ from: body.from, to: body.to, store_id: body.store_id }).toEqual({ from: iso(from), to: iso(to), store_id: shop.storeId });
    expect(body.observed_through).toMatch(TIMESTAMP);
    const observed = Date.parse(body.observed_through);
    expect(observed).toBeGreaterThanOrEqual(before - 1);
    expect(observed).toBeLessThanOrEqual(after + 1);
    return body;
  };
}
