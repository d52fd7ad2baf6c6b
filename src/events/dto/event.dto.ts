import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import type { ProblemBody } from '../../common/problems/problem-details.filter.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsRfc3339 } from '../../common/validation/rfc3339.js';
import { IsText } from '../../common/validation/text.js';
import { productIdMessage, variantIdMessage } from '../../catalog/catalog-references.js';
import { FIT_FEEDBACK, type FitEvent, type FitFeedback, type Reason, REASONS } from '../event.entity.js';
import { EVENT_TYPES, type EventType, INTEGRATION_EVENT_TYPES } from '../event-types.js';
import { EXAMPLE_ID, EXAMPLE_REQUEST_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export const MAX_QUANTITY = 1_000_000;

/** A purchase the shopper made after a fit session, as the integration sends it and as the service answers it. */
const EXAMPLE_REQUEST_EVENT = {
  source: 'shopify-orders',
  external_id: 'orders/5812345678901/line_items/14321098765432',
  type: 'purchase',
  product_id: EXAMPLE_ID.product,
  variant_id: EXAMPLE_ID.variant,
  session_id: EXAMPLE_ID.session,
  order_id: '5812345678901',
  line_item_id: '14321098765432',
  quantity: 1,
  occurred_at: EXAMPLE_TIME.occurred,
};
const EXAMPLE_EVENT = {
  id: EXAMPLE_ID.event,
  store_id: EXAMPLE_ID.store,
  ...EXAMPLE_REQUEST_EVENT,
  reason: null,
  fit_feedback: null,
  new_variant_id: null,
  received_at: EXAMPLE_TIME.received,
};
export const MAX_BATCH = 500;

/**
 * One event as an integration sends it. These are the rules on each field alone; the rules between fields and
 * against the store (event-rules.ts) come after. `null` counts as "not sent" for every optional field.
 */
export class EventRequest {
  @ApiProperty({ maxLength: 100, description: 'Names the sending integration. `size-fit` is reserved.', example: EXAMPLE_EVENT.source })
  @IsText(100)
  source: string;

  @ApiProperty({
    maxLength: 200,
    description: 'Stable delivery id chosen by the sender; with `source`, the dedup key.',
    example: EXAMPLE_EVENT.external_id,
  })
  @IsText(200)
  external_id: string;

  @ApiProperty({
    enum: INTEGRATION_EVENT_TYPES,
    description: 'The five types the service records itself are refused with `event_type_reserved`.',
    example: EXAMPLE_EVENT.type,
  })
  @IsString()
  type: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'Required on order outcomes.',
    example: EXAMPLE_EVENT.product_id,
  })
  @IsOptional()
  @IsUUID('all', productIdMessage('product_id'))
  product_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A variant of the product. Required on order outcomes.',
    example: EXAMPLE_EVENT.variant_id,
  })
  @IsOptional()
  @IsUUID('all', variantIdMessage('variant_id'))
  variant_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A session of the same product, created no later than `occurred_at`. Send it on assisted purchases.',
    example: EXAMPLE_EVENT.session_id,
  })
  @IsOptional()
  @IsUUID('all', { message: 'session_id must be an id' })
  session_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    maxLength: 200,
    nullable: true,
    description: 'Required on order outcomes; stable across them.',
    example: EXAMPLE_EVENT.order_id,
  })
  @IsOptional()
  @IsText(200)
  order_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    maxLength: 200,
    nullable: true,
    description: 'Required on order outcomes; stable across them.',
    example: EXAMPLE_EVENT.line_item_id,
  })
  @IsOptional()
  @IsText(200)
  line_item_id?: string | null;

  @ApiPropertyOptional({
    enum: [...REASONS, null],
    nullable: true,
    description: 'Required on `return_requested` and `size_exchange`, refused on other types.',
    example: 'size',
  })
  @IsOptional()
  @IsIn(REASONS, { message: 'reason must be size or other' })
  reason?: Reason | null;

  @ApiPropertyOptional({
    enum: [...FIT_FEEDBACK, null],
    nullable: true,
    description:
      'Which way the size was wrong: `too_small` (the shopper needed a bigger size) or `too_large`. Only with `reason: "size"` on `return_requested` and `size_exchange`; send it when the shopper said.',
    example: 'too_small',
  })
  @IsOptional()
  @IsIn(FIT_FEEDBACK, { message: 'fit_feedback must be too_small or too_large' })
  fit_feedback?: FitFeedback | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'On `size_exchange` only: the variant of the same product the shopper exchanged to (another size).',
    example: EXAMPLE_ID.variant,
  })
  @IsOptional()
  @IsUUID('all', variantIdMessage('new_variant_id'))
  new_variant_id?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_QUANTITY,
    default: 1,
    nullable: true,
    description: 'Units on the line.',
    example: EXAMPLE_EVENT.quantity,
  })
  @IsOptional()
  @Max(MAX_QUANTITY)
  @Min(1)
  @IsInt({ message: 'quantity must be a whole number of at least 1' })
  quantity?: number | null;

  @ApiProperty({
    format: 'date-time',
    description: 'RFC 3339 with a time zone, at most millisecond precision; within the last year and at most five minutes ahead.',
    example: EXAMPLE_EVENT.occurred_at,
  })
  @IsRfc3339()
  occurred_at: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: 200,
    nullable: true,
    description:
      'On `purchase` only: your pseudonymous id for the shopper, as sessions take it (`shopper_ref`), so that an experiment ' +
      'counts the purchases of shoppers who never opened size help. Stored only as a keyed hash, never returned.',
    example: 'cust_8f3a2c',
  })
  @IsOptional()
  @IsText(200)
  shopper_ref?: string | null;
}

export class EventBatchRequest {
  @ApiProperty({
    type: 'array',
    items: { $ref: getSchemaPath(EventRequest) },
    minItems: 1,
    maxItems: MAX_BATCH,
    description: 'Judged one by one, in order, under the single-event rules.',
    example: [
      { ...EXAMPLE_REQUEST_EVENT },
      {
        ...EXAMPLE_REQUEST_EVENT,
        external_id: 'orders/5812345678901/returns/1',
        type: 'return_requested',
        reason: 'size',
        occurred_at: '2026-11-28T16:02:11.000Z',
      },
    ],
  })
  // class-validator checks the decorators bottom up and stops at the first failure: the type first
  @ArrayMaxSize(MAX_BATCH, { message: `events must hold at most ${MAX_BATCH} events` })
  @ArrayMinSize(1, { message: 'events must hold at least one event' })
  @IsArray({ message: 'events must be an array of events' })
  events: unknown[];
}

export class EventResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_EVENT.id })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_EVENT.store_id })
  store_id: string;

  @ApiProperty({ description: '`size-fit` for the events the service records itself.', example: EXAMPLE_EVENT.source })
  source: string;

  @ApiProperty({ example: EXAMPLE_EVENT.external_id })
  external_id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: EXAMPLE_EVENT.type })
  type: EventType;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: EXAMPLE_EVENT.product_id })
  product_id: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: EXAMPLE_EVENT.variant_id })
  variant_id: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: EXAMPLE_EVENT.session_id })
  session_id: string | null;

  @ApiProperty({ nullable: true, type: String, example: EXAMPLE_EVENT.order_id })
  order_id: string | null;

  @ApiProperty({ nullable: true, type: String, example: EXAMPLE_EVENT.line_item_id })
  line_item_id: string | null;

  @ApiProperty({
    enum: [...REASONS, null],
    nullable: true,
    type: String,
    description: 'null except on returns and exchanges.',
    example: null,
  })
  reason: Reason | null;

  @ApiProperty({
    nullable: true,
    type: 'integer',
    description: 'null on the events the service records itself.',
    example: EXAMPLE_EVENT.quantity,
  })
  quantity: number | null;

  @ApiProperty({
    enum: [...FIT_FEEDBACK, null],
    nullable: true,
    type: String,
    description: 'null unless a return or exchange for size said which way.',
    example: null,
  })
  fit_feedback: FitFeedback | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null except on size exchanges that name it.', example: null })
  new_variant_id: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_EVENT.occurred_at })
  occurred_at: string;

  @ApiProperty({ format: 'date-time', description: 'When the service first stored it.', example: EXAMPLE_EVENT.received_at })
  received_at: string;

  static from(this: void, event: FitEvent): EventResponse {
    return {
      id: event.id,
      store_id: event.storeId,
      source: event.source,
      external_id: event.externalId,
      type: event.type,
      product_id: event.productId,
      variant_id: event.variantId,
      session_id: event.sessionId,
      order_id: event.orderId,
      line_item_id: event.lineItemId,
      reason: event.reason,
      quantity: event.quantity,
      fit_feedback: event.fitFeedback,
      new_variant_id: event.newVariantId,
      occurred_at: event.occurredAt.toISOString(),
      received_at: event.receivedAt.toISOString(),
    };
  }
}

class EventResultResponse {
  @ApiProperty({ type: 'integer', enum: [201, 200, 400, 409], description: 'What the same event alone would have answered.', example: 201 })
  status: 201 | 200 | 400 | 409;

  @ApiPropertyOptional({ type: EventResponse, description: 'With 201 (stored now) and 200 (stored before).' })
  event?: EventResponse;

  @ApiPropertyOptional({
    // The problem-details model of every error answer (registered by the OpenAPI setup).
    allOf: [{ $ref: getSchemaPath('ProblemDetails') }],
    description: 'With 400 and 409: the problem details the same event alone would have answered.',
  })
  error?: ProblemBody;
}

export class EventBatchResponse {
  @ApiProperty({
    type: [EventResultResponse],
    description: 'One result per event, in request order.',
    example: [
      { status: 201, event: EXAMPLE_EVENT },
      {
        status: 400,
        error: {
          type: '/problems/validation_failed',
          title: 'Validation failed',
          status: 400,
          code: 'validation_failed',
          request_id: EXAMPLE_REQUEST_ID,
          errors: [{ field: 'occurred_at', code: 'too_old', message: 'occurred_at must be within the last year' }],
        },
      },
    ],
  })
  results: EventResultResponse[];
}

export class EventListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: EVENT_TYPES, example: 'purchase' })
  @IsOmittable()
  @IsIn(EVENT_TYPES, { message: `type must be one of ${EVENT_TYPES.join(', ')}` })
  type?: EventType;

  @ApiPropertyOptional({ example: EXAMPLE_EVENT.source })
  @IsOmittable()
  @IsText(100)
  source?: string;

  @ApiPropertyOptional({ format: 'uuid', example: EXAMPLE_EVENT.session_id })
  @IsOmittable()
  @IsUUID('all', { message: 'session_id must be an id' })
  session_id?: string;

  @ApiPropertyOptional({ example: EXAMPLE_EVENT.order_id })
  @IsOmittable()
  @IsText(200)
  order_id?: string;

  @ApiPropertyOptional({ format: 'uuid', example: EXAMPLE_EVENT.product_id })
  @IsOmittable()
  @IsUUID('all', productIdMessage('product_id'))
  product_id?: string;
}
