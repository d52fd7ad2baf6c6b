/** The shape of the generated `body-model.coefficients.ts` (written by `npm run fit:body-model`). */

/** Regression terms, in the order of every coefficient row. */
export type RegressionTerm = 'intercept' | 'logHeightCm' | 'logWeightKg' | 'ageYears';

export interface RegressionModel {
  readonly terms: readonly RegressionTerm[];
  /** One row per zone, in `ZONES` order: log(zone cm) = Σ coefficient × term. */
  readonly coefficients: readonly (readonly number[])[];
  /** Zones (by name) whose weight coefficient was negative and was refitted without the weight term (fixed at 0). */
  readonly weightTermDropped: readonly string[];
  /** Residual covariance of log(zone cm), 9×9 in `ZONES` order (divisor n − p). */
  readonly residualCovariance: readonly (readonly number[])[];
}

export interface SexBodyModel {
  readonly trainingRows: number;
  /** Bivariate normal of (log height cm, log weight kg), for the sex mixture when the sex is not given. */
  readonly heightWeight: { readonly mean: readonly number[]; readonly covariance: readonly (readonly number[])[] };
  /** Ages seen in training; answered ages are clamped into this range. */
  readonly ageRange: { readonly min: number; readonly max: number };
  readonly withAge: RegressionModel;
  readonly withoutAge: RegressionModel;
}

export interface BodyModelProvenance {
  readonly script: string;
  readonly fittedOn: string;
  readonly sourceFiles: readonly { readonly name: string; readonly sha256: string; readonly rows: number }[];
  readonly rowsUsed: Readonly<Record<string, { readonly train: number; readonly test: number; readonly excluded: number }>>;
  readonly split: string;
  readonly formula: string;
  readonly zoneColumns: Readonly<Record<string, string>>;
  readonly units: string;
}

export interface BodyModelCoefficients {
  readonly modelVersion: string;
  readonly female: SexBodyModel;
  readonly male: SexBodyModel;
  readonly provenance: BodyModelProvenance;
}
