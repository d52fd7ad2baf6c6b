import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { StoreOwned } from '../common/tenancy/store-owned.entity.js';

/** A question of a questionnaire: a key the engine understands (`height`, `chest`…) or `custom:<name>`. */
export interface Question {
  key: string;
  required: boolean;
}

@Entity({ name: 'questionnaires' })
export class Questionnaire extends StoreOwned {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'jsonb' })
  questions: Question[];

  @Column({ type: 'boolean', name: 'is_default' })
  isDefault: boolean;

  @Column({ type: 'timestamptz', name: 'archived_at', nullable: true })
  archivedAt: Date | null;
}

/** Every version a questionnaire has had, the current one included. */
@Entity({ name: 'questionnaire_versions' })
export class QuestionnaireVersion {
  @PrimaryColumn({ type: 'uuid', name: 'questionnaire_id' })
  questionnaireId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  questions: Question[];

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}

export const SESSION_STATES = ['started', 'recommended', 'completed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];
export const OUTCOMES = ['accepted', 'overridden'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The recommendation as stored and as answered (snake_case, the API's shape). */
export interface StoredRecommendation {
  id: string;
  size_label: string;
  variant_id: string | null;
  confidence: number;
  fit: Record<string, string>;
  alternatives: { size_label: string; variant_id: string | null; confidence: number }[];
  measurements: Record<string, { value_cm: number; source: 'answered' | 'estimated'; sd_cm: number }>;
  model_version: string;
  /** What moved the stated chart's answer; absent on recommendations made before it was recorded. */
  adjustment?: StoredAdjustment;
  /**
   * Per size of the chart, in its order, what it is likely to turn out as should she take it (sizing/verdicts.ts);
   * absent while the store had too few outcomes to tell, and on recommendations made before they were given.
   */
  outcomes?: StoredOutcome[];
  /**
   * What the answer read of her, in chart positions (sizing/answer-link.ts): kept so that her outcome can teach the
   * store's link; never part of a response. Absent on recommendations made before it was recorded.
   */
  features?: { mean: number; variance: number; body: boolean; usual: number | null; offset: number };
  created_at: string;
}

/** What a size is likely to turn out as, should the shopper take it (snake_case, the API's shape). */
export interface StoredOutcome {
  size_label: string;
  variant_id: string | null;
  too_small: number;
  fit: number;
  too_large: number;
}

export const ADJUSTMENT_SOURCES = ['learned', 'merchant', 'none'] as const;
export type AdjustmentSource = (typeof ADJUSTMENT_SOURCES)[number];

/** The adjustment a recommendation used (snake_case, the API's shape). */
export interface StoredAdjustment {
  /** `learned` from outcomes (on top of the merchant's own adjustment), `merchant` (its `fit_adjustment` alone), or none. */
  source: AdjustmentSource;
  /** Size steps the product runs small (positive) or large (negative), as used. */
  size_steps: number;
  /** The learned offset's standard deviation, in size steps; null unless learned. */
  sd: number | null;
  /** The product's own outcomes behind the learned offset. */
  evidence: number;
  /** The size the stated chart answers without the learned offset (the reference outcomes are measured from). */
  chart_size_label: string;
  /** The returning shopper's own offset included in `size_steps`; null without a shopper with history. */
  shopper_steps?: number | null;
}

export interface StoredDecision {
  size_label: string;
  variant_id: string | null;
  outcome: Outcome;
  decided_at: string;
}

/** The treatments a session can run under: a holdout's shopper gets no session (`experiment_holdout`). */
export type SessionTreatment = 'size_help' | 'chart_only';

@Entity({ name: 'sessions' })
export class FitSession extends StoreOwned {
  @Column({ type: 'uuid', name: 'product_id' })
  productId: string;

  @Column({ type: 'uuid', name: 'size_chart_id' })
  sizeChartId: string;

  @Column({ type: 'uuid', name: 'questionnaire_id', nullable: true })
  questionnaireId: string | null;

  @Column({ type: 'integer', name: 'questionnaire_version', nullable: true })
  questionnaireVersion: number | null;

  /** The questions as they were when the session started: later edits of the questionnaire do not reach it. */
  @Column({ type: 'jsonb' })
  questions: Question[];

  @Column({ type: 'text' })
  state: SessionState;

  @Column({ type: 'text', nullable: true })
  outcome: Outcome | null;

  /** As the shopper sent them (units included), so the session reads back exactly as answered. */
  @Column({ type: 'jsonb', nullable: true })
  answers: object | null;

  @Column({ type: 'jsonb', nullable: true })
  recommendation: StoredRecommendation | null;

  @Column({ type: 'jsonb', nullable: true })
  decision: StoredDecision | null;

  @Column({ type: 'timestamptz', name: 'recommended_at', nullable: true })
  recommendedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'completed_at', nullable: true })
  completedAt: Date | null;

  /** HMAC of the integrator's id for the shopper under the store's key (shoppers.repository.ts); never the id itself. */
  @Column({ type: 'bytea', name: 'shopper_digest', nullable: true, select: false })
  shopperDigest?: Buffer | null;

  /** The running experiment the session's shopper takes part in (her arm's treatment below), if any. */
  @Column({ type: 'uuid', name: 'experiment_id', nullable: true, select: false })
  experimentId?: string | null;

  /** Her arm's treatment in that experiment: `chart_only` answers from the stated chart alone. */
  @Column({ type: 'text', nullable: true, select: false })
  treatment?: SessionTreatment | null;

  /** The earliest purchase event naming the session: written by event ingestion, read by the metrics only. */
  @Column({ type: 'timestamptz', name: 'first_purchased_at', nullable: true, insert: false, update: false, select: false })
  firstPurchasedAt?: Date | null;
}

/** The store's random key for shopper digests (shoppers.repository.ts), created with its first session naming a shopper. */
@Entity({ name: 'shopper_keys' })
class ShopperKey {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'bytea', select: false })
  key: Buffer;
}

/** The entities of fit, registered by its module. */
export const FIT_ENTITIES = [Questionnaire, QuestionnaireVersion, FitSession, ShopperKey];
