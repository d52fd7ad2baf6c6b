import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsNumber, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { ValidateWith } from '../../common/validation/validate-with.js';
import {
  type Arm,
  type Experiment,
  EXPERIMENT_STATES,
  type ExperimentState,
  type Metric,
  METRICS,
  type Treatment,
  TREATMENTS,
} from '../experiment.entity.js';

const MAX_LISTED = 500;

/**
 * An array of at most MAX_LISTED ids, each error naming the field and what its ids should be (registered in the order
 * the decorators stacked on the field were: the array first).
 */
const IsIdList = (field: string, what: string) =>
  applyDecorators(
    IsArray({ message: `${field} must be an array of ${what}` }),
    IsUUID('all', { each: true, message: `${field} must hold ${what}` }),
    ArrayMaxSize(MAX_LISTED),
  );
const SHARE_TOLERANCE = 1e-6;

const ARMS_DOC: ApiPropertyOptions = {
  type: 'array',
  minItems: 2,
  maxItems: 4,
  items: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 50, example: 'holdout' },
      share: { type: 'number', minimum: 0, maximum: 1, example: 0.5, description: 'Above 0 and below 1.' },
      treatment: { type: 'string', enum: [...TREATMENTS], example: 'no_size_help' },
    },
    required: ['name', 'share', 'treatment'],
    additionalProperties: false,
  },
  example: [
    { name: 'size help', share: 0.5, treatment: 'size_help' },
    { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
  ],
  description:
    '2–4 arms with unique names and shares summing to 1. `size_help`: the service as it is; `no_size_help`: a holdout, ' +
    'the size help entry point is not shown; `chart_only`: the stated chart’s answer, without learned fit or the ' +
    'shopper’s history.',
};

/** The arms as sent: 2–4, unique names, each share in (0, 1), the shares summing to 1. */
function checkArms(value: unknown): FieldError[] {
  if (!Array.isArray(value) || value.length < 2 || value.length > 4) {
    return [{ field: '', code: 'invalid', message: 'arms must be an array of 2 to 4 arms' }];
  }
  const errors: FieldError[] = [];
  const names = new Set<string>();
  value.forEach((arm: unknown, i) => {
    const at = `[${i}]`;
    if (typeof arm !== 'object' || arm === null || Array.isArray(arm)) {
      errors.push({ field: at, code: 'invalid', message: `arms${at} must be an object with name, share and treatment` });
      return;
    }
    const { name, share, treatment, ...rest } = arm as Record<string, unknown>;
    for (const key of Object.keys(rest))
      errors.push({ field: `${at}.${key}`, code: 'unknown_field', message: `arms${at}.${key} is not a field of an arm` });
    if (typeof name !== 'string' || !/\S/.test(name) || name.length > 50) {
      errors.push({ field: `${at}.name`, code: 'invalid', message: `arms${at}.name must be a text of 1 to 50 characters` });
    } else if (names.has(name)) {
      errors.push({ field: `${at}.name`, code: 'duplicate', message: `arms${at}.name repeats another arm's name` });
    } else names.add(name);
    if (typeof share !== 'number' || !Number.isFinite(share) || share <= 0 || share >= 1) {
      errors.push({ field: `${at}.share`, code: 'out_of_range', message: `arms${at}.share must be a number between 0 and 1` });
    }
    if (!(TREATMENTS as readonly unknown[]).includes(treatment)) {
      errors.push({
        field: `${at}.treatment`,
        code: 'not_allowed_value',
        message: `arms${at}.treatment must be one of ${TREATMENTS.join(', ')}`,
      });
    }
  });
  if (errors.length) return errors;
  const total = (value as Arm[]).reduce((sum, arm) => sum + arm.share, 0);
  if (Math.abs(total - 1) > SHARE_TOLERANCE) {
    return [{ field: '', code: 'shares_not_one', message: `the arms' shares must sum to 1 (they sum to ${Number(total.toFixed(6))})` }];
  }
  return [];
}

/** Metrics listed once each. */
function checkGuardrails(value: unknown): FieldError[] {
  if (!Array.isArray(value) || value.length > METRICS.length) {
    return [{ field: '', code: 'invalid', message: `guardrails must be an array of at most ${METRICS.length} metrics` }];
  }
  const seen = new Set<unknown>();
  return value.flatMap((metric: unknown, i): FieldError[] => {
    if (!(METRICS as readonly unknown[]).includes(metric)) {
      return [{ field: `[${i}]`, code: 'not_allowed_value', message: `guardrails[${i}] must be one of ${METRICS.join(', ')}` }];
    }
    if (seen.has(metric)) return [{ field: `[${i}]`, code: 'duplicate', message: `guardrails[${i}] repeats a metric` }];
    seen.add(metric);
    return [];
  });
}

export class CreateExperimentRequest {
  @ApiProperty({ maxLength: 200, example: 'Does size help cut size returns?' })
  @IsText(200)
  name: string;

  @ApiPropertyOptional({ maxLength: 2000, example: 'Shoppers shown size help return fewer items for size.' })
  @IsOmittable()
  @IsText(2000)
  hypothesis?: string;

  @ApiProperty(ARMS_DOC)
  @ValidateWith(checkArms)
  arms: Arm[];

  @ApiPropertyOptional({ maxLength: 50, example: 'size help', description: 'The arm the others are compared with; left out: the first.' })
  @IsOmittable()
  @IsText(50)
  control_arm?: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_LISTED,
    description: 'The products taking part. Leave out both lists for all of the store’s products; send one, not both.',
    example: [EXAMPLE_ID.product],
  })
  @IsOmittable()
  @IsIdList('product_ids', 'product ids')
  product_ids?: string[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_LISTED,
    description: 'The product types whose products take part (products added to them later included).',
    example: [EXAMPLE_ID.productType],
  })
  @IsOmittable()
  @IsIdList('product_type_ids', 'product type ids')
  product_type_ids?: string[];

  @ApiProperty({ enum: METRICS, example: 'size_return_rate', description: 'The metric the experiment is planned and judged on.' })
  @IsIn(METRICS, { message: `primary_metric must be one of ${METRICS.join(', ')}` })
  primary_metric: Metric;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...METRICS] },
    example: ['conversion'],
    description: 'Metrics watched for harm beside the primary one; left out: none.',
  })
  @IsOmittable()
  @ValidateWith(checkGuardrails)
  guardrails?: Metric[];

  @ApiProperty({
    minimum: 0.001,
    maximum: 0.5,
    example: 0.03,
    description: 'The smallest absolute difference in the primary metric worth detecting, as a rate (0.03: 3 points).',
  })
  @Max(0.5)
  @Min(0.001)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'minimum_effect must be a number' })
  minimum_effect: number;

  @ApiPropertyOptional({
    minimum: 0.001,
    maximum: 0.999,
    example: 0.12,
    description: 'The primary metric’s expected rate without the change, for the plan. Left out: a typical rate for the metric.',
  })
  @IsOmittable()
  @Max(0.999)
  @Min(0.001)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'baseline_rate must be a number' })
  baseline_rate?: number;
}

/**
 * A change to an experiment; only the fields sent change. A draft takes any of them; a running or stopped experiment
 * only its name and hypothesis (its design is what its results are judged by). The products taking part are replaced by
 * what is sent: `product_ids` or `product_type_ids` (the other is cleared), `null` for all products.
 */
export class UpdateExperimentRequest {
  @ApiPropertyOptional({ maxLength: 200, example: 'Does size help cut size returns of dresses?' })
  @IsOmittable()
  @IsText(200)
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, description: '`null` removes it.', example: null })
  @IsOptional()
  @IsText(2000)
  hypothesis?: string | null;

  @ApiPropertyOptional({ ...ARMS_DOC, description: `Drafts only. ${ARMS_DOC.description}` })
  @IsOmittable()
  @ValidateWith(checkArms)
  arms?: Arm[];

  @ApiPropertyOptional({
    maxLength: 50,
    example: 'size help',
    description: 'Drafts only. Left out: the control stays, or the first arm when new arms leave it out.',
  })
  @IsOmittable()
  @IsText(50)
  control_arm?: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    nullable: true,
    maxItems: MAX_LISTED,
    description: 'Drafts only. The products taking part, instead of those chosen before; `null`: all products.',
    example: [EXAMPLE_ID.product],
  })
  @IsOptional()
  @IsIdList('product_ids', 'product ids')
  product_ids?: string[] | null;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    nullable: true,
    maxItems: MAX_LISTED,
    description: 'Drafts only. The product types whose products take part, instead of those chosen before; `null`: all products.',
    example: [EXAMPLE_ID.productType],
  })
  @IsOptional()
  @IsIdList('product_type_ids', 'product type ids')
  product_type_ids?: string[] | null;

  @ApiPropertyOptional({ enum: METRICS, example: 'size_return_rate', description: 'Drafts only.' })
  @IsOmittable()
  @IsIn(METRICS, { message: `primary_metric must be one of ${METRICS.join(', ')}` })
  primary_metric?: Metric;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...METRICS] },
    example: ['conversion'],
    description: 'Drafts only.',
  })
  @IsOmittable()
  @ValidateWith(checkGuardrails)
  guardrails?: Metric[];

  @ApiPropertyOptional({ minimum: 0.001, maximum: 0.5, example: 0.02, description: 'Drafts only.' })
  @IsOmittable()
  @Max(0.5)
  @Min(0.001)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'minimum_effect must be a number' })
  minimum_effect?: number;

  @ApiPropertyOptional({
    minimum: 0.001,
    maximum: 0.999,
    nullable: true,
    type: Number,
    example: 0.12,
    description: 'Drafts only. `null`: a typical rate for the metric.',
  })
  @IsOptional()
  @Max(0.999)
  @Min(0.001)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'baseline_rate must be a number' })
  baseline_rate?: number | null;
}

/** The fields of an experiment's design: they change while it is a draft, never after. */
export const DESIGN_FIELDS = [
  'arms',
  'control_arm',
  'product_ids',
  'product_type_ids',
  'primary_metric',
  'guardrails',
  'minimum_effect',
  'baseline_rate',
] as const satisfies ReadonlyArray<keyof UpdateExperimentRequest>;

class ArmPlan {
  @ApiProperty({ example: 'holdout' })
  arm: string;

  @ApiProperty({ example: 1862, description: 'Units the arm needs.' })
  units: number;
}

class ExperimentPlan {
  @ApiProperty({ example: 3724, description: 'Exposed units needed for 80% power at `minimum_effect` (α = 0.05, two-sided).' })
  units_needed: number;

  @ApiProperty({ type: [ArmPlan] })
  arms: ArmPlan[];

  @ApiProperty({ example: 0.12, description: 'The baseline rate the plan assumes.' })
  baseline_rate: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 140,
    description: 'Units a day at the store’s recent pace (experiments’ exposures, else shoppers of fit sessions, last 28 days).',
  })
  daily_units: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 27, description: 'Days to reach `units_needed` at that pace.' })
  expected_days: number | null;
}

class ArmResponse {
  @ApiProperty({ example: 'holdout' })
  name: string;

  @ApiProperty({ example: 0.5 })
  share: number;

  @ApiProperty({ enum: TREATMENTS, example: 'no_size_help' })
  treatment: Treatment;
}

export class ExperimentResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.experiment })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ example: 'Does size help cut size returns?' })
  name: string;

  @ApiProperty({ type: String, nullable: true, example: 'Shoppers shown size help return fewer items for size.' })
  hypothesis: string | null;

  @ApiProperty({ enum: EXPERIMENT_STATES, example: 'running' })
  state: ExperimentState;

  @ApiProperty({ type: [ArmResponse] })
  arms: ArmResponse[];

  @ApiProperty({ example: 'size help' })
  control_arm: string;

  @ApiProperty({ type: [String], format: 'uuid', nullable: true, example: null })
  product_ids: string[] | null;

  @ApiProperty({ type: [String], format: 'uuid', nullable: true, example: null })
  product_type_ids: string[] | null;

  @ApiProperty({ enum: METRICS, example: 'size_return_rate' })
  primary_metric: Metric;

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...METRICS] }, example: ['conversion'] })
  guardrails: Metric[];

  @ApiProperty({ example: 0.03 })
  minimum_effect: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: null,
    description: 'The baseline rate given; null: the plan assumes a typical rate for the metric (`plan.baseline_rate`).',
  })
  baseline_rate: number | null;

  @ApiProperty({ type: ExperimentPlan })
  plan: ExperimentPlan;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  updated_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: EXAMPLE_TIME.updated })
  started_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  stopped_at: string | null;

  static from(this: void, experiment: Experiment, plan: ExperimentPlan): ExperimentResponse {
    return {
      id: experiment.id,
      store_id: experiment.storeId,
      name: experiment.name,
      hypothesis: experiment.hypothesis,
      state: experiment.state,
      arms: experiment.arms.map(({ name, share, treatment }) => ({ name, share, treatment })),
      control_arm: experiment.controlArm,
      product_ids: experiment.productIds,
      product_type_ids: experiment.productTypeIds,
      primary_metric: experiment.primaryMetric,
      guardrails: experiment.guardrails,
      minimum_effect: experiment.minimumEffect,
      baseline_rate: experiment.baselineRate,
      plan,
      created_at: experiment.createdAt.toISOString(),
      updated_at: experiment.updatedAt.toISOString(),
      started_at: experiment.startedAt?.toISOString() ?? null,
      stopped_at: experiment.stoppedAt?.toISOString() ?? null,
    };
  }
}

export class AssignmentRequest {
  @ApiProperty({
    maxLength: 200,
    description: 'Your pseudonymous id for the shopper, as sessions and purchases take it (`shopper_ref`). Stored only as a keyed hash.',
    example: 'cust_8f3a2c',
  })
  @IsText(200)
  shopper_ref: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product, description: 'The product whose page is being shown.' })
  @IsUUID('all', { message: 'product_id must be an id' })
  product_id: string;
}

export class AssignmentResponse {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: EXAMPLE_ID.experiment,
    description: 'The running experiment the product takes part in; null when none.',
  })
  experiment_id: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'holdout', description: 'The shopper’s arm; null outside an experiment.' })
  arm: string | null;

  @ApiProperty({
    enum: TREATMENTS,
    example: 'no_size_help',
    description:
      'What to show: `size_help` (the widget), `no_size_help` (no size help entry point), `chart_only` (the widget; the service answers from the chart alone).',
  })
  treatment: Treatment;
}

export type { ExperimentPlan };
