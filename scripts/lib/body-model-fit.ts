/**
 * Fitting the body model (scripts only): waist and hip on NHANES civilians, the zones NHANES does not measure on
 * ANSUR II, joined into one model per sex. `npm run fit:body-model` fits it on all the training data; `npm run eval:fit`
 * refits it on every cross-validation fold. docs/fit-quality.md argues each step.
 */
import type { RegressionModel, RegressionTerm, SexBodyModel, SpreadModel, SpreadTerm } from '../../src/sizing/body-model.schema.js';
import { cholesky, meanAndCovariance, ols, type Matrix } from '../../src/sizing/linalg.js';
import { ZONES, type Sex, type Zone } from '../../src/sizing/types.js';
import type { Subject } from './ansur.js';
import type { Person } from './nhanes.js';

/** The zones NHANES measures; every other zone comes from ANSUR II. */
export const CIVILIAN_ZONES: readonly Zone[] = ['waist', 'hip'];
/** The zone both surveys measure at the same site (maximum of the buttocks): the bridge between them. */
const BRIDGE_ZONE: Zone = 'hip';
/**
 * The ANSUR girths that could follow the civilian hip (soft tissue varies more among civilians than among soldiers);
 * the skeletal lengths (inseam, sleeve, foot, head) never do.
 */
export const BRIDGED_ZONES: readonly Zone[] = ['chest', 'neck', 'thigh'];

export const SPREAD_CENTRE_AGE = 50;
export const SPREAD_MULTIPLIER_RANGE = { min: 0.6, max: 2.5 } as const;

/**
 * Two ways to carry the civilians' difference into the ANSUR girths, both off in the shipped model: each costs more
 * than a point of exact size on ANSUR II's held-out subjects, and no data set at hand measures civilians at those sites
 * to show a gain. `npm run eval:fit` reports all three (docs/fit-quality.md).
 */
export interface FitOptions {
  /** Waist and hip from NHANES (the design); off, every zone from ANSUR II: the engine before the civilian model. */
  readonly civilianZones: boolean;
  /** Move the bridged ANSUR girths' means by their share of the civilian hip's difference from the soldiers'. */
  readonly shiftMeans: boolean;
  /** Widen the bridged ANSUR girths' spread as much as the civilian hip's is wider than the soldiers'. */
  readonly widenGirths: boolean;
}

export const DEFAULT_FIT_OPTIONS: FitOptions = { civilianZones: true, shiftMeans: false, widenGirths: false };

interface Body {
  readonly heightCm: number;
  readonly weightKg: number;
  readonly age: number;
}

const clamp = (x: number, min: number, max: number) => Math.min(Math.max(x, min), max);

function design(b: Body, terms: readonly RegressionTerm[]): number[] {
  return terms.map((t) => {
    switch (t) {
      case 'intercept':
        return 1;
      case 'logHeightCm':
        return Math.log(b.heightCm);
      case 'logWeightKg':
        return Math.log(b.weightKg);
      case 'ageYears':
        return b.age;
      case 'ageSquared':
        return (b.age / 10) ** 2;
    }
  });
}

function spreadDesign(b: Body, terms: readonly SpreadTerm[]): number[] {
  return terms.map((t) => {
    switch (t) {
      case 'intercept':
        return 1;
      case 'ageDecades':
        return (b.age - SPREAD_CENTRE_AGE) / 10;
    }
  });
}

/**
 * OLS of every column of y on the terms; a zone whose weight coefficient comes out negative is refitted without it, so
 * a heavier body never gets a smaller estimate. Throws when a zone would shrink with height at a constant BMI.
 */
function monotoneOls(
  bodies: readonly Body[],
  y: readonly (readonly number[])[],
  terms: readonly RegressionTerm[],
  zones: readonly Zone[],
): { coefficients: number[][]; residuals: number[][]; weightTermDropped: Zone[] } {
  const x = bodies.map((b) => design(b, terms));
  const full = ols(x, y);
  const coefficients = full.coefficients.map((row) => [...row]);
  const w = terms.indexOf('logWeightKg');
  const h = terms.indexOf('logHeightCm');
  const weightTermDropped: Zone[] = [];
  zones.forEach((zone, j) => {
    if (coefficients[j][w] >= 0) return;
    weightTermDropped.push(zone);
    const reduced = ols(
      x.map((row) => row.filter((_, i) => i !== w)),
      y.map((row) => [row[j]]),
    );
    const refit = [...reduced.coefficients[0]];
    refit.splice(w, 0, 0);
    coefficients[j] = refit;
  });
  zones.forEach((zone, j) => {
    const [bh, bw] = [coefficients[j][h], coefficients[j][w]];
    if (bw < 0 || bh + 2 * bw < 0) throw new Error(`${zone}: the fit is not monotone in body size (bh ${bh}, bw ${bw})`);
  });
  const residuals = y.map((row, r) => row.map((v, j) => v - coefficients[j].reduce((s, b, i) => s + b * x[r][i], 0)));
  return { coefficients, residuals, weightTermDropped };
}

/**
 * The spread of residuals r across ages: log(r²) regressed on the spread terms (the slopes of log sd are half of
 * log r²'s), then the base variance is the mean of r² / multiplier², so the multiplier is 1 on average.
 */
function fitSpread(bodies: readonly Body[], residuals: readonly number[], terms: readonly SpreadTerm[]) {
  const u = bodies.map((b) => spreadDesign(b, terms));
  const fit = ols(
    u,
    residuals.map((r) => [Math.log(r * r + 1e-8)]),
  );
  const slopes = fit.coefficients[0].map((c, i) => (terms[i] === 'intercept' ? 0 : c / 2));
  const multiplier = (i: number) =>
    clamp(Math.exp(slopes.reduce((s, c, k) => s + c * u[i][k], 0)), SPREAD_MULTIPLIER_RANGE.min, SPREAD_MULTIPLIER_RANGE.max);
  const variance = residuals.reduce((s, r, i) => s + (r / multiplier(i)) ** 2, 0) / residuals.length;
  return { slopes, variance, standardised: residuals.map((r, i) => r / multiplier(i) / Math.sqrt(variance)) };
}

/** Shrinks the off-diagonal correlations until the matrix is positive definite (joining two surveys may break it). */
function positiveDefinite(corr: Matrix): { corr: Matrix; shrink: number } {
  for (let shrink = 1; shrink > 0.5; shrink -= 0.01) {
    const c = corr.map((row, i) => row.map((v, j) => (i === j ? 1 : v * shrink)));
    try {
      const l = cholesky(c.map((row) => [...row]));
      if (l.every((row, i) => row[i] > 1e-6)) return { corr: c, shrink };
    } catch {
      // not yet
    }
  }
  throw new Error('residual correlations could not be made positive definite');
}

function fitRegression(
  nhanes: readonly Person[],
  ansur: readonly Subject[],
  withAge: boolean,
  options: FitOptions,
): { model: RegressionModel; notes: string[] } {
  const notes: string[] = [];
  const ansurTerms: RegressionTerm[] = withAge
    ? ['intercept', 'logHeightCm', 'logWeightKg', 'ageYears']
    : ['intercept', 'logHeightCm', 'logWeightKg'];
  const terms: RegressionTerm[] = withAge ? [...ansurTerms, 'ageSquared'] : ansurTerms;
  // the spread follows age only: one that grew with BMI would let a heavier shopper's smaller sizes gain probability
  const spreadTerms: SpreadTerm[] = withAge ? ['intercept', 'ageDecades'] : ['intercept'];

  // ANSUR II: every zone (the civilian ones only for the correlations and the bridge)
  const a = monotoneOls(
    ansur,
    ansur.map((s) => ZONES.map((z) => Math.log(s.zones[z]))),
    ansurTerms,
    ZONES,
  );
  const ansurCov = meanAndCovariance(a.residuals).covariance;
  const ansurSd = ZONES.map((_, i) => Math.sqrt(ansurCov[i][i]));

  // NHANES: the civilian zones, their spread, their correlation
  const c = monotoneOls(
    nhanes,
    nhanes.map((p) => CIVILIAN_ZONES.map((z) => Math.log(z === 'waist' ? p.waistCm : p.hipCm))),
    terms,
    CIVILIAN_ZONES,
  );
  const spreads = CIVILIAN_ZONES.map((_, j) =>
    fitSpread(
      nhanes,
      c.residuals.map((r) => r[j]),
      spreadTerms,
    ),
  );
  const civilianCorr = spreads[0].standardised.reduce((s, v, i) => s + v * spreads[1].standardised[i], 0) / (nhanes.length - 1);

  const zi = (z: Zone) => ZONES.indexOf(z);
  const civilianIndex = (z: Zone) => CIVILIAN_ZONES.indexOf(z);
  const bridge = zi(BRIDGE_ZONE);
  const bridgeSpread = spreads[civilianIndex(BRIDGE_ZONE)];
  const widening = Math.sqrt(bridgeSpread.variance) / ansurSd[bridge];
  const pad = (row: readonly number[]) => terms.map((t) => (ansurTerms.includes(t) ? row[ansurTerms.indexOf(t)] : 0));
  const ansurAge = { min: Math.min(...ansur.map((s) => s.age)), max: Math.max(...ansur.map((s) => s.age)) };
  const civilianAge = { min: Math.min(...nhanes.map((p) => p.age)), max: Math.max(...nhanes.map((p) => p.age)) };

  const coefficients: number[][] = [];
  const spreadRows: number[][] = [];
  const sd: number[] = [];
  const ageRanges: { min: number; max: number }[] = [];
  const weightTermDropped: string[] = [];
  const h = terms.indexOf('logHeightCm');
  const w = terms.indexOf('logWeightKg');
  ZONES.forEach((zone, z) => {
    const j = options.civilianZones ? civilianIndex(zone) : -1;
    if (j >= 0) {
      coefficients.push(c.coefficients[j]);
      spreadRows.push(spreads[j].slopes);
      sd.push(Math.sqrt(spreads[j].variance));
      ageRanges.push(civilianAge);
      if (c.weightTermDropped.includes(zone)) weightTermDropped.push(zone);
      return;
    }
    // an ANSUR zone, as ANSUR II measured it unless an option carries the civilian hip's difference into a girth
    let row = pad(a.coefficients[z]);
    const bridged = BRIDGED_ZONES.includes(zone);
    const widened = bridged && options.widenGirths;
    if (bridged && options.shiftMeans) {
      const beta = ansurCov[z][bridge] / ansurCov[bridge][bridge];
      const shift = c.coefficients[civilianIndex(BRIDGE_ZONE)].map((v, i) => beta * (v - pad(a.coefficients[bridge])[i]));
      const moved = row.map((v, i) => v + shift[i]);
      if (moved[w] >= 0 && moved[h] + 2 * moved[w] >= 0) row = moved;
      else notes.push(`${zone}: the civilian shift would break monotonicity; left on ANSUR II alone`);
    }
    coefficients.push(row);
    spreadRows.push(widened ? bridgeSpread.slopes : spreadTerms.map(() => 0));
    sd.push(ansurSd[z] * (widened ? widening : 1));
    ageRanges.push(ansurAge);
    if (a.weightTermDropped.includes(zone)) weightTermDropped.push(zone);
  });

  // correlations: ANSUR II's, except between the civilian zones (NHANES's)
  const corr = ZONES.map((_, i) => ZONES.map((__, j) => (i === j ? 1 : ansurCov[i][j] / (ansurSd[i] * ansurSd[j]))));
  if (options.civilianZones) {
    corr[zi('waist')][zi('hip')] = civilianCorr;
    corr[zi('hip')][zi('waist')] = civilianCorr;
  }
  const pd = positiveDefinite(corr);
  if (pd.shrink < 1) notes.push(`correlations shrunk by ${pd.shrink.toFixed(2)} to stay positive definite`);
  const residualCovariance = pd.corr.map((row, i) => row.map((v, j) => v * sd[i] * sd[j]));

  const spread: SpreadModel = {
    terms: spreadTerms,
    centreAge: SPREAD_CENTRE_AGE,
    multiplierRange: SPREAD_MULTIPLIER_RANGE,
    coefficients: spreadRows,
  };
  return { model: { terms, coefficients, ageRanges, weightTermDropped, residualCovariance, spread }, notes };
}

export interface SexFit {
  readonly model: SexBodyModel;
  readonly notes: readonly string[];
}

export function fitSex(nhanes: readonly Person[], ansur: readonly Subject[], options: FitOptions = DEFAULT_FIT_OPTIONS): SexFit {
  const people: readonly { heightCm: number; weightKg: number }[] = options.civilianZones ? nhanes : ansur;
  const hw = meanAndCovariance(people.map((p) => [Math.log(p.heightCm), Math.log(p.weightKg)]));
  const withAge = fitRegression(nhanes, ansur, true, options);
  const withoutAge = fitRegression(nhanes, ansur, false, options);
  return {
    model: {
      trainingRows: { nhanes: nhanes.length, ansur: ansur.length },
      heightWeight: { mean: hw.mean, covariance: hw.covariance },
      withAge: withAge.model,
      withoutAge: withoutAge.model,
    },
    notes: [...withAge.notes.map((n) => `with age: ${n}`), ...withoutAge.notes.map((n) => `without age: ${n}`)],
  };
}

export function fitBodyModel(
  nhanes: readonly Person[],
  ansur: readonly Subject[],
  options: FitOptions = DEFAULT_FIT_OPTIONS,
): Record<Sex, SexFit> {
  const of = <T extends { sex: Sex }>(rows: readonly T[], sex: Sex) => rows.filter((r) => r.sex === sex);
  return {
    female: fitSex(of(nhanes, 'female'), of(ansur, 'female'), options),
    male: fitSex(of(nhanes, 'male'), of(ansur, 'male'), options),
  };
}
