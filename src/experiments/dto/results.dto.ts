import { ApiProperty, type ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';
import { EXPERIMENT_STATES, type ExperimentState, type Metric, METRICS, type Treatment, TREATMENTS } from '../experiment.entity.js';

/** "This model or null", as OpenAPI 3.0 can say it (session.dto.ts). */
const orNull = (model: string): ApiPropertyOptions => ({
  oneOf: [{ $ref: getSchemaPath(model) }, { type: 'object', nullable: true, enum: [null] }],
});

export class IntervalResponse {
  @ApiProperty({ example: 0.012 })
  low: number;

  @ApiProperty({ example: 0.07 })
  high: number;
}

export class LiftResponse {
  @ApiProperty({ example: 0.041, description: 'Treatment minus control (absolute, as a rate), or that over the control (relative).' })
  estimate: number;

  @ApiProperty({ example: 0.0124, description: 'Its standard error: clustered by shopper (the delta method).' })
  standard_error: number;

  @ApiProperty({ type: IntervalResponse, description: '95% always-valid interval: it stays valid however often the results are read.' })
  always_valid: IntervalResponse;

  @ApiProperty({ example: 0.004, description: 'The always-valid p-value at this reading.' })
  always_valid_p: number;

  @ApiProperty({
    ...orNull('IntervalResponse'),
    description: '95% fixed-horizon interval, shown once the planned units are reached (valid when read once, there).',
  })
  fixed_horizon: IntervalResponse | null;

  @ApiProperty({ type: Number, nullable: true, example: 0.0003 })
  fixed_horizon_p: number | null;

  @ApiProperty({ example: true, description: 'The always-valid interval excludes no difference.' })
  significant: boolean;
}

class MetricValue {
  @ApiProperty({ enum: METRICS, example: 'size_return_rate' })
  metric: Metric;

  @ApiProperty({ type: Number, nullable: true, example: 0.118, description: 'Null without purchases (rates per line) or units.' })
  rate: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 0.009, description: 'Clustered by shopper (the delta method).' })
  standard_error: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.117,
    description: 'The rate adjusted for shoppers’ purchases before the experiment (CUPED).',
  })
  adjusted_rate: number | null;
}

class ArmResult {
  @ApiProperty({ example: 'holdout' })
  name: string;

  @ApiProperty({ enum: TREATMENTS, example: 'no_size_help' })
  treatment: Treatment;

  @ApiProperty({ example: false })
  control: boolean;

  @ApiProperty({ example: 0.5 })
  share: number;

  @ApiProperty({ example: 5012, description: 'Shoppers exposed (intention to treat: each counts, used size help or not).' })
  units: number;

  @ApiProperty({ example: 301, description: 'Exposed shoppers who bought a product of the experiment after exposure.' })
  purchasing_units: number;

  @ApiProperty({ example: 344 })
  purchased_lines: number;

  @ApiProperty({ type: [MetricValue] })
  metrics: MetricValue[];
}

class ComparisonResult {
  @ApiProperty({ example: 'holdout', description: 'The arm compared with the control.' })
  arm: string;

  @ApiProperty({ enum: METRICS, example: 'size_return_rate' })
  metric: Metric;

  @ApiProperty({ enum: ['primary', 'guardrail'], example: 'primary' })
  role: 'primary' | 'guardrail';

  @ApiProperty({ type: Number, nullable: true, example: 0.118 })
  control_rate: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 0.159 })
  rate: number | null;

  @ApiProperty({ ...orNull('LiftResponse'), description: 'Null until both arms have what the metric counts.' })
  absolute: LiftResponse | null;

  @ApiProperty({ ...orNull('LiftResponse'), description: 'The relative lift: the absolute one over the control’s rate.' })
  relative: LiftResponse | null;

  @ApiProperty({ ...orNull('LiftResponse'), description: 'The absolute lift with CUPED.' })
  adjusted_absolute: LiftResponse | null;

  @ApiProperty({ type: Number, nullable: true, example: 0.08, description: 'Share of the variance CUPED removed.' })
  variance_reduction: number | null;

  @ApiProperty({ enum: ['higher', 'lower', 'inconclusive'], example: 'higher' })
  direction: 'higher' | 'lower' | 'inconclusive';

  @ApiProperty({ example: 'holdout: size returns 4.1 points higher than size help [1.2, 7.0]; the difference is real.' })
  verdict: string;
}

class SampleRatioResult {
  @ApiProperty({ type: [Number], example: [0.5, 0.5] })
  expected_shares: number[];

  @ApiProperty({ type: [Number], example: [5031, 5012] })
  units: number[];

  @ApiProperty({ example: 0.85 })
  p_value: number;

  @ApiProperty({ example: false, description: 'p < 0.001: the split is not the planned one; no verdict until it is explained.' })
  mismatch: boolean;
}

class ReturnWindow {
  @ApiProperty({ example: 30, description: 'Days after a purchase in which its return or exchange is still expected.' })
  days: number;

  @ApiProperty({ example: 120, description: 'Purchased lines younger than that without an outcome yet: their rates may still move.' })
  open_lines: number;

  @ApiProperty({ example: 0.35 })
  open_share: number;
}

export class ExperimentResultsResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.experiment })
  experiment_id: string;

  @ApiProperty({ enum: EXPERIMENT_STATES, example: 'running' })
  state: ExperimentState;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated, description: 'Outcomes count up to this moment.' })
  observed_through: string;

  @ApiProperty({ example: 3724 })
  planned_units: number;

  @ApiProperty({ example: 10043 })
  units: number;

  @ApiProperty({ example: true })
  planned_size_reached: boolean;

  @ApiProperty({ type: SampleRatioResult })
  sample_ratio: SampleRatioResult;

  @ApiProperty({ type: ReturnWindow })
  return_window: ReturnWindow;

  @ApiProperty({ type: [ArmResult] })
  arms: ArmResult[];

  @ApiProperty({ type: [ComparisonResult], description: 'Each arm against the control, on the primary metric and the guardrails.' })
  comparisons: ComparisonResult[];

  @ApiProperty({ example: 'holdout: size returns 4.1 points higher than size help [1.2, 7.0]; the difference is real.' })
  verdict: string;

  @ApiProperty({
    type: [String],
    example: ['By intention to treat: every exposed shopper counts in her arm, whether she opened size help or not.'],
  })
  caveats: string[];
}

export type { ComparisonResult, MetricValue };
