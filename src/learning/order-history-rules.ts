import type { FieldError } from '../common/problems/problem-error.js';
import { isPlainObject } from '../common/validation/plain-object.js';
import { finerThanMilliseconds, parseRfc3339 } from '../common/validation/rfc3339.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { NEW_SIZE_TYPES, REASON_TYPES } from '../events/event-types.js';
import type { Evidence } from '../sizing/learning.js';
import { HistoryOutcomeRequest, type HistoryOutcomeType, OrderHistoryLineRequest } from './dto/order-history.dto.js';
import { evidenceOf, type Outcome, teachesFit } from './evidence-rules.js';
import type { HistoryCatalog } from './order-history.repository.js';

/** An imported line that passed every rule but the store's: the form it is taught in (ids lower-case, times instants). */
export interface HistoryLine {
  /** Its position in the request. */
  readonly index: number;
  readonly orderId: string;
  readonly lineItemId: string;
  readonly productId: string;
  readonly variantId: string;
  readonly shopperRef: string | null;
  readonly purchasedAt: Date;
  readonly outcome: Outcome & { readonly type: HistoryOutcomeType; readonly newVariantId: string | null };
}

/** How far ahead of the service's clock a time may be, as for events: a sender's clock may run a little fast. */
const CLOCK_SKEW_MS = 5 * 60_000;

const lower = (id: string | null | undefined): string | null => (id == null ? null : id.toLowerCase());
const at = (field: string, errors: readonly FieldError[]): FieldError[] => errors.map((e) => ({ ...e, field: `${field}${e.field}` }));

/**
 * The request's lines read under the DTOs' rules (the validation pipe's codes and messages, unknown fields refused at
 * every level) and the rules between their fields; every error names its line (`lines[3].outcome.occurred_at`).
 */
export async function readHistoryLines(items: readonly unknown[], now: Date): Promise<{ lines: HistoryLine[]; errors: FieldError[] }> {
  const lines: HistoryLine[] = [];
  const errors: FieldError[] = [];
  for (const [index, item] of items.entries()) {
    const read = await readLine(item, index, now);
    if ('errors' in read) errors.push(...at(`lines[${index}]`, read.errors));
    else lines.push(read);
  }
  return { lines, errors };
}

async function readLine(item: unknown, index: number, now: Date): Promise<HistoryLine | { errors: FieldError[] }> {
  if (!isPlainObject(item)) return { errors: [{ field: '', code: 'must_be_object', message: 'each line must be an object' }] };
  const line = await validateObject(OrderHistoryLineRequest, item);
  if (!line.ok) return { errors: line.errors.map((e) => ({ ...e, field: `.${e.field}` })) };
  const outcome = await validateObject(HistoryOutcomeRequest, line.value.outcome);
  if (!outcome.ok) return { errors: outcome.errors.map((e) => ({ ...e, field: `.outcome.${e.field}` })) };
  const errors = fieldRules(line.value, outcome.value, now);
  if (errors.length) return { errors };
  const { value: l } = line;
  const { value: o } = outcome;
  return {
    index,
    orderId: l.order_id,
    lineItemId: l.line_item_id,
    productId: l.product_id.toLowerCase(),
    variantId: l.variant_id.toLowerCase(),
    shopperRef: l.shopper_ref ?? null,
    purchasedAt: parseRfc3339(l.purchased_at) as Date,
    outcome: {
      type: o.type,
      reason: o.reason ?? null,
      fitFeedback: o.fit_feedback ?? null,
      newVariantId: lower(o.new_variant_id),
      occurredAt: parseRfc3339(o.occurred_at) as Date,
    },
  };
}

/** The rules between a line's fields, as events have them, and the clock's: fields relative to the line (`.outcome.reason`). */
function fieldRules(line: OrderHistoryLineRequest, outcome: HistoryOutcomeRequest, now: Date): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (field: string, code: string, message: string) => errors.push({ field: `.${field}`, code, message });
  const { type } = outcome;
  if (REASON_TYPES.includes(type)) {
    if (outcome.reason == null) fail('outcome.reason', 'required', `outcome.reason (size or other) is required on ${type}`);
  } else if (outcome.reason != null) {
    fail('outcome.reason', 'not_allowed_for_type', `outcome.reason is only sent with ${REASON_TYPES.join(' and ')}`);
  }
  if (outcome.fit_feedback != null && !(REASON_TYPES.includes(type) && outcome.reason === 'size')) {
    fail(
      'outcome.fit_feedback',
      'not_allowed_for_type',
      `outcome.fit_feedback is only sent with reason size on ${REASON_TYPES.join(' and ')}`,
    );
  }
  if (outcome.new_variant_id != null) {
    if (!NEW_SIZE_TYPES.includes(type)) {
      fail('outcome.new_variant_id', 'not_allowed_for_type', `outcome.new_variant_id is only sent with ${NEW_SIZE_TYPES.join(' and ')}`);
    } else if (outcome.new_variant_id.toLowerCase() === line.variant_id.toLowerCase()) {
      fail('outcome.new_variant_id', 'same_variant', 'outcome.new_variant_id must be another variant than variant_id');
    }
  }
  const times = { purchased_at: line.purchased_at, 'outcome.occurred_at': outcome.occurred_at };
  for (const [field, text] of Object.entries(times)) {
    if (finerThanMilliseconds(text)) fail(field, 'too_precise', `${field} must have at most millisecond precision`);
    else if ((parseRfc3339(text) as Date).getTime() > now.getTime() + CLOCK_SKEW_MS) {
      fail(field, 'too_far_in_future', `${field} must not be in the future`);
    }
  }
  if ((parseRfc3339(outcome.occurred_at) as Date) < (parseRfc3339(line.purchased_at) as Date)) {
    fail('outcome.occurred_at', 'before_purchase', 'outcome.occurred_at must not be before purchased_at');
  }
  return errors;
}

/**
 * The rules against the store's catalog: the product and the variants are the store's (another store's read as
 * unknown: nothing says they exist), the variants of the product.
 */
export function checkAgainstCatalog(lines: readonly HistoryLine[], catalog: HistoryCatalog): FieldError[] {
  return lines.flatMap((line) => {
    const errors: FieldError[] = [];
    const field = (name: string) => `lines[${line.index}].${name}`;
    if (!catalog.products.has(line.productId)) {
      errors.push({ field: field('product_id'), code: 'not_found', message: 'product_id names nothing in this store' });
    }
    for (const [name, id] of [
      ['variant_id', line.variantId],
      ['outcome.new_variant_id', line.outcome.newVariantId],
    ] as const) {
      if (id === null) continue;
      const variant = catalog.variants.get(id);
      if (variant === undefined) errors.push({ field: field(name), code: 'not_found', message: `${name} names nothing in this store` });
      else if (variant.productId !== line.productId && catalog.products.has(line.productId)) {
        errors.push({ field: field(name), code: 'not_of_product', message: `${name} is a variant of another product` });
      }
    }
    return errors;
  });
}

/**
 * What a line's outcome says, read against its product's chart: evidence; nothing, though it is an outcome of the line
 * (a chart of one size, a size no longer on it: it still replaces what the line taught, as its event would); or no
 * outcome of fit at all (a return for another reason: like its event, it leaves the line as it is).
 */
export type Reading = { readonly productTypeId: string } & (
  { readonly kind: 'evidence'; readonly evidence: Evidence } | { readonly kind: 'nothing' | 'no_outcome'; readonly reason: string }
);

/**
 * The evidence of a line's outcome, as an event of it would give for a line bought without a fit session: measured
 * from the size bought, at the outcome's own date. A line of a checked catalog (`checkAgainstCatalog`).
 */
export function readingOf(line: HistoryLine, catalog: HistoryCatalog): Reading {
  const product = catalog.products.get(line.productId);
  if (product === undefined || !catalog.variants.has(line.variantId)) throw new Error('readingOf: a line of an unchecked catalog');
  const { productTypeId, labels } = product;
  if (!teachesFit(line.outcome)) {
    return { productTypeId, kind: 'no_outcome', reason: OTHER_REASON[line.outcome.type] ?? 'the outcome says nothing about fit' };
  }
  if (labels.length < 2) {
    return { productTypeId, kind: 'nothing', reason: 'the product’s size chart has a single size: no other size could have fitted' };
  }
  const position = (id: string | null) => {
    const label = id === null ? undefined : catalog.variants.get(id)?.sizeLabel;
    const found = label === undefined ? -1 : labels.indexOf(label);
    return found < 0 ? null : found + 1;
  };
  const bought = position(line.variantId);
  if (bought === null)
    return { productTypeId, kind: 'nothing', reason: 'the size of the variant bought is not on the product’s size chart' };
  const sizes = { bought, exchangedTo: position(line.outcome.newVariantId), recommended: null, count: labels.length };
  return { productTypeId, kind: 'evidence', evidence: evidenceOf(line.outcome, sizes) as Evidence };
}

/** Why an outcome for a reason other than size teaches nothing (a kept item always teaches). */
const OTHER_REASON: Readonly<Partial<Record<HistoryOutcomeType, string>>> = {
  return_requested: 'a return for a reason other than size says nothing about fit',
  size_exchange: 'an exchange for a reason other than size says nothing about fit',
};

/** Why a line teaches nothing when its line was bought in another variant. */
export const BOUGHT_OTHER_VARIANT =
  'the line was bought in another variant (its first purchase, reported as an event or imported before): an outcome of this one teaches nothing';
