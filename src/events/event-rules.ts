import { sha256 } from '../common/crypto/sha256.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { finerThanMilliseconds, parseRfc3339 } from '../common/validation/rfc3339.js';
import type { EventRequest } from './dto/event.dto.js';
import { type FitFeedback, type Reason, SERVICE_SOURCE } from './event.entity.js';
import {
  BUYING_TYPES,
  INTEGRATION_EVENT_TYPES,
  type IntegrationEventType,
  NEW_SIZE_TYPES,
  ORDER_OUTCOME_TYPES,
  REASON_TYPES,
  SERVICE_EVENT_TYPES,
} from './event-types.js';

/** An event that passed every rule that does not depend on the clock or the store: the form it is stored in. */
export interface EventDraft {
  readonly source: string;
  readonly externalId: string;
  readonly type: IntegrationEventType;
  readonly productId: string | null;
  readonly variantId: string | null;
  readonly sessionId: string | null;
  readonly orderId: string | null;
  readonly lineItemId: string | null;
  readonly reason: Reason | null;
  readonly fitFeedback: FitFeedback | null;
  readonly newVariantId: string | null;
  readonly quantity: number;
  readonly occurredAt: Date;
  /** The shopper a purchase names, as sent: digested with the store's key before it is stored, never stored as is. */
  readonly shopperRef: string | null;
  /** SHA-256 of the canonical form: equal digests mean identical deliveries. */
  readonly sha256: Buffer;
}

/** An event's delivery key within its store (source, external_id), as one string. */
export const deliveryKey = (source: string, externalId: string) => JSON.stringify([source, externalId]);

/**
 * The rules between an event's fields. The result is the stored form: absent and `null` are both `null`, `quantity`
 * defaults to 1, ids are lower-case, and `occurred_at` is an instant, so that two deliveries that mean the same event
 * have the same digest however they were spelled.
 */
export function draftEvent(request: EventRequest): EventDraft {
  const type = request.type;
  if ((SERVICE_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new ProblemError('event_type_reserved', `${type} is recorded by the service itself; it cannot be sent`, [
      { field: 'type', code: 'reserved', message: `${type} is recorded by the service itself` },
    ]);
  }
  const errors: FieldError[] = [];
  const fail = (field: string, code: string, message: string) => errors.push({ field, code, message });

  if (!(INTEGRATION_EVENT_TYPES as readonly string[]).includes(type)) {
    fail('type', 'not_allowed_value', `type must be one of ${INTEGRATION_EVENT_TYPES.join(', ')}`);
  }
  if (request.source === SERVICE_SOURCE) {
    fail('source', 'reserved', `source ${SERVICE_SOURCE} is reserved for the events the service records itself`);
  }
  if (ORDER_OUTCOME_TYPES.includes(type)) {
    for (const field of ['product_id', 'variant_id', 'order_id', 'line_item_id'] as const) {
      if (request[field] == null) fail(field, 'required', `${field} is required on ${type} events`);
    }
  }
  if (REASON_TYPES.includes(type)) {
    if (request.reason == null) fail('reason', 'required', `reason (size or other) is required on ${type} events`);
  } else if (request.reason != null) {
    fail('reason', 'not_allowed_for_type', `reason is only sent with ${REASON_TYPES.join(' and ')} events`);
  }
  if (request.fit_feedback != null && !(REASON_TYPES.includes(type) && request.reason === 'size')) {
    fail('fit_feedback', 'not_allowed_for_type', `fit_feedback is only sent with reason size on ${REASON_TYPES.join(' and ')} events`);
  }
  if (request.new_variant_id != null) {
    if (!NEW_SIZE_TYPES.includes(type)) {
      fail('new_variant_id', 'not_allowed_for_type', `new_variant_id is only sent with ${NEW_SIZE_TYPES.join(' and ')} events`);
    } else if (request.variant_id != null && request.new_variant_id.toLowerCase() === request.variant_id.toLowerCase()) {
      fail('new_variant_id', 'same_variant', 'new_variant_id must be another variant than variant_id');
    }
  }
  if (request.shopper_ref != null && !BUYING_TYPES.includes(type)) {
    fail('shopper_ref', 'not_allowed_for_type', `shopper_ref is only sent with ${BUYING_TYPES.join(' and ')} events`);
  }
  if (finerThanMilliseconds(request.occurred_at)) {
    fail('occurred_at', 'too_precise', 'occurred_at must have at most millisecond precision');
  }
  if (errors.length) throw ProblemError.validation(errors);

  const lower = (id: string | null | undefined) => (id == null ? null : id.toLowerCase());
  const fields = {
    source: request.source,
    externalId: request.external_id,
    type: type as IntegrationEventType,
    productId: lower(request.product_id),
    variantId: lower(request.variant_id),
    sessionId: lower(request.session_id),
    orderId: request.order_id ?? null,
    lineItemId: request.line_item_id ?? null,
    reason: request.reason ?? null,
    fitFeedback: request.fit_feedback ?? null,
    newVariantId: lower(request.new_variant_id),
    quantity: request.quantity ?? 1,
    occurredAt: parseRfc3339(request.occurred_at) as Date,
    shopperRef: request.shopper_ref ?? null,
  };
  return { ...fields, sha256: canonicalDigest(fields) };
}

/**
 * The canonical form: a JSON array of the stored fields in a fixed order. Version 1 is the form of every event that
 * carries neither `fit_feedback` nor `new_variant_id` nor `shopper_ref` (so deliveries stored before those fields
 * existed keep their digests); version 2 appends the first two; version 3, a purchase naming its shopper, all three.
 */
function canonicalDigest(event: Omit<EventDraft, 'sha256'>): Buffer {
  const version = event.shopperRef !== null ? 3 : event.fitFeedback !== null || event.newVariantId !== null ? 2 : 1;
  const directed = version > 1;
  const canonical = JSON.stringify([
    version,
    event.source,
    event.externalId,
    event.type,
    event.productId,
    event.variantId,
    event.sessionId,
    event.orderId,
    event.lineItemId,
    event.reason,
    event.quantity,
    event.occurredAt.toISOString(),
    ...(directed ? [event.fitFeedback, event.newVariantId] : []),
    ...(version === 3 ? [event.shopperRef] : []),
  ]);
  return sha256(canonical);
}

/** The clock's rules: not older than one calendar year, at most five minutes ahead. */
export function checkOccurredAt(occurredAt: Date, now: Date): FieldError | null {
  const earliest = new Date(now);
  earliest.setUTCFullYear(earliest.getUTCFullYear() - 1);
  if (occurredAt < earliest) {
    return { field: 'occurred_at', code: 'too_old', message: 'occurred_at must be within the last year' };
  }
  if (occurredAt.getTime() > now.getTime() + 5 * 60_000) {
    return {
      field: 'occurred_at',
      code: 'too_far_in_future',
      message: 'occurred_at must be at most five minutes in the future',
    };
  }
  return null;
}
