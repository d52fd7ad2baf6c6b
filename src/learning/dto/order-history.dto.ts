import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, IsUUID } from 'class-validator';
import { productIdMessage, variantIdMessage } from '../../catalog/catalog-references.js';
import { EXAMPLE_ID } from '../../common/openapi/examples.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsRfc3339 } from '../../common/validation/rfc3339.js';
import { IsText } from '../../common/validation/text.js';

/** Lines in one request: the JSON reader refuses a longer list before anything reads it (json-body.ts). */
export const MAX_HISTORY_LINES = 1_000;

/** The outcomes of an order line that say something about its fit, named as their events are (events/event-types.ts). */
const HISTORY_OUTCOMES = ['item_kept', 'return_requested', 'size_exchange'] as const;
export type HistoryOutcomeType = (typeof HISTORY_OUTCOMES)[number];
const REASONS = ['size', 'other'] as const;
const FIT_FEEDBACK = ['too_small', 'too_large'] as const;

/** What happened to a line in the end, as its event would say it. `null` counts as "not sent", as in events. */
export class HistoryOutcomeRequest {
  @ApiProperty({ enum: HISTORY_OUTCOMES, example: 'return_requested' })
  @IsIn(HISTORY_OUTCOMES, { message: `type must be one of ${HISTORY_OUTCOMES.join(', ')}` })
  type: HistoryOutcomeType;

  @ApiPropertyOptional({
    enum: [...REASONS, null],
    nullable: true,
    description: 'Required on `return_requested` and `size_exchange`, refused on `item_kept`.',
    example: 'size',
  })
  @IsOptional()
  @IsIn(REASONS, { message: 'reason must be size or other' })
  reason?: (typeof REASONS)[number] | null;

  @ApiPropertyOptional({
    enum: [...FIT_FEEDBACK, null],
    nullable: true,
    description: 'Which way the size was wrong: only with `reason: "size"`.',
    example: 'too_small',
  })
  @IsOptional()
  @IsIn(FIT_FEEDBACK, { message: 'fit_feedback must be too_small or too_large' })
  fit_feedback?: (typeof FIT_FEEDBACK)[number] | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'On `size_exchange` only: the variant of the same product the shopper exchanged to.',
    example: EXAMPLE_ID.variantLarge,
  })
  @IsOptional()
  @IsUUID('all', variantIdMessage('new_variant_id'))
  new_variant_id?: string | null;

  @ApiProperty({
    format: 'date-time',
    description:
      'When it happened: RFC 3339 with a time zone, at most millisecond precision; not before `purchased_at`, not in the future.',
    example: '2021-03-19T16:02:11.000Z',
  })
  @IsRfc3339()
  occurred_at: string;
}

/** One order line of the past and its outcome. */
export class OrderHistoryLineRequest {
  @ApiProperty({ maxLength: 200, description: 'With `line_item_id`, the line: as its events name it.', example: '4012345678901' })
  @IsText(200)
  order_id: string;

  @ApiProperty({ maxLength: 200, example: '10321098765432' })
  @IsText(200)
  line_item_id: string;

  @ApiProperty({ format: 'uuid', description: 'A product of the store.', example: EXAMPLE_ID.product })
  @IsUUID('all', productIdMessage('product_id'))
  product_id: string;

  @ApiProperty({ format: 'uuid', description: 'The variant bought: a variant of the product.', example: EXAMPLE_ID.variant })
  @IsUUID('all', variantIdMessage('variant_id'))
  variant_id: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'Your pseudonymous id for the shopper, as sessions take it: the line then teaches her own offset too. Stored only as a ' +
      'keyed hash, per store, never returned.',
    example: 'cust_8f3a2c',
  })
  @IsOmittable()
  @IsText(200)
  shopper_ref?: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the line was bought: any past date, not in the future.',
    example: '2021-03-02T10:41:00.000Z',
  })
  @IsRfc3339()
  purchased_at: string;

  @ApiProperty({ type: HistoryOutcomeRequest })
  @IsObject({ message: 'outcome must be an object' })
  outcome: object;
}

export class OrderHistoryRequest {
  @ApiProperty({
    type: [OrderHistoryLineRequest],
    minItems: 1,
    maxItems: MAX_HISTORY_LINES,
    description: 'One line per order line, each with its final outcome; judged together: one invalid line and nothing is written.',
  })
  // class-validator checks the decorators bottom up and stops at the first failure: the type first
  @ArrayMaxSize(MAX_HISTORY_LINES, { message: `lines must hold at most ${MAX_HISTORY_LINES} lines` })
  @ArrayMinSize(1, { message: 'lines must hold at least one line' })
  @IsArray({ message: 'lines must be an array of order lines' })
  lines: unknown[];
}

class IgnoredLineResponse {
  @ApiProperty({ type: 'integer', description: 'The line’s position in `lines`, from 0.', example: 3 })
  index: number;

  @ApiProperty({
    description: 'Why it teaches nothing, in words.',
    example: 'a return for a reason other than size says nothing about fit',
  })
  reason: string;
}

export class OrderHistoryResponse {
  @ApiProperty({ type: 'integer', description: 'Lines received: `learned` + `replaced` + `unchanged` + ignored ones.', example: 250 })
  received: number;

  @ApiProperty({ type: 'integer', description: 'Lines that taught nothing before and now teach their outcome.', example: 231 })
  learned: number;

  @ApiProperty({ type: 'integer', description: 'Lines whose earlier lesson this import replaced with a later outcome.', example: 4 })
  replaced: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Lines that already teach what this import says, or a later outcome (imported or reported as an event), or that ' +
      'another line of this request about the same order line follows.',
    example: 9,
  })
  unchanged: number;

  @ApiProperty({ type: [IgnoredLineResponse], description: 'Lines whose outcome teaches nothing, and why; in request order.' })
  ignored: IgnoredLineResponse[];
}
