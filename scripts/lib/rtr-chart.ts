/**
 * The engine that never learns, on RentTheRunway: a size chart per category on the shop's numeric scale, read from the
 * customer's answers. One least-squares regression of the size rented on height, weight, bra band and cup and body type,
 * fitted on the rentals whose verdict was "fit" (their size was right), plus a per-category shift (the category's mean
 * residual, shrunk towards 0 by CATEGORY_PRIOR rentals). A missing answer is replaced by the training mean and flagged,
 * so the flag's coefficient carries what not answering says.
 */
import { ols } from '../../src/sizing/linalg.js';
import type { Rental } from './rtr.js';

/** One size step on the shop's scale: its common sizes (4, 8, 12, 16, …) lie 4 apart. */
export const SIZE_STEP = 4;
const CATEGORY_PRIOR = 50;
const BODY_TYPES = ['hourglass', 'athletic', 'petite', 'straight & narrow', 'pear', 'full bust', 'apple'];
/** Answers outside these ranges are typing errors and count as not given. */
const PLAUSIBLE = { heightIn: [48, 84], weightLbs: [70, 400], bustBand: [28, 48] } as const;

/** Which answers the chart reads beyond height and weight. */
export interface ChartAnswers {
  readonly braSize: boolean;
  readonly bodyType: boolean;
  /** The size she usually wears (e.g. the median of her earlier rentals), or null when unknown; absent: not asked. */
  readonly usualSize?: (r: Rental) => number | null;
}

/** The answers the service's questionnaire would need for the chart of this evaluation. */
export const RTR_ANSWERS: ChartAnswers = { braSize: true, bodyType: true };

export interface SizeChart {
  /** The size the chart recommends for this customer in this category, on the shop's scale. */
  recommend(r: Rental): number;
}

type Answer = 'heightIn' | 'weightLbs' | 'bustBand' | 'cup';
const ANSWERS: readonly Answer[] = ['heightIn', 'weightLbs', 'bustBand', 'cup'];

function answer(r: Rental, key: Answer): number | null {
  const v = r[key];
  if (v === null || key === 'cup') return v;
  const [min, max] = PLAUSIBLE[key];
  return v >= min && v <= max ? v : null;
}

/**
 * The chart from `training`. With a usual size asked for, customers who give one get a regression of their own that
 * reads it, and the others the regression without it: a shared regression with a "not given" flag would have to
 * weigh weight and height for both at once.
 */
export function fitChart(training: readonly Rental[], answers: ChartAnswers = RTR_ANSWERS): SizeChart {
  const usual = answers.usualSize;
  if (!usual) return fitLinear(training, answers, null);
  const without = fitLinear(training, answers, null);
  const givers = training.filter((r) => usual(r) !== null);
  if (givers.filter((r) => r.verdict === 'fit').length < MIN_USUAL_FITS) return without;
  const withUsual = fitLinear(givers, answers, usual as (r: Rental) => number);
  return { recommend: (r) => (usual(r) === null ? without : withUsual).recommend(r) };
}

/** Fewer fitted rentals with a usual size than this, and the chart does not read it. */
const MIN_USUAL_FITS = 100;

function fitLinear(training: readonly Rental[], answers: ChartAnswers, usual: ((r: Rental) => number) | null): SizeChart {
  const fits = training.filter((r) => r.verdict === 'fit');
  const means = Object.fromEntries(
    ANSWERS.map((key) => {
      const given = fits.map((r) => answer(r, key)).filter((v): v is number => v !== null);
      return [key, given.reduce((a, b) => a + b, 0) / Math.max(given.length, 1)];
    }),
  ) as Record<Answer, number>;
  // band and cup are one answer: both given or neither
  const usualMean = usual ? fits.reduce((sum, r) => sum + usual(r), 0) / Math.max(fits.length, 1) : 0;
  const full = (r: Rental): number[] => {
    const [height, weight, band, cup] = ANSWERS.map((key) => answer(r, key));
    const bust = answers.braSize && band !== null && cup !== null;
    const centred = (v: number | null, key: Answer) => (v === null ? 0 : v - means[key]);

    return [
      1,
      centred(height, 'heightIn'),
      height === null ? 1 : 0,
      centred(weight, 'weightLbs'),
      weight === null ? 1 : 0,
      bust ? centred(band, 'bustBand') : 0,
      bust ? centred(cup, 'cup') : 0,
      bust || !answers.braSize ? 0 : 1,
      ...BODY_TYPES.map((t) => (answers.bodyType && r.bodyType === t ? 1 : 0)),
      usual ? usual(r) - usualMean : 0,
    ];
  };
  // a column no training row sets (an answer all gave, a body type none named) would make the fit singular
  const fullRows = fits.map(full);
  const used = fullRows[0].map((_, j) => fullRows.some((row) => row[j] !== 0));
  const design = (r: Rental): number[] => full(r).filter((_, j) => used[j]);
  const x = fullRows.map((row) => row.filter((_, j) => used[j]));
  const { coefficients, residuals } = ols(
    x,
    fits.map((r) => [r.size]),
  );
  const beta = coefficients[0];
  const shift = new Map<string, { sum: number; n: number }>();
  fits.forEach((r, i) => {
    const s = shift.get(r.category) ?? { sum: 0, n: 0 };
    s.sum += residuals[i][0];
    s.n += 1;
    shift.set(r.category, s);
  });
  return {
    recommend(r: Rental): number {
      const s = shift.get(r.category);
      const base = design(r).reduce((sum, v, i) => sum + v * beta[i], 0);
      return base + (s ? s.sum / (s.n + CATEGORY_PRIOR) : 0);
    },
  };
}
