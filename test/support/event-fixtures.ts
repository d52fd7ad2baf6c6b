import type { TestApp } from './app.js';
import { type Shop, withFailingEventInsertWhere } from './session-fixtures.js';

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
