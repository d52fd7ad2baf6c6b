import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import type { ProblemBody } from '../../common/problems/problem-details.filter.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsRfc3339 } from '../../common/validation/rfc3339.js';
import { IsText } from '../../common/validation/text.js';
import { EVENT_TYPES, type EventType, type FitEvent, INTEGRATION_EVENT_TYPES, type Reason, REASONS } from '../event.entity.js';

export const MAX_QUANTITY = 1_000_000;
export const MAX_BATCH = 500;

/**
 * One event as an integration sends it. These are the rules on each field alone; the rules between fields and
 * against the store (event-rules.ts) come after. `null` counts as "not sent" for every optional field.
 */
export class EventRequest {
  @ApiProperty({ maxLength: 100, description: 'Names the sending integration. `size-fit` is reserved.' })
  @IsText(100)
  source: string;

  @ApiProperty({ maxLength: 200, description: 'Stable delivery id chosen by the sender; with `source`, the dedup key.' })
  @IsText(200)
  external_id: string;

  @ApiProperty({
    enum: INTEGRATION_EVENT_TYPES,
    description: 'The five types the service records itself are refused with `event_type_reserved`.',
  })
  @IsString()
  type: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Required on order outcomes.' })
  @IsOptional()
  @IsUUID('all', { message: 'product_id must be an id' })
  product_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A variant of the product. Required on order outcomes.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'variant_id must be an id' })
  variant_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A session of the same product, created no later than `occurred_at`. Send it on assisted purchases.',
  })
  @IsOptional()
  @IsUUID('all', { message: 'session_id must be an id' })
  session_id?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 200, nullable: true, description: 'Required on order outcomes; stable across them.' })
  @IsOptional()
  @IsText(200)
  order_id?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 200, nullable: true, description: 'Required on order outcomes; stable across them.' })
  @IsOptional()
  @IsText(200)
  line_item_id?: string | null;

  @ApiPropertyOptional({
    enum: [...REASONS, null],
    nullable: true,
    description: 'Required on `return_requested` and `size_exchange`, refused on other types.',
  })
  @IsOptional()
  @IsIn(REASONS, { message: 'reason must be size or other' })
  reason?: Reason | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_QUANTITY,
    default: 1,
    nullable: true,
    description: 'Units on the line.',
  })
  @IsOptional()
  @Max(MAX_QUANTITY)
  @Min(1)
  @IsInt({ message: 'quantity must be a whole number of at least 1' })
  quantity?: number | null;

  @ApiProperty({
    format: 'date-time',
    description: 'RFC 3339 with a time zone, at most millisecond precision; within the last year and at most five minutes ahead.',
  })
  @IsRfc3339()
  occurred_at: string;
}

export class EventBatchRequest {
  @ApiProperty({
    type: 'array',
    items: { $ref: getSchemaPath(EventRequest) },
    minItems: 1,
    maxItems: MAX_BATCH,
    description: 'Judged one by one, in order, under the single-event rules.',
  })
  @IsArray({ message: 'events must be an array of events' })
  @ArrayMinSize(1, { message: 'events must hold at least one event' })
  @ArrayMaxSize(MAX_BATCH, { message: `events must hold at most ${MAX_BATCH} events` })
  events: unknown[];
}

export class EventResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  store_id: string;

  @ApiProperty({ description: '`size-fit` for the events the service records itself.' })
  source: string;

  @ApiProperty()
  external_id: string;

  @ApiProperty({ enum: EVENT_TYPES })
  type: EventType;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  product_id: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  variant_id: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  session_id: string | null;

  @ApiProperty({ nullable: true, type: String })
  order_id: string | null;

  @ApiProperty({ nullable: true, type: String })
  line_item_id: string | null;

  @ApiProperty({ enum: [...REASONS, null], nullable: true, type: String })
  reason: Reason | null;

  @ApiProperty({ nullable: true, type: 'integer', description: 'null on the events the service records itself.' })
  quantity: number | null;

  @ApiProperty({ format: 'date-time' })
  occurred_at: string;

  @ApiProperty({ format: 'date-time', description: 'When the service first stored it.' })
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
      occurred_at: event.occurredAt.toISOString(),
      received_at: event.receivedAt.toISOString(),
    };
  }
}

class EventResultResponse {
  @ApiProperty({ type: 'integer', enum: [201, 200, 400, 409], description: 'What the same event alone would have answered.' })
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
  @ApiProperty({ type: [EventResultResponse], description: 'One result per event, in request order.' })
  results: EventResultResponse[];
}

export class EventListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @IsOmittable()
  @IsIn(EVENT_TYPES, { message: `type must be one of ${EVENT_TYPES.join(', ')}` })
  type?: EventType;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsText(100)
  source?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID('all', { message: 'session_id must be an id' })
  session_id?: string;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsText(200)
  order_id?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID('all', { message: 'product_id must be an id' })
  product_id?: string;
}
