import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { LessonSource } from './line-lessons.repository.js';

/**
 * The tables of learning, as the migrations make them (the repositories write them in SQL of their own: the sums are
 * added to in place, in the transaction that stores the outcomes). `test/architecture/entities.e2e-spec.ts` keeps these
 * descriptions true to the schema.
 */

/** The decaying sums of what outcomes said about fit (sizing/learning.ts), as each row of evidence holds them. */
abstract class EvidenceSums {
  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @Column({ type: 'double precision' })
  weight: number;

  @Column({ type: 'double precision', name: 'weighted_steps' })
  weightedSteps: number;

  @Column({ type: 'double precision', name: 'weighted_squares' })
  weightedSquares: number;

  /** Size problems with no direction. */
  @Column({ type: 'double precision' })
  undirected: number;

  /** Undirected problems of a size bought above the chart's answer. */
  @Column({ type: 'double precision', name: 'undirected_above' })
  undirectedAbove: number;

  /** Undirected problems of a size bought below the chart's answer. */
  @Column({ type: 'double precision', name: 'undirected_below' })
  undirectedBelow: number;

  /** "At least so many steps", one element per step of BOUND_STEPS. */
  @Column({ type: 'double precision', name: 'at_least', array: true })
  atLeast: number[];

  /** "At most so many steps", one element per step of BOUND_STEPS. */
  @Column({ type: 'double precision', name: 'at_most', array: true })
  atMost: number[];

  @Column({ type: 'integer' })
  outcomes: number;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}

/** `fit_evidence`: a product's sums. */
@Entity({ name: 'fit_evidence' })
class ProductEvidence extends EvidenceSums {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'uuid', name: 'product_id' })
  productId: string;

  @Column({ type: 'uuid', name: 'product_type_id' })
  productTypeId: string;
}

/** `fit_evidence_types`: a product type's sums, those of its products' rows as they were added. */
@Entity({ name: 'fit_evidence_types' })
class ProductTypeEvidence extends EvidenceSums {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'uuid', name: 'product_type_id' })
  productTypeId: string;
}

/** `shopper_evidence`: how a returning shopper's outcomes departed from her products' learned fit. */
@Entity({ name: 'shopper_evidence' })
class ShopperEvidence extends EvidenceSums {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  /** The store's keyed digest of the shopper (fit/shoppers.repository.ts), never her id. */
  @PrimaryColumn({ type: 'bytea', name: 'shopper_digest' })
  shopperDigest: Buffer;
}

/**
 * `line_lessons`: what an order line teaches now, and exactly what it added to the sums (`LineLesson` in
 * line-lessons.repository.ts reads and writes it).
 */
@Entity({ name: 'line_lessons' })
class LineLessonRecord {
  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'text', name: 'order_id' })
  orderId: string;

  @PrimaryColumn({ type: 'text', name: 'line_item_id' })
  lineItemId: string;

  @Column({ type: 'uuid', name: 'product_id' })
  productId: string;

  @Column({ type: 'uuid', name: 'variant_id', nullable: true })
  variantId: string | null;

  @Column({ type: 'uuid', name: 'event_id', nullable: true })
  eventId: string | null;

  @Column({ type: 'timestamptz', name: 'occurred_at' })
  occurredAt: Date;

  @Column({ type: 'boolean' })
  counted: boolean;

  @Column({ type: 'uuid', name: 'product_type_id', nullable: true })
  productTypeId: string | null;

  /** The evidence added, its date as text. */
  @Column({ type: 'jsonb', nullable: true })
  evidence: object | null;

  @Column({ type: 'bytea', name: 'shopper_digest', nullable: true })
  shopperDigest: Buffer | null;

  @Column({ type: 'double precision', name: 'shopper_offset', nullable: true })
  shopperOffset: number | null;

  /** Who told the outcome behind the lesson: an event (or a session's decision), or an import of past orders. */
  @Column({ type: 'text' })
  source: LessonSource;

  /** What it added to its store's answer link (`{kind, sums}`), null when nothing. */
  @Column({ type: 'jsonb', name: 'answer_link', nullable: true })
  answerLink: object | null;

  /** What it added to its store's verdict odds (`{verdict, at, places, expected}`), null when nothing. */
  @Column({ type: 'jsonb', nullable: true })
  verdict: object | null;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}

/** `fit_answer_links`: per store and kind of answer, the decaying sums of its answer link (sizing/answer-link.ts). */
@Entity({ name: 'fit_answer_links' })
class AnswerLinkRecord {
  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @PrimaryColumn({ type: 'text' })
  kind: string;

  /** The regressors' products, k×k row-major. */
  @Column({ type: 'double precision', array: true })
  xx: number[];

  /** The regressors' products with where her size lay. */
  @Column({ type: 'double precision', array: true })
  xy: number[];

  @Column({ type: 'double precision' })
  yy: number;

  /** The answers' own variances. */
  @Column({ type: 'double precision' })
  vv: number;

  @Column({ type: 'double precision' })
  weight: number;

  @Column({ type: 'integer' })
  outcomes: number;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}

/** `fit_verdicts`: per store and key, the decaying sums of the verdicts its outcomes gave (sizing/verdicts.ts). */
@Entity({ name: 'fit_verdicts' })
class VerdictRecord {
  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  /** `store`, `product:<id>`, `type:<id>`, `place:<from the answer's mean>:<from her usual size>` or `usual:<from her usual size>`. */
  @PrimaryColumn({ type: 'text' })
  key: string;

  /** Too small, fit, too large. */
  @Column({ type: 'double precision', array: true })
  observed: number[];

  /** What the item's rates expected of them (a place's rows only). */
  @Column({ type: 'double precision', array: true })
  expected: number[];

  @Column({ type: 'integer' })
  outcomes: number;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}

/** The entities of learning, registered by its module. */
export const LEARNING_ENTITIES = [ProductEvidence, ProductTypeEvidence, ShopperEvidence, LineLessonRecord, AnswerLinkRecord, VerdictRecord];
