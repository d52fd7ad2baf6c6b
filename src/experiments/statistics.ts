/**
 * The statistics of a merchant's experiment: 2 to 4 arms, one of them the control, randomized by shopper (the unit).
 * The service reads per-arm sums over units from SQL; this module turns them into rates, lifts, intervals and checks.
 *
 * Every metric is a ratio R = Σa / Σb of per-unit sums: a conversion rate is a / 1 (b = 1 for every unit), a rate per
 * purchased line is the unit's lines with the outcome over the unit's purchased lines. Lines of one shopper are not
 * independent, so every variance is clustered by unit: the delta method on the per-unit linearization
 * L = (a − R·b) / mean(b) (Deng, Knoll, Lu 2018, "Applying the Delta Method in Metric Analytics").
 *
 * Pure: no I/O, no clock, no randomness.
 */
import { upperTail } from '../sizing/normal.js';

/**
 * One metric's sums over the units of one arm. The unit's numerator is a, its denominator b (1 for a per-unit rate),
 * its optional pre-experiment covariate x (its purchases before the experiment). Units without a purchase count with
 * a = b = 0: they still belong to n, and to CUPED through their x.
 */
export interface MetricMoments {
  readonly sumA: number;
  readonly sumB: number;
  readonly sumAA: number;
  readonly sumBB: number;
  readonly sumAB: number;
  /** Absent: the metric is not adjusted by CUPED (it is adjusted only when every arm has it). */
  readonly covariate?: {
    readonly sumX: number;
    readonly sumXX: number;
    readonly sumAX: number;
    readonly sumBX: number;
  };
}

/** One arm: its id, its exposed units, and its sums for each metric. */
export interface ArmMoments<M extends string> {
  readonly arm: string;
  readonly units: number;
  readonly metrics: Readonly<Record<M, MetricMoments>>;
}

export interface ExperimentInput<M extends string> {
  /** 2 to 4 arms; comparisons come out in this order, the control left out. */
  readonly arms: readonly ArmMoments<M>[];
  /** The id of the control arm. */
  readonly control: string;
  /** The planned total of units over all arms (planSampleSize's totalUnits): the always-valid intervals are tightest there. */
  readonly plannedUnits: number;
}

type Direction = 'higher' | 'lower' | 'inconclusive';

interface Interval {
  readonly low: number;
  readonly high: number;
}

/** A treatment's lift over the control, absolute (R_t − R_c) or relative ((R_t − R_c) / R_c). */
export interface Lift {
  readonly estimate: number;
  readonly standardError: number;
  /** 95% always-valid interval (mSPRT): may be looked at as often as wanted. */
  readonly alwaysValid: Interval;
  /** The always-valid p-value at this look; it is meant to be read as its running minimum over looks (kept by the caller). */
  readonly alwaysValidP: number;
  /** 95% fixed-horizon interval and two-sided p-value: valid only when read once, at the planned size (`plannedSizeReached`). */
  readonly fixedHorizon: Interval;
  readonly fixedHorizonP: number;
  /** The always-valid interval excludes 0 (equivalently, alwaysValidP < 0.05). */
  readonly significant: boolean;
  /** From the always-valid interval: wholly above 0, wholly below 0, or across it. */
  readonly direction: Direction;
}

/** Null lifts: a rate is undefined (no denominator, as no purchase in an arm), or nothing varies yet so no spread can be stated. */
interface Lifts {
  readonly absolute: Lift | null;
  /** Also null when the control's rate is 0. */
  readonly relative: Lift | null;
}

interface RateEstimate {
  /** Σa / Σb; null when Σb = 0. */
  readonly rate: number | null;
  /** Null when the rate is, or with fewer than 2 units. */
  readonly standardError: number | null;
}

interface ArmEstimate {
  readonly arm: string;
  readonly plain: RateEstimate;
  /** The rate adjusted by CUPED; equal to plain when CUPED is not applied. */
  readonly cuped: RateEstimate;
}

export interface Comparison {
  /** The treatment arm's id. */
  readonly arm: string;
  readonly plain: Lifts;
  readonly cuped: Lifts;
  /** 1 − V_cuped / V_plain of the absolute lift; 0 when CUPED is not applied, negative when it cost precision, null without lift. */
  readonly varianceReduction: number | null;
}

interface MetricAnalysis {
  /** CUPED's θ, pooled over arms; 0 when CUPED is not applied (no covariate, or the covariate does not vary within arms). */
  readonly cupedSlope: number;
  readonly arms: readonly ArmEstimate[];
  readonly comparisons: readonly Comparison[];
}

export interface ExperimentAnalysis<M extends string> {
  /** Exposed units over all arms. */
  readonly units: number;
  /** units ≥ plannedUnits: from here on the fixed-horizon intervals may be shown (once; after that only the always-valid ones). */
  readonly plannedSizeReached: boolean;
  readonly metrics: Readonly<Record<M, MetricAnalysis>>;
}

interface SampleRatioCheck {
  readonly chiSquare: number;
  readonly p: number;
  /** p < 0.001: the split is not what was planned, and the results should not be trusted until it is explained. */
  readonly mismatch: boolean;
}

export interface SampleSizeInput {
  /** The control's rate of the primary metric: a conversion rate per unit, or a rate per purchased line. */
  readonly baseline: number;
  /** The smallest absolute change worth detecting, either sign (−0.02: two points fewer returns). */
  readonly minimumEffect: number;
  /** The arms' planned shares of units, in arm order; divided by their sum, so weights like [50, 50] do. */
  readonly shares: readonly number[];
  /** The control's index in shares. */
  readonly control: number;
  /** For a rate per purchased line: how many lines an exposed unit brings. Absent: the rate is per unit. */
  readonly perLine?: {
    /** Share of exposed units that purchase. */
    readonly purchaseRate: number;
    /** Mean purchased lines of a unit that purchases. */
    readonly linesPerPurchaser: number;
    /** Variance inflation from lines of one shopper sharing an outcome (1 + (m − 1)·ρ); default 1, lines independent. */
    readonly designEffect?: number;
  };
}

interface SampleSizePlan {
  /** Units each arm needs, in the order of shares. */
  readonly unitsPerArm: readonly number[];
  readonly totalUnits: number;
}

const ALPHA = 0.05;
/** Φ⁻¹(0.975) and Φ⁻¹(0.8): the two quantiles a 5% two-sided test at 80% power needs. */
const Z_975 = 1.959963984540054;
const Z_80 = 0.8416212335729143;
const SRM_THRESHOLD = 0.001;

/**
 * τ² / V at the planned size. For a fixed variance V, the mSPRT half-width √(V·(1 + 1/r)·(ln(1 + r) − 2 ln α)), with
 * r = τ² / V, is smallest where r = ln(1 + r) − 2 ln α (setting its derivative in r to 0): r ≈ 8.21 at α = 0.05, where the
 * always-valid interval is √(1 + r) ≈ 3.03 standard errors wide against the fixed 1.96. Solved by fixed-point
 * iteration, which converges since the slope of ln(1 + r) is below 1.
 */
const TIGHTEST_RATIO = (() => {
  let r = -2 * Math.log(ALPHA);
  for (let i = 0; i < 60; i++) r = Math.log(1 + r) - 2 * Math.log(ALPHA);
  return r;
})();

function checkArmCount(count: number): void {
  if (count < 2 || count > 4) throw new RangeError(`an experiment has 2 to 4 arms, not ${count}`);
}

function normalizedShares(shares: readonly number[]): number[] {
  checkArmCount(shares.length);
  if (shares.some((share) => !(share > 0) || !Number.isFinite(share))) throw new RangeError('every arm has a positive share');
  const total = shares.reduce((sum, share) => sum + share, 0);
  return shares.map((share) => share / total);
}

/** Chi-square survival for 1 to 3 degrees of freedom, in closed form from the normal tail. */
function chiSquareSurvival(x: number, df: number): number {
  if (!(x > 0)) return 1;
  if (df === 1) return 2 * upperTail(Math.sqrt(x));
  if (df === 2) return Math.exp(-x / 2);
  return 2 * upperTail(Math.sqrt(x)) + Math.sqrt((2 * x) / Math.PI) * Math.exp(-x / 2);
}

/**
 * Sample-ratio-mismatch check: Pearson's chi-square goodness of fit of the exposed units against the planned shares
 * (Fabijan et al. 2019, "Diagnosing Sample Ratio Mismatch"). Flags p < 0.001, a strict threshold because the check runs
 * at every look and a false alarm stops a healthy experiment.
 */
export function sampleRatioCheck(units: readonly number[], shares: readonly number[]): SampleRatioCheck {
  const expected = normalizedShares(shares);
  if (units.length !== expected.length) throw new RangeError('one unit count per share');
  const total = units.reduce((sum, n) => sum + n, 0);
  if (!(total > 0)) return { chiSquare: 0, p: 1, mismatch: false };
  const chiSquare = units.reduce((sum, n, i) => sum + (n - total * expected[i]) ** 2 / (total * expected[i]), 0);
  const p = chiSquareSurvival(chiSquare, units.length - 1);
  return { chiSquare, p, mismatch: p < SRM_THRESHOLD };
}

/**
 * Units for a two-sided 5% test at 80% power to detect an absolute change `minimumEffect` from `baseline`, by the
 * unpooled two-proportion z-test the analysis runs: n = (z₀.₉₇₅ + z₀.₈)² (p(1 − p) + (p + d)(1 − p − d)) / d² per arm at an
 * even split (Chow, Shao, Wang, "Sample Size Calculations in Clinical Research", 4.2; within 0.1% of the pooled-variance
 * figure of Fleiss and R's power.prop.test). With shares s, the total N makes each treatment's lift over the control
 * that precise: N = (z₀.₉₇₅ + z₀.₈)² (p_c q_c / s_c + p_t q_t / s_t) / d², the largest over treatments (they all share the
 * smallest-share arm's burden), and every arm gets its share of N. No correction for several treatments.
 *
 * A rate per purchased line is planned in lines, then converted: an exposed unit brings purchaseRate · linesPerPurchaser
 * lines. This is exact for the delta-method variance when a shopper's lines have independent outcomes given how many
 * she bought (the variance per line is then p(1 − p) whatever the spread of lines per shopper); shoppers whose lines
 * share an outcome need `designEffect` times as many.
 */
export function planSampleSize(input: SampleSizeInput): SampleSizePlan {
  const shares = normalizedShares(input.shares);
  const { baseline: p, minimumEffect: d, control } = input;
  if (!(p > 0 && p < 1)) throw new RangeError('the baseline is a rate in (0, 1)');
  if (!(d !== 0 && p + d > 0 && p + d < 1)) throw new RangeError('the minimum effect is non-zero and keeps the rate in (0, 1)');
  if (!Number.isInteger(control) || control < 0 || control >= shares.length) throw new RangeError('control is an index of shares');
  const linesPerUnit = input.perLine ? input.perLine.purchaseRate * input.perLine.linesPerPurchaser : 1;
  const designEffect = input.perLine?.designEffect ?? 1;
  if (!(linesPerUnit > 0) || !(designEffect >= 1)) throw new RangeError('lines per unit is positive and the design effect at least 1');

  const treatmentVariance = (p + d) * (1 - p - d);
  const perShare = Math.max(
    ...shares.filter((_, i) => i !== control).map((share) => (p * (1 - p)) / shares[control] + treatmentVariance / share),
  );
  const total = ((Z_975 + Z_80) ** 2 * perShare * designEffect) / (linesPerUnit * d * d);
  // a hair below an integer from rounding should not cost a whole unit
  const unitsPerArm = shares.map((share) => Math.ceil(total * share - 1e-9));
  return { unitsPerArm, totalUnits: unitsPerArm.reduce((sum, n) => sum + n, 0) };
}

/** The sums a metric's arm reduces to: rate, linearized sum of squares, covariate cross-products. */
interface ArmSums {
  readonly n: number;
  readonly rate: number | null;
  /** Σ L²: Σ L = 0 by construction, so this is the centred sum of squares. */
  readonly sLL: number;
  readonly sLx: number;
  readonly sxx: number;
  readonly sumX: number;
}

function armSums(n: number, m: MetricMoments): ArmSums {
  const sumX = m.covariate?.sumX ?? 0;
  if (!(m.sumB > 0) || !(n > 0)) return { n, rate: null, sLL: 0, sLx: 0, sxx: 0, sumX };
  const rate = m.sumA / m.sumB;
  const meanB = m.sumB / n;
  // rounding in Σa² − 2RΣab + R²Σb² can leave a hair below 0 when every unit sits on the rate
  const sLL = Math.max(0, m.sumAA - 2 * rate * m.sumAB + rate * rate * m.sumBB) / (meanB * meanB);
  if (!m.covariate) return { n, rate, sLL, sLx: 0, sxx: 0, sumX };
  const { sumXX, sumAX, sumBX } = m.covariate;
  const sLx = (sumAX - rate * sumBX) / meanB;
  const rawSxx = sumXX - (sumX * sumX) / n;
  // a constant non-integer covariate leaves rounding dust, which would make θ a ratio of two noises
  const sxx = rawSxx > 1e-10 * sumXX ? rawSxx : 0;
  return { n, rate, sLL, sLx, sxx, sumX };
}

const estimateOf = (rate: number | null, sumSquares: number, n: number): RateEstimate => ({
  rate,
  standardError: rate === null || n < 2 ? null : Math.sqrt(sumSquares / ((n - 1) * n)),
});

/**
 * Normal-mixture sequential test (Johari, Pekelis, Walsh 2017, "Always Valid Inference", mSPRT): with the estimate's
 * variance V and mixing variance τ², the 95% interval and p-value that stay valid however often they are read.
 * τ² = TIGHTEST_RATIO · V_planned, V_planned = V · units / plannedUnits being the variance the estimate will have at the
 * planned size: the interval is then narrowest, relative to the standard error, exactly at the planned size, and
 * τ² / V = TIGHTEST_RATIO · units / plannedUnits depends on the looks' progress only. V_planned is a plug-in of the
 * per-unit variance, which settles as units come in, so τ² is all but fixed, as the test assumes.
 */
function liftOf(estimate: number, variance: number, progress: number): Lift | null {
  if (!(variance > 0 && progress > 0) || !Number.isFinite(variance) || !Number.isFinite(estimate)) return null;
  const r = TIGHTEST_RATIO * progress;
  const halfWidth = Math.sqrt(variance * (1 + 1 / r) * (Math.log(1 + r) - 2 * Math.log(ALPHA)));
  const alwaysValidP = Math.min(1, Math.sqrt(1 + r) * Math.exp(((-estimate * estimate) / (2 * variance)) * (r / (1 + r))));
  const standardError = Math.sqrt(variance);
  const alwaysValid = { low: estimate - halfWidth, high: estimate + halfWidth };
  const direction: Direction = alwaysValid.low > 0 ? 'higher' : alwaysValid.high < 0 ? 'lower' : 'inconclusive';
  return {
    estimate,
    standardError,
    alwaysValid,
    alwaysValidP,
    fixedHorizon: { low: estimate - Z_975 * standardError, high: estimate + Z_975 * standardError },
    // upperTail(0) is 0.5 only to 1e-7: a p-value a hair above 1 would read as a bug
    fixedHorizonP: Math.min(1, 2 * upperTail(Math.abs(estimate) / standardError)),
    significant: direction !== 'inconclusive',
    direction,
  };
}

/** Independent arms: the variances add; the relative lift's variance by the delta method on R_t / R_c. */
function liftsOf(treatment: RateEstimate, control: RateEstimate, progress: number): Lifts {
  const { rate: rt, standardError: st } = treatment;
  const { rate: rc, standardError: sc } = control;
  if (rt === null || rc === null || st === null || sc === null) return { absolute: null, relative: null };
  const vt = st * st;
  const vc = sc * sc;
  const absolute = liftOf(rt - rc, vt + vc, progress);
  const relative = rc === 0 ? null : liftOf((rt - rc) / rc, vt / (rc * rc) + (rt * rt * vc) / rc ** 4, progress);
  return { absolute, relative };
}

/**
 * One metric, plain and with CUPED (Deng, Xu, Kohavi, Walker 2013, "Improving the Sensitivity of Online Controlled
 * Experiments by Utilizing Pre-Experiment Data"), applied to the linearized ratio as for any delta-method metric:
 * θ = pooled within-arm Cov(L, x) / Var(x), R_adj = R − θ·(x̄_arm − x̄_all), Var = (Var(L) − 2θ Cov(L, x) + θ² Var(x)) / n.
 * θ is pooled within arms so that the treatment's own effect does not leak into it; x̄_all cancels in every difference.
 */
function analyseMetric(
  arms: readonly string[],
  units: readonly number[],
  moments: readonly MetricMoments[],
  control: number,
  progress: number,
): MetricAnalysis {
  const sums = moments.map((m, i) => armSums(units[i], m));
  const usable = sums.filter((s) => s.rate !== null && s.n >= 2);
  const sxx = usable.reduce((sum, s) => sum + s.sxx, 0);
  const withCovariate = moments.every((m) => m.covariate !== undefined);
  const theta = withCovariate && sxx > 0 ? usable.reduce((sum, s) => sum + s.sLx, 0) / sxx : 0;
  const totalUnits = units.reduce((sum, n) => sum + n, 0);
  const meanX = sums.reduce((sum, s) => sum + s.sumX, 0) / totalUnits;

  const plain = sums.map((s) => estimateOf(s.rate, s.sLL, s.n));
  const cuped = sums.map((s, i) =>
    theta === 0 || s.rate === null
      ? plain[i]
      : estimateOf(s.rate - theta * (s.sumX / s.n - meanX), Math.max(0, s.sLL - 2 * theta * s.sLx + theta * theta * s.sxx), s.n),
  );
  const comparisons = arms.flatMap((arm, i): Comparison[] => {
    if (i === control) return [];
    const plainLifts = liftsOf(plain[i], plain[control], progress);
    const cupedLifts = liftsOf(cuped[i], cuped[control], progress);
    const plainSe = plainLifts.absolute?.standardError;
    const cupedSe = cupedLifts.absolute?.standardError;
    const varianceReduction = plainSe === undefined || cupedSe === undefined ? null : 1 - (cupedSe / plainSe) ** 2;
    return [{ arm, plain: plainLifts, cuped: cupedLifts, varianceReduction }];
  });
  return {
    cupedSlope: theta,
    arms: arms.map((arm, i) => ({ arm, plain: plain[i], cuped: cuped[i] })),
    comparisons,
  };
}

/**
 * Rates, lifts of every treatment over the control, plain and with CUPED, with always-valid (Johari, Pekelis, Walsh 2017,
 * mSPRT) and fixed-horizon 95% intervals, variances by the delta method clustered by unit (Deng, Knoll, Lu 2018).
 */
export function analyseExperiment<M extends string>(input: ExperimentInput<M>): ExperimentAnalysis<M> {
  const { arms, control, plannedUnits } = input;
  checkArmCount(arms.length);
  if (new Set(arms.map((a) => a.arm)).size !== arms.length) throw new RangeError('arm ids are unique');
  const controlIndex = arms.findIndex((a) => a.arm === control);
  if (controlIndex < 0) throw new RangeError(`the control ${control} is not an arm`);
  if (!(plannedUnits > 0)) throw new RangeError('the planned units are positive');
  if (arms.some((a) => !(a.units >= 0))) throw new RangeError('units are counts');

  const units = arms.map((a) => a.units);
  const total = units.reduce((sum, n) => sum + n, 0);
  const progress = total / plannedUnits;
  const ids = arms.map((a) => a.arm);
  const metrics = {} as Record<M, MetricAnalysis>;
  for (const name of Object.keys(arms[controlIndex].metrics) as M[]) {
    metrics[name] = analyseMetric(
      ids,
      units,
      arms.map((a) => a.metrics[name]),
      controlIndex,
      progress,
    );
  }
  return { units: total, plannedSizeReached: total >= plannedUnits, metrics };
}
