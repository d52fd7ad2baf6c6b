/**
 * The body model at run time: for a shopper of known height and weight (and maybe age and sex), the joint normal
 * distribution of the nine log zone measurements, conditioned on the zones the shopper answered.
 *
 * Everything expensive (correlations, conditioning weights, Cholesky factors) depends only on the model, the sex, on
 * whether the age is known, and on which zones are answered / estimated; it is computed once and cached. The service
 * uses the generated coefficients (`BODY_MODEL`); the evaluation compiles one model per cross-validation fold.
 */
import { BODY_MODEL_COEFFICIENTS } from './body-model.coefficients.js';
import type { BodyModelCoefficients, RegressionModel, SexBodyModel, SpreadModel } from './body-model.schema.js';
import { cholesky, nnlsGram, type Matrix } from './linalg.js';
import { ZONES, type Sex } from './types.js';

const Z = ZONES.length;

interface CompiledModel {
  /** Unique among every compiled model of the process: the caches' key. */
  readonly key: number;
  readonly regression: RegressionModel;
  /** Residual sd of each log zone for a shopper whose spread multiplier is 1. */
  readonly sd: Float64Array;
  /** Residual correlation matrix. */
  readonly corr: Matrix;
  /** Gradient of each log zone's mean along (log height, log weight). */
  readonly gradient: readonly (readonly [number, number])[];
  /** Index of each term in a coefficient row, -1 when absent. */
  readonly termIndex: { readonly logH: number; readonly logW: number; readonly age: number; readonly ageSquared: number };
  readonly spread: SpreadModel;
  /** Index of the age term in a spread row, -1 when absent. */
  readonly spreadAge: number;
}

interface CompiledSex {
  readonly sex: Sex;
  readonly source: SexBodyModel;
  readonly withAge: CompiledModel;
  readonly withoutAge: CompiledModel;
  /** Cholesky factor of the (log height, log weight) covariance, and its log-determinant. */
  readonly hwCholesky: Matrix;
  readonly hwLogDet: number;
}

/** A body model ready for the engine: one per set of coefficients. */
export interface BodyModel {
  readonly version: string;
  readonly female: CompiledSex;
  readonly male: CompiledSex;
}

let compiledModels = 0;

function compileModel(regression: RegressionModel): CompiledModel {
  const cov = regression.residualCovariance;
  const sd = Float64Array.from(ZONES, (_, i) => Math.sqrt(cov[i][i]));
  const corr = ZONES.map((_, i) => ZONES.map((__, j) => (i === j ? 1 : cov[i][j] / (sd[i] * sd[j]))));
  const h = regression.terms.indexOf('logHeightCm');
  const w = regression.terms.indexOf('logWeightKg');
  const gradient = regression.coefficients.map((row) => [row[h], row[w]] as const);
  return {
    key: compiledModels++,
    regression,
    sd,
    corr,
    gradient,
    termIndex: {
      logH: h,
      logW: w,
      age: regression.terms.indexOf('ageYears'),
      ageSquared: regression.terms.indexOf('ageSquared'),
    },
    spread: regression.spread,
    spreadAge: regression.spread.terms.indexOf('ageDecades'),
  };
}

export function compileBodyModel(coefficients: BodyModelCoefficients): BodyModel {
  const compileSex = (sex: Sex): CompiledSex => {
    const source = coefficients[sex];
    const hwCholesky = cholesky(source.heightWeight.covariance.map((row) => [...row]));
    return {
      sex,
      source,
      withAge: compileModel(source.withAge),
      withoutAge: compileModel(source.withoutAge),
      hwCholesky,
      hwLogDet: 2 * (Math.log(hwCholesky[0][0]) + Math.log(hwCholesky[1][1])),
    };
  };
  return { version: coefficients.modelVersion, female: compileSex('female'), male: compileSex('male') };
}

/** The service's body model: the generated coefficients. */
export const BODY_MODEL: BodyModel = compileBodyModel(BODY_MODEL_COEFFICIENTS);
export const MODEL_VERSION: string = BODY_MODEL.version;

/** log density of (log height, log weight) under a sex's bivariate normal. */
function heightWeightLogDensity(c: CompiledSex, logH: number, logW: number): number {
  const [mh, mw] = c.source.heightWeight.mean;
  const l = c.hwCholesky;
  const y0 = (logH - mh) / l[0][0];
  const y1 = (logW - mw - l[1][0] * y0) / l[1][1];
  return -0.5 * (y0 * y0 + y1 * y1) - 0.5 * c.hwLogDet;
}

/**
 * P(sex | height, weight) with a 50/50 prior, from each sex's bivariate normal of (log height, log weight). Computed
 * in log space, so extreme answers (far from both sexes) still get a finite split.
 */
export function sexProbabilities(heightCm: number, weightKg: number, model: BodyModel = BODY_MODEL): Record<Sex, number> {
  const lh = Math.log(heightCm);
  const lw = Math.log(weightKg);
  const lf = heightWeightLogDensity(model.female, lh, lw);
  const lm = heightWeightLogDensity(model.male, lh, lw);
  const pMale = 1 / (1 + Math.exp(lf - lm));
  return { female: 1 - pMale, male: pMale };
}

/** The predictive distribution of the nine log zones for one sex: mean and sd (correlations are the model's). */
export interface ZonePrediction {
  readonly sex: Sex;
  readonly model: CompiledModel;
  /** Mean of log(zone cm). */
  readonly mean: Float64Array;
  /**
   * Predictive sd of log(zone cm): the residual sd times the shopper's spread multiplier for her age (civilian hips
   * vary more with age); the coefficients' own uncertainty would add under 1% inside the data's range
   * (docs/fit-quality.md).
   */
  readonly sd: Float64Array;
  /** (log height, log weight) − the sex's training mean: where the shopper sits, for the monotone correction. */
  readonly offset: readonly [number, number];
}

const clamp = (x: number, min: number, max: number) => Math.min(Math.max(x, min), max);

export function predict(
  sex: Sex,
  heightCm: number,
  weightKg: number,
  age: number | undefined,
  bodyModel: BodyModel = BODY_MODEL,
): ZonePrediction {
  const c = bodyModel[sex];
  const model = age === undefined ? c.withoutAge : c.withAge;
  const reg = model.regression;
  const { logH, logW, age: ageTerm, ageSquared } = model.termIndex;
  const { spread, spreadAge } = model;
  const lh = Math.log(heightCm);
  const lw = Math.log(weightKg);
  const mean = new Float64Array(Z);
  const sd = new Float64Array(Z);
  for (let z = 0; z < Z; z++) {
    const b = reg.coefficients[z];
    let m = b[0] + b[logH] * lh + b[logW] * lw;
    const range = reg.ageRanges[z];
    const a = age === undefined ? 0 : clamp(age, range.min, range.max);
    if (ageTerm >= 0) m += b[ageTerm] * a;
    if (ageSquared >= 0) m += b[ageSquared] * (a / 10) ** 2;
    mean[z] = m;
    const s = spread.coefficients[z];
    let logMultiplier = s[0];
    if (spreadAge >= 0) logMultiplier += s[spreadAge] * ((a - spread.centreAge) / 10);
    sd[z] = model.sd[z] * clamp(Math.exp(logMultiplier), spread.multiplierRange.min, spread.multiplierRange.max);
  }
  const [mh, mw] = c.source.heightWeight.mean;
  return { sex, model, mean, sd, offset: [lh - mh, lw - mw] };
}

/**
 * How the unanswered zones follow the answered ones, in standardised units (each log zone divided by its sd):
 * estimated z = Σ_a weight[z][a]·answered_a + residual. The weights are the best linear predictor constrained to be
 * non-negative (NNLS on the correlations), so a bigger answered measurement never lowers an estimate; the residual
 * variance is that of this constrained predictor, so the spread stays honest.
 */
export interface Conditioning {
  /** Answered zones (ZONES indices), ascending. */
  readonly answered: readonly number[];
  /** weights[z]: one weight per answered zone, for every zone z (zeros for answered zones themselves). */
  readonly weights: readonly Float64Array[];
  /** Residual variance (standardised) of each zone given the answered ones (0 for answered zones). */
  readonly residualVariance: Float64Array;
}

const CACHE_LIMIT = 4096;
const conditioningCache = new Map<string, Conditioning>();
const factorCache = new Map<string, Float64Array>();

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

/**
 * Projects a gradient g = (∂/∂log h, ∂/∂log w) onto the monotone cone {g_w ≥ 0, g_h + 2·g_w ≥ 0}: heavier at the same
 * height, or taller at the same BMI, never lowers an estimate.
 */
function monotoneProjection(g: readonly [number, number]): [number, number] {
  const inCone = (v: readonly [number, number]) => v[1] >= -1e-12 && v[0] + 2 * v[1] >= -1e-12;
  if (inCone(g)) return [g[0], g[1]];
  let best: [number, number] = [0, 0];
  let bestDist = g[0] * g[0] + g[1] * g[1];
  for (const a of [
    [0, 1],
    [1, 2],
  ] as const) {
    const t = (g[0] * a[0] + g[1] * a[1]) / (a[0] * a[0] + a[1] * a[1]);
    const p: [number, number] = [g[0] - t * a[0], g[1] - t * a[1]];
    const d = (g[0] - p[0]) ** 2 + (g[1] - p[1]) ** 2;
    if (inCone(p) && d < bestDist) {
      best = p;
      bestDist = d;
    }
  }
  return best;
}

export function conditioning(model: CompiledModel, answeredMask: number): Conditioning {
  return remember(conditioningCache, `${model.key}:${answeredMask}`, () => {
    const answered: number[] = [];
    for (let z = 0; z < Z; z++) if (answeredMask & (1 << z)) answered.push(z);
    const gram = answered.map((a) => answered.map((b) => model.corr[a][b]));
    const weights: Float64Array[] = [];
    const residualVariance = new Float64Array(Z);
    for (let z = 0; z < Z; z++) {
      const w = new Float64Array(answered.length);
      if (!(answeredMask & (1 << z))) {
        if (answered.length > 0) {
          const beta = nnlsGram(
            gram,
            answered.map((a) => model.corr[z][a]),
          );
          w.set(beta);
        }
        let v = 1;
        answered.forEach((a, i) => {
          v -= 2 * w[i] * model.corr[z][a];
          answered.forEach((b, j) => (v += w[i] * w[j] * model.corr[a][b]));
        });
        residualVariance[z] = Math.max(v, 1e-9);
      }
      weights.push(w);
    }
    return { answered, weights, residualVariance };
  });
}

/**
 * Correction of an estimated zone's gradient along (log height, log weight) that keeps its conditional mean monotone.
 * The estimate moves by its own gradient minus the answered zones' gradients it follows, each scaled by this shopper's
 * sd ratio (the spreads depend on age, which a change of height or weight leaves alone); the correction moves that
 * onto the monotone cone.
 */
export function gradientCorrection(prediction: ZonePrediction, cond: Conditioning, z: number): readonly [number, number] {
  const { model, sd } = prediction;
  let g0 = model.gradient[z][0];
  let g1 = model.gradient[z][1];
  cond.answered.forEach((a, i) => {
    const k = (cond.weights[z][i] * sd[z]) / sd[a];
    g0 -= k * model.gradient[a][0];
    g1 -= k * model.gradient[a][1];
  });
  const projected = monotoneProjection([g0, g1]);
  return [projected[0] - g0, projected[1] - g1];
}

/**
 * Lower-triangular factor (row-major, e×e for the estimated zones in ascending order) of the joint residual
 * correlation of the estimated zones given the answered ones.
 */
export function residualFactor(model: CompiledModel, answeredMask: number, estimated: readonly number[]): Float64Array {
  let estimatedMask = 0;
  for (const z of estimated) estimatedMask |= 1 << z;
  return remember(factorCache, `${model.key}:${answeredMask}:${estimatedMask}`, () => {
    const cond = conditioning(model, answeredMask);
    const { answered, weights } = cond;
    const cov = estimated.map((e) =>
      estimated.map((f) => {
        let c = model.corr[e][f];
        answered.forEach((a, i) => {
          c -= weights[e][i] * model.corr[a][f] + weights[f][i] * model.corr[e][a];
          answered.forEach((b, j) => (c += weights[e][i] * weights[f][j] * model.corr[a][b]));
        });
        return c;
      }),
    );
    estimated.forEach((_, i) => (cov[i][i] += 1e-9));
    const l = cholesky(cov);
    const n = estimated.length;
    const flat = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) flat[i * n + j] = l[i][j];
    return flat;
  });
}
