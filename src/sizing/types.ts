/**
 * The recommendation engine's vocabulary. The engine is pure: no Nest, no database, no I/O. Every length it sees is in
 * centimetres and every weight in kilograms; the service converts units once, at the edge, before calling it.
 */
import type { AnswerFeatures, AnswerLink, LinkKind } from './answer-link.js';

export const ZONES = ['chest', 'waist', 'hip', 'inseam', 'neck', 'sleeve', 'foot_length', 'head', 'thigh'] as const;
export type Zone = (typeof ZONES)[number];

export function isZone(key: string): key is Zone {
  return (ZONES as readonly string[]).includes(key);
}

export const SEXES = ['female', 'male'] as const;
export type Sex = (typeof SEXES)[number];

export const FIT_PREFERENCES = ['tighter', 'regular', 'looser'] as const;
export type FitPreference = (typeof FIT_PREFERENCES)[number];

export const FIT_ADJUSTMENTS = ['runs_small', 'true_to_size', 'runs_large'] as const;
export type FitAdjustment = (typeof FIT_ADJUSTMENTS)[number];

export const FIT_VERDICTS = ['too_small', 'snug', 'regular', 'loose', 'too_large'] as const;
export type FitVerdict = (typeof FIT_VERDICTS)[number];

export type ZoneWeights = Partial<Record<Zone, number>>;

/** A size of a chart, every range in centimetres. */
export interface ChartSize {
  readonly label: string;
  readonly measurements: Partial<Record<Zone, { readonly min: number; readonly max: number }>>;
}

/** A size chart in centimetres, smallest size first. */
export interface Chart {
  readonly measurementType: 'body' | 'garment';
  /** Garment charts only: the room the garment adds over the body. 0 for body charts. */
  readonly easeCm: number;
  readonly sizes: readonly ChartSize[];
}

/** What the shopper told us, already in cm / kg. Anything may be missing. */
export interface Shopper {
  readonly heightCm?: number;
  readonly weightKg?: number;
  readonly age?: number;
  readonly sex?: Sex;
  readonly fitPreference?: FitPreference;
  /** Body measurements the shopper answered, in cm. */
  readonly measured: Partial<Record<Zone, number>>;
  /**
   * The sd (cm) of an answered measurement that was not taken with a tape (a bust read from a bra size), by zone;
   * absent for a zone: the tape's error (ANSWER_SD_CM).
   */
  readonly measuredSdCm?: Partial<Record<Zone, number>>;
  /** The size she says she usually wears, as a label (used where the chart has that label). */
  readonly usualSize?: string;
}

export interface RecommendInput {
  readonly shopper: Shopper;
  readonly chart: Chart;
  readonly zoneWeights: ZoneWeights;
  readonly fitAdjustment: FitAdjustment;
  /**
   * What outcomes taught about the product: its sizes run `steps` sizes small (positive) or large (negative), known to
   * within `sd` steps (sizing/learning.ts). Absent: the stated chart alone.
   */
  readonly learned?: LearnedShift;
  /**
   * What the store's outcomes taught about how its answers should read a shopper, per kind of answer (answer-link.ts):
   * where one is given for the kind of this shopper's answers, the answer is its distribution. Absent: the engine's own.
   */
  readonly links?: Partial<Record<LinkKind, AnswerLink>>;
}

/** A learned offset as the engine uses it, in size steps; both are rounded to hundredths, as `modelVersion` names them. */
export interface LearnedShift {
  readonly steps: number;
  readonly sd: number;
  /**
   * The part of `steps` that is the returning shopper's own offset (docs/decisions/009-learning-from-outcomes.md), 0 or
   * absent for anyone else. It moves the chart for her body like the rest, but not the size she names as usual: that
   * size already carries her own preference, so it is read at the named size plus how the product runs.
   */
  readonly shopperSteps?: number | null;
}

export interface MeasurementUsed {
  readonly valueCm: number;
  readonly source: 'answered' | 'estimated';
  readonly sdCm: number;
}

export interface SizeProbability {
  readonly sizeLabel: string;
  readonly confidence: number;
}

export interface Recommendation {
  readonly sizeLabel: string;
  /** Probability (0–1) that this size is the best fit, given the uncertainty of the measurements. */
  readonly confidence: number;
  /** The other sizes with a non-zero probability, most likely first. */
  readonly alternatives: readonly SizeProbability[];
  /** Fit of the recommended size in each zone the chart defines for it. */
  readonly fit: Partial<Record<Zone, FitVerdict>>;
  /** Every zone the decision used: answered, or estimated with its standard deviation. */
  readonly measurements: Partial<Record<Zone, MeasurementUsed>>;
  /**
   * The size the stated chart answers for her body alone, before any learned offset or weighting by the size she usually
   * wears (the same as `sizeLabel` without either): the reference outcomes are measured from.
   */
  readonly chartSizeLabel: string;
  /** What the answer read of her, kept with the session: the store's link learns from it once her outcome is known. */
  readonly features: AnswerFeatures;
  /** The body model's version, with the learned offset used when there is one (`…+learned.0.42.0.18`). */
  readonly modelVersion: string;
}

/**
 * The engine cannot recommend from these answers: a needed input is missing (for example no height and weight and no
 * measurement of a zone that matters). `fields` are answer keys (`height`, `weight`, `chest`…), one entry each.
 */
export class InsufficientAnswersError extends Error {
  override readonly name = 'InsufficientAnswersError';
  constructor(readonly fields: readonly { readonly field: string; readonly message: string }[]) {
    super(fields.map((f) => f.message).join('; '));
  }
}
