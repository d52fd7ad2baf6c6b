/**
 * The platform's order webhooks, read into the order outcomes Size-Fit counts. The platform sends (in the style of
 * Shopify; ids as strings):
 *
 *   X-Shop-Topic: orders/paid
 *   { "id": "1001", "processed_at": "…", "customer": { "id": "7310" }, "line_items": [
 *       { "id": "1", "product_id": "gid-1001", "variant_id": "gid-1001-M", "quantity": 1,
 *         "properties": [{ "name": "_size_fit_session", "value": "<the token the decision answered>" }] } ] }
 *
 *   X-Shop-Topic: returns/requested
 *   { "id": "R7", "order_id": "1001", "requested_at": "…", "return_line_items": [
 *       { "id": "RL1", "quantity": 1, "return_reason": "SIZE_TOO_SMALL",
 *         "line_item": { "id": "1", "product_id": "gid-1001", "variant_id": "gid-1001-M" } } ] }
 *
 *   X-Shop-Topic: exchanges/created
 *   { "id": "X3", "order_id": "1001", "created_at": "…", "exchange_line_items": [
 *       { "id": "XL1", "quantity": 1, "reason": "SIZE_TOO_LARGE",
 *         "line_item": { "id": "1", "product_id": "gid-1001", "variant_id": "gid-1001-M" } } ] }
 *
 * `customer` is absent or null for an order of a customer the platform does not name.
 *
 * Every field of an event comes from the webhook itself (ids, timestamps), never from the clock: a redelivery
 * builds the very same events, whose `external_id` is derived from the platform's ids, so the service answers it 200
 * with the stored event and counts nothing twice.
 */

export type Topic = 'orders/paid' | 'returns/requested' | 'exchanges/created';
export const TOPICS: readonly Topic[] = ['orders/paid', 'returns/requested', 'exchanges/created'];

export function isTopic(value: string | undefined): value is Topic {
  return TOPICS.some((topic) => topic === value);
}

/** One order line's outcome, in the platform's ids. */
export interface LineOutcome {
  readonly type: 'purchase' | 'return_requested' | 'size_exchange';
  /** Unique per outcome on the platform: the event's `external_id`. */
  readonly externalId: string;
  readonly orderId: string;
  readonly lineItemId: string;
  readonly productId: string;
  readonly variantId: string;
  readonly quantity: number;
  readonly occurredAt: string;
  /** Returns and exchanges: whether the shopper gave size as the reason. */
  readonly reason: 'size' | 'other' | null;
  /** Purchases: the `_size_fit_session` cart property, as the storefront set it (not yet verified). */
  readonly sessionToken: string | null;
  /** Purchases: the order's customer (the platform's id), when it names one. */
  readonly customerId: string | null;
}

export const SESSION_PROPERTY = '_size_fit_session';

export class WebhookPayloadError extends Error {}

/** The outcomes a webhook reports; throws WebhookPayloadError when the payload does not have its topic's shape. */
export function lineOutcomes(topic: Topic, payload: unknown): LineOutcome[] {
  const body = record(payload, 'body');
  switch (topic) {
    case 'orders/paid': {
      const orderId = id(body.id, 'id');
      const occurredAt = timestamp(body.processed_at, 'processed_at');
      const customerId =
        body.customer === undefined || body.customer === null ? null : id(record(body.customer, 'customer').id, 'customer.id');
      return list(body.line_items, 'line_items').map((item, index) => {
        const line = record(item, `line_items[${index}]`);
        const lineItemId = id(line.id, `line_items[${index}].id`);
        return {
          type: 'purchase',
          externalId: `purchase:${orderId}:${lineItemId}`,
          orderId,
          lineItemId,
          productId: id(line.product_id, `line_items[${index}].product_id`),
          variantId: id(line.variant_id, `line_items[${index}].variant_id`),
          quantity: quantity(line.quantity),
          occurredAt,
          reason: null,
          sessionToken: sessionProperty(line.properties),
          customerId,
        };
      });
    }
    case 'returns/requested':
      return followUps(body, 'return_requested', 'return', 'requested_at', 'return_line_items', 'return_reason');
    case 'exchanges/created':
      return followUps(body, 'size_exchange', 'exchange', 'created_at', 'exchange_line_items', 'reason');
  }
}

function followUps(
  body: Record<string, unknown>,
  type: 'return_requested' | 'size_exchange',
  prefix: string,
  at: string,
  items: string,
  reasonField: string,
): LineOutcome[] {
  const ownId = id(body.id, 'id');
  const orderId = id(body.order_id, 'order_id');
  const occurredAt = timestamp(body[at], at);
  return list(body[items], items).map((item, index) => {
    const entry = record(item, `${items}[${index}]`);
    const line = record(entry.line_item, `${items}[${index}].line_item`);
    const reason = entry[reasonField];
    return {
      type,
      externalId: `${prefix}:${ownId}:${id(entry.id, `${items}[${index}].id`)}`,
      orderId,
      lineItemId: id(line.id, `${items}[${index}].line_item.id`),
      productId: id(line.product_id, `${items}[${index}].line_item.product_id`),
      variantId: id(line.variant_id, `${items}[${index}].line_item.variant_id`),
      quantity: quantity(entry.quantity),
      occurredAt,
      // The platform's reasons SIZE_TOO_SMALL and SIZE_TOO_LARGE are about size; any other is not.
      reason: typeof reason === 'string' && reason.startsWith('SIZE_') ? 'size' : 'other',
      sessionToken: null,
      customerId: null,
    };
  });
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WebhookPayloadError(`${field}: not an object`);
  return Object.fromEntries(Object.entries(value));
}

function list(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new WebhookPayloadError(`${field}: not a list`);
  return value;
}

function id(value: unknown, field: string): string {
  if (typeof value === 'string' && value.length > 0 && value.length <= 150) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw new WebhookPayloadError(`${field}: not an id`);
}

function timestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new WebhookPayloadError(`${field}: not a timestamp`);
  return new Date(value).toISOString();
}

function quantity(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : 1;
}

function sessionProperty(properties: unknown): string | null {
  if (!Array.isArray(properties)) return null;
  for (const property of properties) {
    if (typeof property !== 'object' || property === null) continue;
    if ('name' in property && property.name === SESSION_PROPERTY && 'value' in property && typeof property.value === 'string')
      return property.value;
  }
  return null;
}
