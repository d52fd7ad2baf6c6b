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
import { cholesky, choleskySolve, nnlsGram, type Matrix } from './linalg.js';
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
  const [g0, g1] = conditionalGradient(prediction, cond, z);
  const projected = monotoneProjection([g0, g1]);
  return [projected[0] - g0, projected[1] - g1];
}

/**
 * How an estimated zone's conditional mean moves along (log height, log weight), once corrected to be monotone: its
 * own gradient less the answered zones' it follows, projected onto the monotone cone.
 */
export function monotoneGradient(prediction: ZonePrediction, cond: Conditioning, z: number): readonly [number, number] {
  return monotoneProjection(conditionalGradient(prediction, cond, z));
}

function conditionalGradient(prediction: ZonePrediction, cond: Conditioning, z: number): [number, number] {
  const { model, sd } = prediction;
  let g0 = model.gradient[z][0];
  let g1 = model.gradient[z][1];
  cond.answered.forEach((a, i) => {
    const k = (cond.weights[z][i] * sd[z]) / sd[a];
    g0 -= k * model.gradient[a][0];
    g1 -= k * model.gradient[a][1];
  });
  return [g0, g1];
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

/** What is known of a shopper who did not give both height and weight: the one she gave, her age, her answered zones. */
interface PartialBody {
  readonly heightCm?: number;
  readonly weightKg?: number;
  readonly age?: number;
  /** Answered zones: ZONES index, log of the answer, and the sd of that log (how it was measured). */
  readonly answered: readonly { readonly zone: number; readonly logValue: number; readonly logSd: number }[];
}

/** Where her (log height, log weight) may lie: a normal, its mean as a body and its covariance's Cholesky factor. */
interface BodyPosterior {
  readonly heightCm: number;
  readonly weightKg: number;
  /** Lower-triangular [l00, l10, l11] of the covariance of (log height, log weight). */
  readonly factor: readonly [number, number, number];
  /** Log likelihood of what she gave under the sex: weighs the sexes when hers is not known. */
  readonly logLikelihood: number;
}

/** A given height or weight is read as exact: its log's variance in the update below. */
const GIVEN_VARIANCE = 1e-10;
const LOG_2PI = Math.log(2 * Math.PI);

/**
 * Where a shopper who gave height or weight but not both, or neither, may lie, for one sex: the sex's (log height, log
 * weight) normal updated by what she gave (a given height or weight as exact, each answered zone through its regression
 * on them and its residual spread plus how it was measured). The update is exact: a log zone's mean is linear in log
 * height and log weight (the age fixed), so this is the normal's own conditional.
 */
export function bodyPosterior(sex: Sex, body: PartialBody, bodyModel: BodyModel = BODY_MODEL): BodyPosterior {
  const prior = bodyModel[sex].source.heightWeight;
  const [mh, mw] = prior.mean;
  const reference = predict(sex, Math.exp(mh), Math.exp(mw), body.age, bodyModel);
  const { gradient, corr } = reference.model;
  const rows: { h: readonly [number, number]; y: number; expected: number }[] = [];
  if (body.heightCm !== undefined) rows.push({ h: [1, 0], y: Math.log(body.heightCm), expected: mh });
  if (body.weightKg !== undefined) rows.push({ h: [0, 1], y: Math.log(body.weightKg), expected: mw });
  const given = rows.length;
  for (const a of body.answered) rows.push({ h: gradient[a.zone], y: a.logValue, expected: reference.mean[a.zone] });
  const cov = prior.covariance;
  let mean = [mh, mw];
  let post: number[][] = cov.map((row) => [...row]);
  let logLikelihood = 0;
  if (rows.length > 0) {
    // C·Hᵀ (2×k) and S = H·C·Hᵀ + R: R is diagonal for height and weight, the residual covariance for zones
    const cht = [0, 1].map((i) => rows.map((r) => cov[i][0] * r.h[0] + cov[i][1] * r.h[1]));
    const s: Matrix = rows.map((ri, i) =>
      rows.map((_, j) => {
        const v = ri.h[0] * cht[0][j] + ri.h[1] * cht[1][j];
        if (i < given || j < given) return v + (i === j ? GIVEN_VARIANCE : 0);
        const a = body.answered[i - given];
        const b = body.answered[j - given];
        return v + reference.sd[a.zone] * reference.sd[b.zone] * corr[a.zone][b.zone] + (i === j ? a.logSd * a.logSd : 0);
      }),
    );
    const l = cholesky(s);
    const innovation = rows.map((r) => r.y - r.expected);
    const alpha = choleskySolve(l, innovation);
    logLikelihood = -0.5 * innovation.reduce((sum, v, i) => sum + v * alpha[i], 0) - 0.5 * rows.length * LOG_2PI;
    for (let i = 0; i < rows.length; i++) logLikelihood -= Math.log(l[i][i]);
    mean = [0, 1].map((i) => prior.mean[i] + cht[i].reduce((sum, v, r) => sum + v * alpha[r], 0));
    // C' = C − C·Hᵀ·S⁻¹·H·C
    const solved = [0, 1].map((i) => choleskySolve(l, cht[i]));
    post = [0, 1].map((i) => [0, 1].map((j) => cov[i][j] - cht[i].reduce((sum, v, r) => sum + v * solved[j][r], 0)));
  }
  const l00 = Math.sqrt(Math.max(post[0][0], 0));
  const l10 = l00 > 1e-9 ? post[1][0] / l00 : 0;
  const l11 = Math.sqrt(Math.max(post[1][1] - l10 * l10, 0));
  return { heightCm: Math.exp(mean[0]), weightKg: Math.exp(mean[1]), factor: [l00, l10, l11], logLikelihood };
}
