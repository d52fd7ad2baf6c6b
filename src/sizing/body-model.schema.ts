/** The shape of the generated `body-model.coefficients.ts` (written by `npm run fit:body-model`). */

/**
 * Regression terms, in the order of every coefficient row. `ageSquared` is (age / 10)², so the age effect may level
 * off in later life.
 */
export type RegressionTerm = 'intercept' | 'logHeightCm' | 'logWeightKg' | 'ageYears' | 'ageSquared';

/**
 * How the residual sd of a zone varies between shoppers: log(multiplier) = Σ coefficient × term, with `ageDecades` =
 * (age − centreAge) / 10, the age clamped into the zone's age range; the multiplier is then clamped into
 * `multiplierRange`. Only age moves it: a spread that grew with weight would let a heavier shopper's smaller sizes gain
 * probability (docs/fit-quality.md).
 */
export type SpreadTerm = 'intercept' | 'ageDecades';

export interface SpreadModel {
  readonly terms: readonly SpreadTerm[];
  readonly centreAge: number;
  readonly multiplierRange: { readonly min: number; readonly max: number };
  /** One row per zone, in `ZONES` order. */
  readonly coefficients: readonly (readonly number[])[];
}

export interface RegressionModel {
  readonly terms: readonly RegressionTerm[];
  /** One row per zone, in `ZONES` order: log(zone cm) = Σ coefficient × term. */
  readonly coefficients: readonly (readonly number[])[];
  /** Per zone, in `ZONES` order: the ages its row was fitted on; an answered age is clamped into it. */
  readonly ageRanges: readonly { readonly min: number; readonly max: number }[];
  /** Zones (by name) whose weight coefficient was negative and was refitted without the weight term (fixed at 0). */
  readonly weightTermDropped: readonly string[];
  /**
   * Residual covariance of log(zone cm), 9×9 in `ZONES` order, for a shopper whose spread multiplier is 1: the sd of
   * zone z for a shopper is √cov[z][z] × multiplier_z, the correlations stay.
   */
  readonly residualCovariance: readonly (readonly number[])[];
  readonly spread: SpreadModel;
}

export interface SexBodyModel {
  /** Rows each source contributed to this sex's fit. */
  readonly trainingRows: Readonly<Record<string, number>>;
  /** Bivariate normal of (log height cm, log weight kg), for the sex mixture when the sex is not given. */
  readonly heightWeight: { readonly mean: readonly number[]; readonly covariance: readonly (readonly number[])[] };
  readonly withAge: RegressionModel;
  readonly withoutAge: RegressionModel;
}

interface BodyModelProvenance {
  readonly script: string;
  readonly fittedOn: string;
  readonly sourceFiles: readonly { readonly name: string; readonly sha256: string; readonly rows: number }[];
  readonly rowsUsed: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly split: string;
  readonly formula: string;
  readonly zoneSources: Readonly<Record<string, string>>;
  readonly units: string;
}

export interface BodyModelCoefficients {
  readonly modelVersion: string;
  readonly female: SexBodyModel;
  readonly male: SexBodyModel;
  readonly provenance: BodyModelProvenance;
}
