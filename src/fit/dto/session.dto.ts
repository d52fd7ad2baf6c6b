import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsObject, IsUUID } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { productIdMessage, variantIdMessage } from '../../catalog/catalog-references.js';
import { FIT_VERDICTS } from '../../sizing/types.js';
import {
  ADJUSTMENT_SOURCES,
  type AdjustmentSource,
  type FitSession,
  OUTCOMES,
  type Outcome,
  type Question,
  SESSION_STATES,
  type SessionState,
  type StoredAdjustment,
  type StoredDecision,
  type StoredRecommendation,
} from '../fit.entities.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export class CreateSessionRequest {
  @ApiProperty({ format: 'uuid', description: 'An active product of the store.', example: EXAMPLE_ID.product })
  @IsUUID('all', productIdMessage('product_id'))
  product_id: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "Left out: the store's default questionnaire, else height, weight, age, sex and fit_preference.",
    example: EXAMPLE_ID.questionnaire,
  })
  @IsOmittable()
  @IsUUID('all', { message: 'questionnaire_id must be an id' })
  questionnaire_id?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'Your pseudonymous id for the shopper (never an email or a name). Her earlier outcomes in this store then inform her ' +
      'recommendations. Stored only as a keyed hash, per store, never returned; `DELETE …/shoppers/{shopper_ref}` erases it.',
    example: 'cust_8f3a2c',
  })
  @IsOmittable()
  @IsText(200)
  shopper_ref?: string;
}

/** One answer: a measure (height, weight, a zone), or a number, a string or a boolean (age, sex, custom:<name>…). */
const ANSWERS_DOC: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: {
    anyOf: [
      {
        type: 'object',
        properties: {
          value: { type: 'number' },
          unit: { type: 'string', enum: ['cm', 'in', 'kg', 'lb'] },
          method: { type: 'string', enum: ['tape', 'bra_size'], description: 'Zones only: how it was measured (default tape).' },
        },
        required: ['value', 'unit'],
        additionalProperties: false,
      },
      { type: 'number' },
      { type: 'string', maxLength: 500 },
      { type: 'boolean' },
    ],
  },
  example: {
    height: { value: 178, unit: 'cm' },
    weight: { value: 76, unit: 'kg' },
    age: 34,
    sex: 'male',
    fit_preference: 'regular',
  },
};

/** The one way OpenAPI 3.0 says "this model or null": `nullable` beside a `$ref` (even in `allOf`) admits no null. */
const orNull = (model: string): ApiPropertyOptions => ({
  oneOf: [{ $ref: getSchemaPath(model) }, { type: 'object', nullable: true, enum: [null] }],
});

export class AnswersRequest {
  @ApiProperty({
    ...ANSWERS_DOC,
    description:
      'One entry per question of the session: height {value, unit: cm|in}, weight {value, unit: kg|lb}, age ' +
      '(13–100), sex (female|male), fit_preference (tighter|regular|looser), usual_size (the size label she usually ' +
      'wears, e.g. "M": weighs the sizes of a chart that has that label), any zone {value, unit: cm|in, method?: ' +
      'tape|bra_size} (bra_size: the chest read from her bra size, which the engine reads with its wider spread), ' +
      'custom:<name> (a string, number or boolean). Anything of the body, or a usual size of the chart, is enough for ' +
      'a recommendation; its confidence says how much the answers told.',
  })
  @IsObject({ message: 'answers must be an object of question key → answer' })
  answers: Record<string, unknown>;
}

export class DecisionRequest {
  @ApiPropertyOptional({ description: 'The size chosen. Send this or variant_id.', example: 'M' })
  @IsOmittable()
  @IsText(50)
  size_label?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The variant chosen. Send this or size_label.', example: EXAMPLE_ID.variant })
  @IsOmittable()
  @IsUUID('all', variantIdMessage('variant_id'))
  variant_id?: string;
}

export class SessionListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: SESSION_STATES, example: 'completed' })
  @IsOmittable()
  @IsIn(SESSION_STATES, { message: `state must be one of ${SESSION_STATES.join(', ')}` })
  state?: SessionState;

  @ApiPropertyOptional({ format: 'uuid', example: EXAMPLE_ID.product })
  @IsOmittable()
  @IsUUID('all', productIdMessage('product_id'))
  product_id?: string;
}

class SizeProbabilityResponse {
  @ApiProperty({ example: 'M' })
  size_label: string;

  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'A variant of the product in this size.',
    example: EXAMPLE_ID.variant,
  })
  variant_id: string | null;

  @ApiProperty({ minimum: 0, maximum: 1, example: 0.72 })
  confidence: number;
}

const MEASUREMENT_DOC = {
  type: 'object' as const,
  properties: {
    value_cm: { type: 'number' as const, example: 99.4 },
    source: { type: 'string' as const, enum: ['answered', 'estimated'], example: 'estimated' },
    sd_cm: {
      type: 'number' as const,
      description: 'Measurement error when answered, model uncertainty when estimated.',
      example: 3.8,
    },
  },
};

class AdjustmentResponse {
  @ApiProperty({
    enum: ADJUSTMENT_SOURCES,
    description:
      '`learned`: shifted by what this store’s outcomes taught about the product (on top of the merchant’s `fit_adjustment`); ' +
      '`merchant`: the product’s `fit_adjustment` alone; `none`: the stated chart as it is.',
    example: 'learned',
  })
  source: AdjustmentSource;

  @ApiProperty({
    description: 'Size steps the product runs small (positive: shoppers need a bigger size) or large (negative), as used.',
    example: 0.42,
  })
  size_steps: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Uncertainty of a learned offset, in size steps.', example: 0.18 })
  sd: number | null;

  @ApiProperty({ type: 'integer', description: 'The product’s own outcomes behind a learned offset.', example: 37 })
  evidence: number;

  @ApiProperty({
    description: 'What the stated chart answers for the shopper’s body alone: without the learned offset or the size she usually wears.',
    example: 'M',
  })
  chart_size_label: string;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The returning shopper’s own offset, included in `size_steps`; null without a `shopper_ref` with history.',
    example: null,
  })
  shopper_steps: number | null;
}

class SizeOutcomeResponse {
  @ApiProperty({ example: 'M' })
  size_label: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: EXAMPLE_ID.variant })
  variant_id: string | null;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The chance this size turns out too small for her.', example: 0.11 })
  too_small: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The chance it fits her.', example: 0.8 })
  fit: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The chance it turns out too large.', example: 0.09 })
  too_large: number;
}

const RECOMMENDATION_WARNINGS = ['no_variant'] as const;
type RecommendationWarningCode = (typeof RECOMMENDATION_WARNINGS)[number];

class RecommendationWarning {
  @ApiProperty({ enum: RECOMMENDATION_WARNINGS, description: 'Stable; branch on it.', example: 'no_variant' })
  code: RecommendationWarningCode;

  @ApiProperty({ description: 'For people.', example: 'The product has no variant in size M: it cannot be bought in that size yet' })
  message: string;
}

export class RecommendationResponse extends SizeProbabilityResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.recommendation })
  id: string;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The probability that this size fits best.', example: 0.72 })
  declare confidence: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...FIT_VERDICTS] },
    example: { chest: 'regular', waist: 'loose' },
  })
  fit: Record<string, string>;

  @ApiProperty({
    type: [SizeProbabilityResponse],
    description: 'The other sizes of the chart, most likely first.',
    example: [
      { size_label: 'L', variant_id: EXAMPLE_ID.variantLarge, confidence: 0.21 },
      { size_label: 'S', variant_id: null, confidence: 0.07 },
    ],
  })
  alternatives: SizeProbabilityResponse[];

  @ApiProperty({
    type: 'object',
    additionalProperties: MEASUREMENT_DOC,
    description: 'Every zone the decision used.',
    example: {
      chest: { value_cm: 99.4, source: 'estimated', sd_cm: 3.8 },
      waist: { value_cm: 84.1, source: 'estimated', sd_cm: 4.2 },
    },
  })
  measurements: StoredRecommendation['measurements'];

  @ApiProperty({
    description:
      "The body model, and the learned offset used when there is one (`…+learned.<size steps>.<sd>`, then `.shopper.<size steps>` for a returning shopper's own part).",
    example: 'civilian-20261125-7482d186',
  })
  model_version: string;

  @ApiProperty({
    type: [SizeOutcomeResponse],
    description:
      'Every size of the chart, in its order, with what it is likely to turn out as should she take it: learned from ' +
      'what happened to the sizes this store’s shoppers took (the product’s own verdicts, and what sizes taken that far ' +
      'from such an answer, or from the size she usually wears, turned out as). Unlike `confidence`, which is the chance ' +
      'a size is her best, these are the odds of a size she chooses. Empty until the store has 20 outcomes.',
    example: [
      { size_label: 'S', variant_id: null, too_small: 0.46, fit: 0.51, too_large: 0.03 },
      { size_label: 'M', variant_id: EXAMPLE_ID.variant, too_small: 0.11, fit: 0.8, too_large: 0.09 },
      { size_label: 'L', variant_id: EXAMPLE_ID.variantLarge, too_small: 0.04, fit: 0.62, too_large: 0.34 },
    ],
  })
  outcomes: SizeOutcomeResponse[];

  @ApiProperty({
    type: AdjustmentResponse,
    nullable: true,
    description: 'What moved the stated chart’s answer. null on recommendations made before adjustments were reported.',
  })
  adjustment: AdjustmentResponse | null;

  @ApiProperty({
    type: [RecommendationWarning],
    description:
      'What the shopper cannot act on as answered; empty when nothing. `no_variant`: the product has no active variant in ' +
      'the recommended size (`variant_id` is null), so the size cannot be bought until the store adds one.',
    example: [],
  })
  warnings: RecommendationWarning[];

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  created_at: string;
}

export class DecisionResponse {
  @ApiProperty({ example: 'M' })
  size_label: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: EXAMPLE_ID.variant })
  variant_id: string | null;

  @ApiProperty({ enum: OUTCOMES, example: 'accepted' })
  outcome: Outcome;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.occurred })
  decided_at: string;
}

export class SessionResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.session })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product })
  product_id: string;

  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'null: the built-in questions.',
    example: EXAMPLE_ID.questionnaire,
  })
  questionnaire_id: string | null;

  @ApiProperty({ nullable: true, type: 'integer', description: 'The version the session started with.', example: 2 })
  questionnaire_version: number | null;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      properties: { key: { type: 'string' }, required: { type: 'boolean' } },
      required: ['key', 'required'],
    },
    description: 'The questions the session asks, as its questionnaire version had them.',
    example: [
      { key: 'height', required: true },
      { key: 'weight', required: true },
      { key: 'age', required: false },
      { key: 'sex', required: false },
      { key: 'fit_preference', required: false },
    ],
  })
  questions: Question[];

  @ApiProperty({ enum: SESSION_STATES, description: 'started → recommended → completed.', example: 'completed' })
  state: SessionState;

  @ApiProperty({ enum: [...OUTCOMES, null], nullable: true, type: String, description: 'Set with the decision.', example: 'accepted' })
  outcome: Outcome | null;

  @ApiProperty({ ...ANSWERS_DOC, nullable: true, description: 'As sent; null until answered.' })
  answers: Record<string, unknown> | null;

  @ApiProperty({ ...orNull('RecommendationResponse'), description: 'null until answered.' })
  recommendation: PresentedRecommendation | null;

  @ApiProperty({ ...orNull('DecisionResponse'), description: 'null until decided.' })
  decision: StoredDecision | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.occurred })
  updated_at: string;

  static from(this: void, session: FitSession): SessionResponse {
    return {
      id: session.id,
      store_id: session.storeId,
      product_id: session.productId,
      questionnaire_id: session.questionnaireId,
      questionnaire_version: session.questionnaireVersion,
      questions: session.questions,
      state: session.state,
      outcome: session.outcome,
      answers: session.answers as Record<string, unknown> | null,
      recommendation: session.recommendation && presentRecommendation(session.recommendation),
      decision: session.decision && {
        size_label: session.decision.size_label,
        variant_id: session.decision.variant_id,
        outcome: session.decision.outcome,
        decided_at: session.decision.decided_at,
      },
      created_at: session.createdAt.toISOString(),
      updated_at: session.updatedAt.toISOString(),
    };
  }
}

/** A recommendation as answered: its adjustment always present, null when it was made before they were recorded. */
type PresentedRecommendation = Omit<StoredRecommendation, 'adjustment' | 'features' | 'outcomes'> & {
  outcomes: SizeOutcomeResponse[];
  adjustment: StoredAdjustment | null;
  warnings: RecommendationWarning[];
};

/** A recommended size without a variant cannot be bought: the answer says so, beside its null `variant_id`. */
function warningsOf(r: StoredRecommendation): RecommendationWarning[] {
  if (r.variant_id !== null) return [];
  return [{ code: 'no_variant', message: `The product has no variant in size ${r.size_label}: it cannot be bought in that size yet` }];
}

/** The stored JSON in the documented field order (jsonb keeps its own key order). */
function presentRecommendation(r: StoredRecommendation): PresentedRecommendation {
  return {
    id: r.id,
    size_label: r.size_label,
    variant_id: r.variant_id,
    confidence: r.confidence,
    fit: r.fit,
    alternatives: r.alternatives.map((a) => ({ size_label: a.size_label, variant_id: a.variant_id, confidence: a.confidence })),
    measurements: Object.fromEntries(
      Object.entries(r.measurements).map(([zone, m]) => [zone, { value_cm: m.value_cm, source: m.source, sd_cm: m.sd_cm }]),
    ),
    model_version: r.model_version,
    outcomes: (r.outcomes ?? []).map((o) => ({
      size_label: o.size_label,
      variant_id: o.variant_id,
      too_small: o.too_small,
      fit: o.fit,
      too_large: o.too_large,
    })),
    adjustment: r.adjustment
      ? {
          source: r.adjustment.source,
          size_steps: r.adjustment.size_steps,
          sd: r.adjustment.sd,
          evidence: r.adjustment.evidence,
          chart_size_label: r.adjustment.chart_size_label,
          shopper_steps: r.adjustment.shopper_steps ?? null,
        }
      : null,
    warnings: warningsOf(r),
    created_at: r.created_at,
  };
}
