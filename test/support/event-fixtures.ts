import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, type TestApp } from './app.js';
import { type Tenant, TIMESTAMP } from './fixtures.js';
import { newMetricsShop } from './metrics-fixtures.js';
import { type Session, type Shop, withFailingEventInsertWhere } from './session-fixtures.js';

/** The types an integration may send. */
export const INTEGRATION_TYPES = [
  'fit_viewed',
  'add_to_cart',
  'checkout_started',
  'purchase',
  'return_requested',
  'size_exchange',
  'item_kept',
] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

/** The types the service records itself: refused on the events endpoint. */
export const RESERVED_TYPES = [
  'fit_started',
  'fit_completed',
  'recommendation_generated',
  'recommendation_accepted',
  'recommendation_overridden',
] as const;

export const ORDER_OUTCOMES: readonly IntegrationType[] = ['purchase', 'return_requested', 'size_exchange', 'item_kept'];
export const WITH_REASON: readonly IntegrationType[] = ['return_requested', 'size_exchange'];

/** Every field of a stored event, in any order. */
export const EVENT_FIELDS = [
  'id',
  'store_id',
  'source',
  'external_id',
  'type',
  'product_id',
  'variant_id',
  'session_id',
  'order_id',
  'line_item_id',
  'reason',
  'fit_feedback',
  'new_variant_id',
  'quantity',
  'occurred_at',
  'received_at',
].sort();

export interface StoredEvent {
  id: string;
  store_id: string;
  source: string;
  external_id: string;
  type: string;
  product_id: string | null;
  variant_id: string | null;
  session_id: string | null;
  order_id: string | null;
  line_item_id: string | null;
  reason: 'size' | 'other' | null;
  fit_feedback: 'too_small' | 'too_large' | null;
  new_variant_id: string | null;
  quantity: number | null;
  occurred_at: string;
  received_at: string;
}

export type EventBody = Record<string, unknown>;

let counter = 0;
/** A delivery id no other test uses. */
export const uniqueId = (prefix = 'evt') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

/** The instant `ms` milliseconds before now, as the API writes it (UTC, milliseconds). */
export const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
/** The instant `ms` milliseconds after now. */
export const ahead = (ms: number): string => new Date(Date.now() + ms).toISOString();
export const minutes = (n: number) => n * MINUTE;

/** The same instant as `iso` written with a `±HH:MM` offset of `offsetMinutes` (and milliseconds unless `fraction` is false). */
export function withOffset(iso: string, offsetMinutes: number, fraction = true): string {
  const instant = new Date(iso);
  const local = new Date(instant.getTime() + offsetMinutes * MINUTE).toISOString();
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${fraction ? local.slice(0, 23) : local.slice(0, 19)}${offset}`;
}

/** The instant one calendar year before now, moved by `deltaMs`. */
export function oneYearAgo(deltaMs = 0): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return new Date(d.getTime() + deltaMs).toISOString();
}

/**
 * A valid body for an event of `type` on the shop's product (size M), with a fresh delivery key: the order
 * outcomes carry the product, variant, order and line they need, returns and exchanges a reason.
 */
export function eventBody(
  type: IntegrationType | string,
  shop: Pick<Shop, 'productId' | 'variants'>,
  overrides: EventBody = {},
): EventBody {
  const body: EventBody = {
    source: 'shopify-app',
    external_id: uniqueId(type),
    type,
    occurred_at: ago(minutes(1)),
  };
  if ((ORDER_OUTCOMES as readonly string[]).includes(type)) {
    Object.assign(body, {
      product_id: shop.productId,
      variant_id: shop.variants.M,
      order_id: `order-${counter}`,
      line_item_id: `line-${counter}`,
    });
  }
  if ((WITH_REASON as readonly string[]).includes(type)) body.reason = 'size';
  return { ...body, ...overrides };
}

/** `body` without the named fields. */
export function without(body: object, ...fields: string[]): EventBody {
  const copy: EventBody = { ...body };
  for (const field of fields) delete copy[field];
  return copy;
}

/**
 * Makes every insert into `events` whose `external_id` starts with `prefix` fail inside the database, runs `body`,
 * and removes the failure again whatever happens. Only those deliveries are affected, so other tests (and other
 * suites sharing a PostgreSQL database) never see it.
 */
export async function withFailingInsertOf(t: TestApp, prefix: string, body: () => Promise<void>): Promise<void> {
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error('withFailingInsertOf: unexpected prefix');
  await withFailingEventInsertWhere(t, prefix.replace(/-/g, '_'), `NEW.external_id LIKE '${prefix}%'`, body);
}

/** One item's answer in a batch: the stored event, or the problem that refused it. */
export interface BatchResult {
  status: number;
  event?: StoredEvent;
  error?: { type: string; title: string; status: number; code: string; errors?: { field: string; code: string }[] };
}

/**
 * The events endpoints on the app `t`, as the events specs call them: `…Raw` sends one request and returns whatever
 * the service answered; `deliver`, `startSession`, `listAll` and `delivered` expect success. Call it in a `describe`
 * block (after `useApp`); use what it returns in tests.
 */
export function eventsApi(t: TestApp) {
  const eventsPath = (storeId: string) => `/v1/stores/${storeId}/events`;
  const postRaw = (shop: Shop, body: unknown, secret = shop.secret) =>
    t
      .http()
      .post(eventsPath(shop.storeId))
      .set(bearer(secret))
      .send(body as object);
  const batchRaw = (shop: Shop, body: unknown, secret = shop.secret) =>
    t
      .http()
      .post(`${eventsPath(shop.storeId)}/batch`)
      .set(bearer(secret))
      .send(body as object);
  const listRaw = (shop: Shop, query = '', secret = shop.secret) =>
    t
      .http()
      .get(`${eventsPath(shop.storeId)}${query}`)
      .set(bearer(secret));

  /** A fresh merchant and store with the shop's catalog (product with S/M/L/XL); calls use the admin key. */
  const newShop = (): Promise<Shop & { tenant: Tenant }> => newMetricsShop(t);

  /** Never a 5xx, whatever the request. */
  function expectNoServerError(response: Response): void {
    if (response.status >= 500) expect({ status: response.status, body: response.body }).toEqual({ status: '< 500' });
  }

  /** A first delivery: 201 with the stored event. */
  async function deliver(shop: Shop, body: EventBody, secret = shop.secret): Promise<StoredEvent> {
    const response = await postRaw(shop, body, secret);
    // on failure, show the problem the service answered rather than a bare status
    if (response.status !== 201) expect({ status: response.status, body: response.body }).toEqual({ status: 201 });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectWellFormed(response.body, shop);
    return response.body as StoredEvent;
  }

  async function startSession(shop: Shop, productId = shop.productId): Promise<Session> {
    const response = await t.http().post(`/v1/stores/${shop.storeId}/sessions`).set(bearer(shop.secret)).send({ product_id: productId });
    expect(response.status).toBe(201);
    return response.body as Session;
  }

  /** Every event of the store the list answers for `query`, following the cursor, newest first. */
  async function listAll(shop: Shop, query = ''): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const separator = query ? '&' : '?';
      const suffix: string = cursor ? `${query}${separator}starting_after=${cursor}` : query;
      const response = await listRaw(shop, `${suffix}${suffix ? '&' : '?'}limit=100`);
      expect(response.status).toBe(200);
      events.push(...(response.body.data as StoredEvent[]));
      if (!response.body.has_more) return events;
      cursor = response.body.next_cursor as string;
    }
    throw new Error('listAll: too many pages');
  }

  /** The integration's events of the store (the service's own ones left out). */
  const delivered = async (shop: Shop, query = '') => (await listAll(shop, query)).filter((e) => e.source !== 'size-fit');

  function expectWellFormed(event: StoredEvent, shop: Shop): void {
    expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
    expect(typeof event.id).toBe('string');
    expect(event.store_id).toBe(shop.storeId);
    expect(event.occurred_at).toMatch(TIMESTAMP);
    expect(event.received_at).toMatch(TIMESTAMP);
  }

  /** What a delivery of `body` is stored as, without its id and arrival time. */
  function storedForm(shop: Shop, body: EventBody) {
    const value = (field: string) => (body[field] === undefined ? null : body[field]);
    return {
      store_id: shop.storeId,
      source: body.source,
      external_id: body.external_id,
      type: body.type,
      product_id: value('product_id'),
      variant_id: value('variant_id'),
      session_id: value('session_id'),
      order_id: value('order_id'),
      line_item_id: value('line_item_id'),
      reason: value('reason'),
      fit_feedback: value('fit_feedback'),
      new_variant_id: typeof body.new_variant_id === 'string' ? body.new_variant_id.toLowerCase() : value('new_variant_id'),
      quantity: body.quantity ?? 1,
      occurred_at: new Date(body.occurred_at as string).toISOString(),
    };
  }

  return {
    eventsPath,
    postRaw,
    batchRaw,
    listRaw,
    newShop,
    expectNoServerError,
    deliver,
    startSession,
    listAll,
    delivered,
    expectWellFormed,
    storedForm,
  };
}
