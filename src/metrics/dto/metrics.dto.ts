import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsInstantOrDate } from '../../common/validation/rfc3339.js';
import { EXAMPLE_ID } from '../../common/openapi/examples.js';
import { CAVEATS } from '../caveats.js';

export class MetricsQuery {
  @ApiPropertyOptional({
    description: 'Start, inclusive: an RFC 3339 timestamp, or a date (`2026-11-01`: that day at 00:00 UTC). Default: 30 days before `to`.',
    example: '2026-11-01',
  })
  @IsOmittable()
  @IsInstantOrDate()
  from?: string;

  @ApiPropertyOptional({
    description:
      'End, exclusive: an RFC 3339 timestamp, or a date (`2026-12-01`: up to that day at 00:00 UTC, so November ' +
      'entire). Default: now. At most 366 days after `from`.',
    example: '2026-12-01',
  })
  @IsOmittable()
  @IsInstantOrDate()
  to?: string;
}

export class MetricsCounts {
  @ApiProperty({ type: 'integer', description: 'Sessions created in [from, to): the cohort.', example: 1240 })
  started_sessions: number;

  @ApiProperty({ type: 'integer', description: 'Cohort sessions that got a recommendation.', example: 968 })
  recommended_sessions: number;

  @ApiProperty({ type: 'integer', description: 'Cohort sessions completed with the recommended size.', example: 701 })
  accepted_sessions: number;

  @ApiProperty({ type: 'integer', description: 'Cohort sessions completed with another size.', example: 143 })
  overridden_sessions: number;

  @ApiProperty({ type: 'integer', description: 'Recommended cohort sessions named by a purchase event.', example: 412 })
  converted_sessions: number;

  @ApiProperty({
    type: 'integer',
    description: 'Unique (order_id, line_item_id) purchased with a recommended cohort session.',
    example: 455,
  })
  purchased_lines: number;

  @ApiProperty({ type: 'integer', description: 'Purchased lines with a return_requested event of reason size.', example: 38 })
  size_returned_lines: number;

  @ApiProperty({ type: 'integer', description: 'Purchased lines with an item_kept event.', example: 301 })
  kept_lines: number;

  @ApiProperty({ type: 'integer', description: 'Purchased lines with a size_exchange event of reason size.', example: 21 })
  size_exchanged_lines: number;
}

const rate = (description: string, example: number) =>
  ApiProperty({ type: Number, nullable: true, description: `${description}; null when the denominator is 0.`, example });

export class MetricsRates {
  @rate('recommended_sessions / started_sessions', 0.7806)
  quiz_completion: number | null;

  @rate('accepted_sessions / recommended_sessions', 0.7242)
  recommendation_acceptance: number | null;

  @rate('overridden_sessions / recommended_sessions', 0.1477)
  recommendation_override: number | null;

  @rate('converted_sessions / recommended_sessions', 0.4256)
  fit_assisted_conversion: number | null;

  @rate('size_returned_lines / purchased_lines', 0.0835)
  size_related_return: number | null;

  @rate('kept_lines / purchased_lines', 0.6615)
  kept_after_recommendation: number | null;

  @rate('size_exchanged_lines / purchased_lines', 0.0462)
  exchange_for_size: number | null;
}

/** What both metrics answers start with: the store, the range and when the figures were computed. */
class MetricsRange {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ format: 'date-time', description: 'Start of the cohort, inclusive.', example: '2026-11-01T00:00:00.000Z' })
  from: string;

  @ApiProperty({ format: 'date-time', description: 'End of the cohort, exclusive.', example: '2026-12-01T00:00:00.000Z' })
  to: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the figures were computed: outcomes count when their occurred_at is at or before it.',
    example: '2026-11-25T11:30:00.000Z',
  })
  observed_through: string;
}

export class MetricsResponse extends MetricsRange {
  @ApiProperty({ type: MetricsCounts })
  counts: MetricsCounts;

  @ApiProperty({ type: MetricsRates })
  rates: MetricsRates;

  @ApiProperty({ type: [String], example: CAVEATS })
  caveats: string[];
}

class DailyMetrics {
  @ApiProperty({ example: '2026-11-21', description: 'The UTC day of session creation.' })
  date: string;

  @ApiProperty({
    format: 'date-time',
    description: 'The part of the range on this day: start, inclusive.',
    example: '2026-11-21T00:00:00.000Z',
  })
  from: string;

  @ApiProperty({ format: 'date-time', description: 'End, exclusive.', example: '2026-11-22T00:00:00.000Z' })
  to: string;

  @ApiProperty({ type: MetricsCounts })
  counts: MetricsCounts;

  @ApiProperty({ type: MetricsRates })
  rates: MetricsRates;
}

export class DailyMetricsResponse extends MetricsRange {
  @ApiProperty({ type: [DailyMetrics], description: 'Every UTC day the range touches, oldest first.' })
  days: DailyMetrics[];

  @ApiProperty({ type: [String], example: CAVEATS })
  caveats: string[];
}
