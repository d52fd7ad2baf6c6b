import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { LimitQuery } from '../../common/http/pagination.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';
import { IsOmittable } from '../../common/validation/omittable.js';

const FIT_DIRECTIONS = ['runs_small', 'runs_large', 'true_to_size', 'uncertain'] as const;
export type FitDirection = (typeof FIT_DIRECTIONS)[number];

export class LearnedFitResponse {
  @ApiProperty({
    description: 'Size steps the product runs small (positive: shoppers need a bigger size than the chart says) or large (negative).',
    example: 0.42,
  })
  size_steps: number;

  @ApiProperty({ description: 'Standard deviation of `size_steps`.', example: 0.12 })
  sd: number;

  @ApiProperty({ description: 'Lower end of the 95% interval, in size steps.', example: 0.18 })
  low: number;

  @ApiProperty({ description: 'Upper end of the 95% interval, in size steps.', example: 0.66 })
  high: number;

  @ApiProperty({
    type: 'integer',
    description: 'The product’s own outcomes that taught something (kept items, returns and exchanges for size).',
    example: 37,
  })
  outcomes: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Of `outcomes`, those an import of past orders taught (`POST …/order-history`); the per-size table counts only the ' +
      'lines reported as events.',
    example: 12,
  })
  imported_outcomes: number;

  @ApiProperty({
    description: 'Their weight once aged: recent outcomes weigh more, a choice of another size than the chart’s a quarter.',
    example: 41.5,
  })
  evidence_weight: number;
}

export class SizeOutcomesResponse {
  @ApiProperty({ example: 'M' })
  size_label: string;

  @ApiProperty({ type: 'integer', description: 'Order lines bought in this size.', example: 120 })
  purchased: number;

  @ApiProperty({ type: 'integer', example: 81 })
  kept: number;

  @ApiProperty({ type: 'integer', example: 14 })
  size_returns: number;

  @ApiProperty({ type: 'integer', example: 6 })
  size_exchanges: number;

  @ApiProperty({ type: 'integer', description: 'Returns and exchanges that said the size was too small.', example: 15 })
  too_small: number;

  @ApiProperty({ type: 'integer', description: 'Returns and exchanges that said the size was too large.', example: 2 })
  too_large: number;

  @ApiProperty({ type: Number, nullable: true, description: 'size_returns / purchased; null with no purchase.', example: 0.117 })
  size_return_rate: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'size_exchanges / purchased; null with no purchase.', example: 0.05 })
  size_exchange_rate: number | null;
}

export class ProductFitResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product })
  product_id: string;

  @ApiProperty({ example: 'Linen shirt' })
  title: string;

  @ApiProperty({
    enum: FIT_DIRECTIONS,
    description:
      '`runs_small` / `runs_large` when the 95% interval lies wholly above / below zero, `true_to_size` when it lies within ' +
      '±0.25 size steps, `uncertain` otherwise.',
    example: 'runs_small',
  })
  direction: FitDirection;

  @ApiProperty({ type: LearnedFitResponse })
  learned: LearnedFitResponse;

  @ApiProperty({
    type: [SizeOutcomesResponse],
    description: 'Every size of the product’s chart, in chart order, then sizes no longer on it.',
  })
  sizes: SizeOutcomesResponse[];

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  computed_at: string;
}

export class ProductFitItemResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product })
  product_id: string;

  @ApiProperty({ example: 'Linen shirt' })
  title: string;

  @ApiProperty({ enum: FIT_DIRECTIONS, example: 'runs_small' })
  direction: FitDirection;

  @ApiProperty({ type: LearnedFitResponse })
  learned: LearnedFitResponse;
}

export class ProductFitListResponse {
  @ApiProperty({ type: [ProductFitItemResponse], description: 'Strongest evidence first: |size_steps| / sd, descending.' })
  data: ProductFitItemResponse[];

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  computed_at: string;
}

export class ProductFitListQuery extends LimitQuery {
  @ApiPropertyOptional({
    enum: FIT_DIRECTIONS,
    description: 'Only the products learned to fit this way (default: those that run small or large).',
  })
  @IsOmittable()
  @IsIn(FIT_DIRECTIONS, { message: `direction must be one of ${FIT_DIRECTIONS.join(', ')}` })
  direction?: FitDirection;
}
