import { parseRfc3339 } from '../../common/validation/rfc3339.js';
import { FIT_FEEDBACK, REASONS } from '../event.entity.js';
import { EventRequest, MAX_QUANTITY } from './event.dto.js';

/**
 * A fast path for the items of a batch: class-validator rebuilds its metadata for every object it validates, which
 * was the largest cost of a 500-event batch after garbage collection. This check accepts only events that are
 * well-formed under EventRequest's decorators, with stricter spellings where exactness would be costly (printable
 * ASCII text, whose length is its character count), and answers `null` for anything else, which then goes through
 * class-validator as before, so every refusal keeps its codes and messages. It never accepts what the pipe refuses
 * (event-fast-path.spec.ts checks that on generated events).
 */
const FIELDS: ReadonlySet<string> = new Set([
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
  'shopper_ref',
]);
/** Printable ASCII with at least one non-space character (so `Length` counts exactly `length`, and `/\S/` holds). */
const TEXT = /^[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*$/;
/** validator.js's isUUID(…, 'all'), as @IsUUID('all') applies it. */
const UUID =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;

const text = (value: unknown, max: number) => typeof value === 'string' && value.length <= max && TEXT.test(value);
const optional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || value === null || check(value);
const uuid = (value: unknown) => typeof value === 'string' && UUID.test(value);

export function readWellFormedEvent(item: object): EventRequest | null {
  const value = item as Record<string, unknown>;
  for (const key in value) if (!Object.hasOwn(value, key) || !FIELDS.has(key)) return null;
  const ok =
    text(value.source, 100) &&
    text(value.external_id, 200) &&
    typeof value.type === 'string' &&
    optional(value.product_id, uuid) &&
    optional(value.variant_id, uuid) &&
    optional(value.session_id, uuid) &&
    optional(value.order_id, (v) => text(v, 200)) &&
    optional(value.line_item_id, (v) => text(v, 200)) &&
    optional(value.reason, (v) => (REASONS as readonly unknown[]).includes(v)) &&
    optional(value.fit_feedback, (v) => (FIT_FEEDBACK as readonly unknown[]).includes(v)) &&
    optional(value.new_variant_id, uuid) &&
    optional(value.quantity, (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_QUANTITY) &&
    parseRfc3339(value.occurred_at) !== null &&
    optional(value.shopper_ref, (v) => text(v, 200));
  // What plainToInstance(EventRequest, item) gives for a JSON object without nested objects.
  return ok ? Object.assign(new EventRequest(), value) : null;
}
