/**
 * recommend(): the size to suggest, the probability that it is the best fit, and why. Pure and deterministic: the
 * probabilities integrate the tailor's rule (tailor.ts) over the uncertainty of the body (body-model.ts) with a fixed
 * set of standard-normal draws (draws.ts). docs/fit-quality.md describes every decision.
 */
import {
  BODY_MODEL,
  bodyPosterior,
  conditioning,
  gradientCorrection,
  MODEL_VERSION,
  monotoneGradient,
  type BodyModel,
  predict,
  residualFactor,
  sexProbabilities,
  type Conditioning,
  type ZonePrediction,
} from './body-model.js';
import { DRAW_COUNT, DRAW_DIMENSIONS, STANDARD_NORMAL_DRAWS } from './draws.js';
import { type AnswerFeatures, type AnswerLink, linkKind, linkProbabilities } from './answer-link.js';
import { offsetNodes, shiftedChart } from './learned-shift.js';
import { ADJUSTMENT_STEPS, usualSizeIndex, withUsualSize } from './usual-size.js';
import { ANSWER_SD_CM } from './limits.js';
import { bestSizeIndex, effectiveBounds, fitVerdict, fallbackSize, prepareChart, type PreparedChart } from './tailor.js';
import {
  InsufficientAnswersError,
  SEXES,
  ZONES,
  type Chart,
  type ChartSize,
  type FitVerdict,
  type LearnedShift,
  type MeasurementUsed,
  type Recommendation,
  type RecommendInput,
  type SizeProbability,
  type Zone,
} from './types.js';

export { MODEL_VERSION };

const Z = ZONES.length;
/** Sizes below this probability are not listed as alternatives. */
const ALTERNATIVE_MIN_PROBABILITY = 0.005;
/** A sex whose mixture weight is below this is skipped (it cannot move a probability by a rounding step). */
const NEGLIGIBLE_COMPONENT = 1e-9;

interface Component {
  readonly weight: number;
  readonly prediction: ZonePrediction;
  readonly conditioning: Conditioning;
  /** Mean of every log zone given the answered point values (before any draw). */
  readonly conditionalMean: Float64Array;
  /**
   * When her height or weight is not given: the Cholesky factor [l00, l10, l11] of where her (log height, log weight)
   * may lie around the prediction's, and how each zone's conditional mean moves with them (monotone gradients).
   */
  readonly bodySpread?: { readonly factor: readonly [number, number, number]; readonly gradients: readonly (readonly [number, number])[] };
}

/** One sex of the body model, conditioned on the answered zones. */
function component(
  weight: number,
  prediction: ZonePrediction,
  answeredMask: number,
  logAnswer: Float64Array,
  factor?: readonly [number, number, number],
): Component {
  const cond = conditioning(prediction.model, answeredMask);
  const { mean, sd, offset } = prediction;
  const conditionalMean = new Float64Array(Z);
  for (let z = 0; z < Z; z++) {
    if (answeredMask & (1 << z)) {
      conditionalMean[z] = logAnswer[z];
      continue;
    }
    const w = cond.weights[z];
    let standardised = 0;
    cond.answered.forEach((a, i) => (standardised += (w[i] * (logAnswer[a] - mean[a])) / sd[a]));
    const [ch, cw] = gradientCorrection(prediction, cond, z);
    conditionalMean[z] = mean[z] + sd[z] * standardised + ch * offset[0] + cw * offset[1];
  }
  if (factor === undefined) return { weight, prediction, conditioning: cond, conditionalMean };
  const gradients = ZONES.map((_, z) => (answeredMask & (1 << z) ? ([0, 0] as const) : monotoneGradient(prediction, cond, z)));
  return { weight, prediction, conditioning: cond, conditionalMean, bodySpread: { factor, gradients } };
}

/**
 * The components of a shopper who did not give both height and weight: per sex (hers, or both, weighed by how likely
 * what she gave is under each), the body model at where her height and weight may lie given what she gave
 * (body-model.ts `bodyPosterior`), each draw taking them from that spread. With a zone answered, this is the body
 * model's own answer to "what else does a body with this measurement look like".
 */
function partialComponents(
  shopper: RecommendInput['shopper'],
  answeredMask: number,
  logAnswer: Float64Array,
  answerNoise: Float64Array,
  bodyModel: BodyModel,
): Component[] {
  const answered: { zone: number; logValue: number; logSd: number }[] = [];
  for (let z = 0; z < Z; z++) if (answeredMask & (1 << z)) answered.push({ zone: z, logValue: logAnswer[z], logSd: answerNoise[z] });
  const body = { heightCm: shopper.heightCm, weightKg: shopper.weightKg, age: shopper.age, answered };
  const sexes = shopper.sex !== undefined ? [shopper.sex] : SEXES;
  const each = sexes.map((sex) => ({ sex, posterior: bodyPosterior(sex, body, bodyModel) }));
  const top = Math.max(...each.map((e) => e.posterior.logLikelihood));
  const total = each.reduce((sum, e) => sum + Math.exp(e.posterior.logLikelihood - top), 0);
  return each.flatMap(({ sex, posterior }) => {
    const weight = Math.exp(posterior.logLikelihood - top) / total;
    if (weight < NEGLIGIBLE_COMPONENT) return [];
    const prediction = predict(sex, posterior.heightCm, posterior.weightKg, shopper.age, bodyModel);
    return [component(weight, prediction, answeredMask, logAnswer, posterior.factor)];
  });
}

/**
 * Draws the used zones of every fixed draw and counts the best size of each (whole numbers). Answered zones: log(answer) + (sd/answer)·z
 * (the tape's error); estimated zones: their conditional mean, moved by the answered draws' deviations through the
 * conditioning weights, plus the correlated residual.
 */
function countBestSizes(
  prepared: PreparedChart,
  comp: Component | undefined,
  answeredMask: number,
  logAnswer: Float64Array,
  answerNoise: Float64Array,
): Float64Array {
  const k = prepared.zones.length;
  const sizes = prepared.labels.length;
  const used = prepared.zoneIndex;
  const logT = prepared.logThresholds;
  const estimated = comp === undefined ? [] : used.filter((z) => !(answeredMask & (1 << z)));
  // answered zones drawn: all of them when some zone is estimated (they inform it), else the used ones
  const drawnAnswered = comp === undefined ? used.filter((z) => answeredMask & (1 << z)) : comp.conditioning.answered;
  const nA = drawnAnswered.length;
  const nE = estimated.length;
  const factor = comp === undefined ? new Float64Array(0) : residualFactor(comp.prediction.model, answeredMask, estimated);
  const condWeights = comp === undefined ? [] : estimated.map((e) => comp.conditioning.weights[e]);
  const estimatedMean = comp === undefined ? [] : estimated.map((e) => comp.conditionalMean[e]);
  const estimatedSd = comp === undefined ? [] : estimated.map((e) => comp.prediction.sd[e]);
  // where her height and weight may lie, when not given: drawn from the draw half the set away (never its antithetic twin)
  const spread = comp?.bodySpread;
  const [l00, l10, l11] = spread?.factor ?? [0, 0, 0];
  const spreadGradients = spread ? estimated.map((e) => spread.gradients[e]) : [];
  // an answered draw's deviation from the answer, in the standardised units of the conditioning weights
  const deviationScale = drawnAnswered.map((a) => (comp === undefined ? 0 : answerNoise[a] / comp.prediction.sd[a]));
  const noise = drawnAnswered.map((a) => answerNoise[a]);
  const base = drawnAnswered.map((a) => logAnswer[a]);
  const lx = new Float64Array(Z);
  const deviation = new Float64Array(nA);
  const draws = STANDARD_NORMAL_DRAWS;
  const cm = new Float64Array(k);
  const counts = new Float64Array(sizes);
  for (let i = 0; i < DRAW_COUNT; i++) {
    const off = i * DRAW_DIMENSIONS;
    for (let j = 0; j < nA; j++) {
      const d = draws[off + j];
      lx[drawnAnswered[j]] = base[j] + noise[j] * d;
      deviation[j] = deviationScale[j] * d;
    }
    for (let q = 0; q < nE; q++) {
      const w = condWeights[q];
      let v = 0;
      for (let j = 0; j < nA; j++) v += w[j] * deviation[j];
      const row = q * nE;
      for (let m = 0; m <= q; m++) v += factor[row + m] * draws[off + nA + m];
      lx[estimated[q]] = estimatedMean[q] + estimatedSd[q] * v;
    }
    if (spread) {
      const other = ((i + DRAW_COUNT / 2) % DRAW_COUNT) * DRAW_DIMENSIONS;
      const dh = l00 * draws[other];
      const dw = l10 * draws[other] + l11 * draws[other + 1];
      for (let q = 0; q < nE; q++) lx[estimated[q]] += spreadGradients[q][0] * dh + spreadGradients[q][1] * dw;
    }
    let chosen = -1;
    for (let s = 0; s < sizes; s++) {
      let fits = true;
      for (let j = 0; j < k; j++) {
        if (lx[used[j]] > logT[s * k + j]) {
          fits = false;
          break;
        }
      }
      if (fits) {
        chosen = s;
        break;
      }
    }
    if (chosen < 0) {
      for (let j = 0; j < k; j++) cm[j] = Math.exp(lx[used[j]]);
      chosen = fallbackSize(prepared, cm);
    }
    counts[chosen]++;
  }
  return counts;
}

const round = (x: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};

interface Analysis {
  readonly prepared: PreparedChart;
  /** P(best size = s), chart order, unrounded. */
  readonly probability: readonly number[];
  /** The probabilities read her body (not only a size she usually wears, which leaves them alike). */
  readonly fromBody: boolean;
  /** Every used zone is answered with a tape: the chart's own answer on them is the recommendation. */
  readonly exact: boolean;
  readonly answer: Float64Array;
  readonly answeredMask: number;
  readonly answerNoise: Float64Array;
  readonly components: readonly Component[];
}

function analyse(input: RecommendInput, bodyModel: BodyModel): Analysis {
  const { shopper, chart, zoneWeights, fitAdjustment } = input;
  if (chart.sizes.length === 0) throw new RangeError('the chart has no sizes');
  const fitPreference = shopper.fitPreference ?? 'regular';
  const prepared = prepareChart(chart, zoneWeights, fitPreference, fitAdjustment);

  // answers
  let answeredMask = 0;
  let measuredOtherwise = 0;
  const answer = new Float64Array(Z);
  const logAnswer = new Float64Array(Z);
  const answerNoise = new Float64Array(Z);
  ZONES.forEach((zone, z) => {
    const v = shopper.measured[zone];
    if (v === undefined) return;
    if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${zone} must be a positive number of cm`);
    const sd = shopper.measuredSdCm?.[zone] ?? ANSWER_SD_CM[zone];
    if (!(Number.isFinite(sd) && sd > 0)) throw new RangeError(`the sd of ${zone} must be a positive number of cm`);
    if (sd !== ANSWER_SD_CM[zone]) measuredOtherwise |= 1 << z;
    answeredMask |= 1 << z;
    answer[z] = v;
    logAnswer[z] = Math.log(v);
    answerNoise[z] = sd / v;
  });
  const estimatedUsed = prepared.zones.filter((zone) => !(answeredMask & (1 << ZONES.indexOf(zone))));
  const { heightCm, weightKg } = shopper;
  for (const [name, v] of [
    ['heightCm', heightCm],
    ['weightKg', weightKg],
    ['age', shopper.age],
  ] as const) {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new RangeError(`${name} must be a positive number`);
  }
  const haveBody = heightCm !== undefined && weightKg !== undefined;
  // without both, height, weight or a measured zone still tells of her body, and a size she wears of this chart of her size
  const someBody = heightCm !== undefined || weightKg !== undefined || answeredMask !== 0;
  const usualOnly = !someBody && usualSizeIndex(prepared.labels, shopper.usualSize) >= 0;
  if (estimatedUsed.length > 0 && !someBody && !usualOnly) {
    const zones = estimatedUsed.join(', ');
    const alternatives = `(or answer them, or give a size usually worn of this chart)`;
    throw new InsufficientAnswersError([
      { field: 'height', message: `height is needed to estimate ${zones} ${alternatives}` },
      { field: 'weight', message: `weight is needed to estimate ${zones} ${alternatives}` },
    ]);
  }

  // the body model: one component per sex (a mixture when the sex is unknown); without both height and weight, one
  // per sex and point of where her height and weight may lie, given what she answered
  const components: Component[] = [];
  if (haveBody) {
    const sexWeights =
      shopper.sex !== undefined ? { female: 0, male: 0, [shopper.sex]: 1 } : sexProbabilities(heightCm, weightKg, bodyModel);
    for (const sex of SEXES) {
      if (sexWeights[sex] < NEGLIGIBLE_COMPONENT) continue;
      components.push(component(sexWeights[sex], predict(sex, heightCm, weightKg, shopper.age, bodyModel), answeredMask, logAnswer));
    }
  } else if (estimatedUsed.length > 0 && someBody) {
    components.push(...partialComponents(shopper, answeredMask, logAnswer, answerNoise, bodyModel));
  }

  // probabilities of each size being the best: per sex, whole counts over the fixed draws, then mixed; from nothing but
  // a size she wears, every size alike until that size weighs them (usual-size.ts)
  const sizes = prepared.labels.length;
  const probability = new Array<number>(sizes).fill(usualOnly ? 1 / sizes : 0);
  if (estimatedUsed.length === 0) {
    const counts = countBestSizes(prepared, undefined, answeredMask, logAnswer, answerNoise);
    for (let s = 0; s < sizes; s++) probability[s] = counts[s] / DRAW_COUNT;
  } else if (!usualOnly) {
    const total = components.reduce((sum, c) => sum + c.weight, 0);
    for (const c of components) {
      const counts = countBestSizes(prepared, c, answeredMask, logAnswer, answerNoise);
      for (let s = 0; s < sizes; s++) probability[s] += (c.weight / total) * (counts[s] / DRAW_COUNT);
    }
  }
  return {
    prepared,
    probability,
    fromBody: !usualOnly,
    exact: estimatedUsed.length === 0 && prepared.zoneIndex.every((z) => !(measuredOtherwise & (1 << z))),
    answer,
    answeredMask,
    answerNoise,
    components,
  };
}

/**
 * The size to recommend from an analysis: the chart's own answer when every used zone is answered with a tape, else
 * the likeliest.
 */
function choose({ prepared, probability, exact, answer }: Pick<Analysis, 'prepared' | 'probability' | 'exact' | 'answer'>): number {
  if (exact)
    return bestSizeIndex(
      prepared,
      prepared.zoneIndex.map((z) => answer[z]),
    );
  return likeliest(probability);
}

/** The most probable size (the first of equals). */
function likeliest(probability: readonly number[]): number {
  let chosen = 0;
  for (let s = 1; s < probability.length; s++) if (probability[s] > probability[chosen]) chosen = s;
  return chosen;
}

/**
 * P(best size = s) for every size of the chart (chart order, unrounded): what `recommend` rounds into `confidence` and
 * `alternatives`. Throws like `recommend`.
 */
export function sizeProbabilities(
  input: RecommendInput,
  bodyModel: BodyModel = BODY_MODEL,
): { readonly sizeLabel: string; readonly probability: number }[] {
  const { prepared, probability } = analyse(input, bodyModel);
  return prepared.labels.map((sizeLabel, s) => ({ sizeLabel, probability: probability[s] }));
}

/**
 * The size to recommend for a shopper on a chart (every length in cm, weight in kg). Deterministic: the same input
 * gives the same answer, bit for bit. `bodyModel` is the service's generated model unless an evaluation passes its own.
 *
 * @throws InsufficientAnswersError when a used zone is not answered and height or weight is missing (fields `height`,
 *   `weight`). RangeError on a chart without sizes or a non-positive / non-finite number (the HTTP layer refuses those
 *   first, with ANSWER_LIMITS and ZONE_LIMITS).
 */
export function recommend(input: RecommendInput, bodyModel: BodyModel = BODY_MODEL): Recommendation {
  const stated = analyse(input, bodyModel);
  // the size she usually wears, where the chart has it: weighs the probabilities (usual-size.ts)
  const usual = usualSizeIndex(stated.prepared.labels, input.shopper.usualSize);
  // the stated chart's answer for her body alone: the reference outcomes are measured from (decision 009)
  const chartChoice = choose(stated);
  // with a learned offset: the answer on the chart moved by it, the probabilities averaged over its uncertainty
  const learned = learnedShiftOf(input);
  const chart = learned ? shiftedChart(input.chart, learned.steps) : input.chart;
  const analysis = chart === input.chart ? stated : analyse({ ...input, chart }, bodyModel);
  let probability = learned && learned.sd > 0 ? overOffset(input, analysis, learned, bodyModel) : analysis.probability;
  // her usual size at how the product runs: her own offset is already in the size she names, so it moves her body only
  if (usual >= 0) {
    const steps = learned ? round(learned.steps - learned.shopperSteps, 2) : 0;
    probability = withUsualSize(probability, usual + ADJUSTMENT_STEPS[input.fitAdjustment] + steps);
  }
  let chosen = usual >= 0 ? likeliest(probability) : learned ? choose({ ...analysis, probability }) : chartChoice;
  const features = featuresOf(probability, stated.fromBody, usual, learned?.steps ?? 0);
  // where the store's outcomes have taught how its answers should read her (answer-link.ts), moved and scaled by it
  const link = input.links?.[linkKind(features)];
  if (link) {
    probability = linkProbabilities(link, features, probability);
    chosen = likeliest(probability);
  }
  const { labels } = analysis.prepared;
  const version = [bodyModel.version, ...(learned ? [learnedVersion(learned)] : []), ...(link ? [linkVersion(link)] : [])];
  return {
    sizeLabel: labels[chosen],
    confidence: round(probability[chosen], 3),
    alternatives: alternativesOf(probability, chosen, labels),
    fit: zoneFit(input, chart, chart.sizes[chosen], analysis),
    measurements: measurementsOf(analysis),
    chartSizeLabel: stated.prepared.labels[chartChoice],
    features,
    modelVersion: version.join('+'),
  };
}

/** What an answer read of her (answer-link.ts): its mean position and variance (0 = the first size), and what it used. */
function featuresOf(probability: readonly number[], body: boolean, usual: number, offset: number): AnswerFeatures {
  const mean = probability.reduce((sum, p, s) => sum + p * s, 0);
  const variance = probability.reduce((sum, p, s) => sum + p * (s - mean) ** 2, 0);
  return { mean: round(mean, 4), variance: round(variance, 4), body, usual: usual >= 0 ? usual : null, offset };
}

/** The link used, as `model_version` names it: its kind and the outcomes it rests on. */
const linkVersion = (link: AnswerLink) => `link.${link.kind}.${Math.round(link.evidence)}`;

/** The learned shift as the engine uses it (rounded to hundredths, as `model_version` names it), if any. */
function learnedShiftOf(input: RecommendInput): (LearnedShift & { shopperSteps: number }) | undefined {
  if (!input.learned) return undefined;
  return {
    steps: round(input.learned.steps, 2),
    sd: round(Math.max(input.learned.sd, 0), 2),
    shopperSteps: round(input.learned.shopperSteps ?? 0, 2),
  };
}

/** The size probabilities averaged over the offset's uncertainty (Gauss–Hermite nodes; the middle one is `analysis`). */
function overOffset(input: RecommendInput, analysis: Analysis, learned: LearnedShift, bodyModel: BodyModel): number[] {
  const mixed = new Array<number>(analysis.prepared.labels.length).fill(0);
  for (const node of offsetNodes(learned.steps, learned.sd)) {
    const p =
      node.steps === learned.steps
        ? analysis.probability
        : analyse({ ...input, chart: shiftedChart(input.chart, node.steps) }, bodyModel).probability;
    for (let s = 0; s < mixed.length; s++) mixed[s] += node.weight * p[s];
  }
  return mixed;
}

/** The other sizes likely enough to show, likeliest first. */
function alternativesOf(probability: readonly number[], chosen: number, labels: readonly string[]): SizeProbability[] {
  return probability
    .map((p, s) => ({ s, p }))
    .filter(({ s, p }) => s !== chosen && p >= ALTERNATIVE_MIN_PROBABILITY)
    .sort((a, b) => b.p - a.p || a.s - b.s)
    .map(({ s, p }) => ({ sizeLabel: labels[s], confidence: round(p, 3) }));
}

/** A zone's point estimate: the answered value, else the mixture mean of the conditional log-normal. */
function estimateZone(analysis: Analysis, z: number): { mean: number; sd: number } | undefined {
  const { answer, answeredMask, answerNoise, components } = analysis;
  if (answeredMask & (1 << z)) return { mean: answer[z], sd: answerNoise[z] * answer[z] };
  if (components.length === 0) return undefined;
  let m1 = 0;
  let m2 = 0;
  let total = 0;
  for (const c of components) {
    const { sd } = c.prediction;
    const cond = c.conditioning;
    // residual variance plus the tape error of the answers it leans on
    let variance = cond.residualVariance[z];
    cond.answered.forEach((a, i) => {
      const w = cond.weights[z][i];
      const noise = answerNoise[a] / sd[a];
      variance += w * w * noise * noise;
    });
    let v = sd[z] * sd[z] * variance;
    if (c.bodySpread) {
      // plus where her height and weight may lie: g·L·Lᵀ·gᵀ
      const [g0, g1] = c.bodySpread.gradients[z];
      const [l00, l10, l11] = c.bodySpread.factor;
      v += (g0 * l00 + g1 * l10) ** 2 + (g1 * l11) ** 2;
    }
    const mu = c.conditionalMean[z];
    m1 += c.weight * Math.exp(mu + v / 2);
    m2 += c.weight * Math.exp(2 * mu + 2 * v);
    total += c.weight;
  }
  m1 /= total;
  m2 /= total;
  return { mean: m1, sd: Math.sqrt(Math.max(m2 - m1 * m1, 0)) };
}

/** The measurements the answer rests on, zone by zone: answered, or estimated with their uncertainty. */
function measurementsOf(analysis: Analysis): Partial<Record<Zone, MeasurementUsed>> {
  const measurements: Partial<Record<Zone, MeasurementUsed>> = {};
  for (const zone of analysis.prepared.zones) {
    const z = ZONES.indexOf(zone);
    const e = estimateZone(analysis, z);
    if (e === undefined) continue;
    measurements[zone] = {
      valueCm: round(e.mean, 1),
      source: analysis.answeredMask & (1 << z) ? 'answered' : 'estimated',
      sdCm: round(e.sd, 1),
    };
  }
  return measurements;
}

/** How the chosen size fits each zone the chart states for it. */
function zoneFit(input: RecommendInput, chart: Chart, size: ChartSize, analysis: Analysis): Partial<Record<Zone, FitVerdict>> {
  const fitPreference = input.shopper.fitPreference ?? 'regular';
  const fit: Partial<Record<Zone, FitVerdict>> = {};
  for (const zone of ZONES) {
    const bounds = effectiveBounds(chart, size, zone, fitPreference, input.fitAdjustment);
    if (bounds === undefined) continue;
    const e = estimateZone(analysis, ZONES.indexOf(zone));
    if (e === undefined) continue;
    fit[zone] = fitVerdict(e.mean, bounds, fitPreference);
  }
  return fit;
}

/** The learned state used, as `model_version` names it: the offset and its sd, and her own part of it when she has one. */
function learnedVersion({ steps, sd, shopperSteps }: LearnedShift): string {
  const own = shopperSteps ? `.shopper.${shopperSteps.toFixed(2)}` : '';
  return `learned.${steps.toFixed(2)}.${sd.toFixed(2)}${own}`;
}
