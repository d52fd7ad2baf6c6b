/**
 * The platform's order notifications read into order-line outcomes (docs/platform-sync.md). Pure: no I/O. Ids are the
 * platform's (strings, or integers the platform may send as numbers); every field of an outcome comes from the payload,
 * never from the clock, so that a redelivery reads into the very same outcomes and the events they become are
 * answered as duplicates.
 */

import { platformId, type ShopProduct, shopProduct } from './shop-products.js';

const ORDER_TOPICS = ['orders/paid', 'returns/requested', 'exchanges/created'] as const;
export type OrderTopic = (typeof ORDER_TOPICS)[number];
export const isOrderTopic = (topic: string): topic is OrderTopic => (ORDER_TOPICS as readonly string[]).includes(topic);

/** The cart-line property the storefront sets to the fit session whose decision put the size in the cart. */
const SESSION_PROPERTY = '_size_fit_session';

export interface LineOutcome {
  readonly type: 'purchase' | 'return_requested' | 'size_exchange';
  /** Unique per outcome on the platform, and the same on every delivery: the event's `external_id`. */
  readonly externalId: string;
  readonly orderId: string;
  readonly lineItemId: string;
  readonly productId: string;
  readonly variantId: string;
  readonly quantity: number;
  readonly occurredAt: string;
  /** Returns and exchanges: size when the platform's reason is about size, else other. */
  readonly reason: 'size' | 'other' | null;
  /** Which way the size was wrong, when the platform's reason says (SIZE_TOO_SMALL, SIZE_TOO_LARGE). */
  readonly fitFeedback: 'too_small' | 'too_large' | null;
  /** Purchases: the session the storefront put on the line, when it is a session id. */
  readonly sessionId: string | null;
  /** Purchases: the order's customer (the platform's id), when the order names one. */
  readonly customerId: string | null;
}

/** A payload without the fields its topic promises: kept and shown as unreadable, never retried. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIZE_REASONS: Readonly<Record<string, 'too_small' | 'too_large'>> = { SIZE_TOO_SMALL: 'too_small', SIZE_TOO_LARGE: 'too_large' };

const PRODUCT_TOPICS = ['products/create', 'products/update', 'products/delete'] as const;
export type ProductTopic = (typeof PRODUCT_TOPICS)[number];
export const isProductTopic = (topic: string): topic is ProductTopic => (PRODUCT_TOPICS as readonly string[]).includes(topic);

/** What a product notification says: the product as it is now, or the id of the product deleted. */
type ProductChange = { readonly deleted: false; readonly product: ShopProduct } | { readonly deleted: true; readonly platformId: string };

/** Reads a product notification; throws PayloadError when it has no product id. */
export function productChange(topic: ProductTopic, payload: unknown): ProductChange {
  const body = new Fields(payload, '');
  if (topic === 'products/delete') return { deleted: true, platformId: body.id('id') };
  body.id('id');
  return { deleted: false, product: shopProduct(payload) as ShopProduct };
}

/** The customer a privacy request names (\`customer.id\`); throws PayloadError without one. */
export function customerOf(payload: unknown): string {
  return new Fields(payload, '').object('customer').id('id');
}

/** The outcomes a notification reports, line by line; throws PayloadError when it does not have its topic's shape. */
export function lineOutcomes(topic: OrderTopic, payload: unknown): LineOutcome[] {
  const body = new Fields(payload, '');
  if (topic === 'orders/paid') {
    const orderId = body.id('id');
    const occurredAt = body.timestamp('processed_at');
    const customer = body.optional('customer');
    const customerId = customer === null ? null : customer.id('id');
    return body.list('line_items').map((line) => {
      const lineItemId = line.id('id');
      return {
        type: 'purchase',
        externalId: `purchase:${orderId}:${lineItemId}`,
        orderId,
        lineItemId,
        productId: line.id('product_id'),
        variantId: line.id('variant_id'),
        quantity: line.quantity(),
        occurredAt,
        reason: null,
        fitFeedback: null,
        sessionId: sessionOf(line.raw('properties')),
        customerId,
      };
    });
  }
  const [type, prefix, at, items, reasonField] =
    topic === 'returns/requested'
      ? (['return_requested', 'return', 'requested_at', 'return_line_items', 'return_reason'] as const)
      : (['size_exchange', 'exchange', 'created_at', 'exchange_line_items', 'reason'] as const);
  const ownId = body.id('id');
  const orderId = body.id('order_id');
  const occurredAt = body.timestamp(at);
  return body.list(items).map((entry) => {
    const line = entry.object('line_item');
    const reason = entry.raw(reasonField);
    const direction = typeof reason === 'string' ? (SIZE_REASONS[reason] ?? null) : null;
    return {
      type,
      externalId: `${prefix}:${ownId}:${entry.id('id')}`,
      orderId,
      lineItemId: line.id('id'),
      productId: line.id('product_id'),
      variantId: line.id('variant_id'),
      quantity: entry.quantity(),
      occurredAt,
      reason: typeof reason === 'string' && reason.startsWith('SIZE_') ? 'size' : 'other',
      fitFeedback: direction,
      sessionId: null,
      customerId: null,
    };
  });
}

function sessionOf(properties: unknown): string | null {
  if (!Array.isArray(properties)) return null;
  for (const property of properties as unknown[]) {
    if (typeof property !== 'object' || property === null) continue;
    const { name, value } = property as { name?: unknown; value?: unknown };
    if (name === SESSION_PROPERTY && typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
  }
  return null;
}

/** A JSON object's fields, read with the path of each one in the error that names a missing or wrong one. */
class Fields {
  private readonly value: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly path: string,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PayloadError(`${path || 'the body'}: not an object`);
    this.value = value as Record<string, unknown>;
  }

  raw(name: string): unknown {
    return Object.hasOwn(this.value, name) ? this.value[name] : undefined;
  }

  object(name: string): Fields {
    return new Fields(this.raw(name), this.at(name));
  }

  optional(name: string): Fields | null {
    const value = this.raw(name);
    return value === undefined || value === null ? null : new Fields(value, this.at(name));
  }

  list(name: string): Fields[] {
    const value = this.raw(name);
    if (!Array.isArray(value)) throw new PayloadError(`${this.at(name)}: not a list`);
    return value.map((item, index) => new Fields(item, `${this.at(name)}[${index}]`));
  }

  id(name: string): string {
    const id = platformId(this.raw(name));
    if (id === null) throw new PayloadError(`${this.at(name)}: not an id`);
    return id;
  }

  timestamp(name: string): string {
    const value = this.raw(name);
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new PayloadError(`${this.at(name)}: not a timestamp`);
    return new Date(value).toISOString();
  }

  /** The line's quantity; 1 when the platform leaves it out or sends something else. */
  quantity(): number {
    const value = this.raw('quantity');
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : 1;
  }

  private at(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }
}
