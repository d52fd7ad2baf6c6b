/**
 * The charts of the learning simulation. The merchant states one women's bottoms chart for every product; each product's
 * TRUE chart is that chart moved by a known offset in size steps, so the simulation knows what the service should learn.
 * A shopper's true size is the reference tailor's answer on the true chart with her measured waist and hip.
 */
import type { Chart, Zone, ZoneWeights } from '../../src/sizing/types.js';
import { referenceBestSize } from './reference-tailor.js';

/** The zones the chart measures, equally weighted: NHANES measures both. */
export const ZONE_WEIGHTS: ZoneWeights = { waist: 1, hip: 1 };
const ZONES: readonly Zone[] = ['waist', 'hip'];

type Range = readonly [min: number, max: number];

/** The women's bottoms chart of eval-fit (cm), contiguous ranges, smallest first: it covers NHANES women. */
const ROWS: readonly (readonly [label: string, waist: Range, hip: Range])[] = [
  ['XS', [60, 68], [84, 92]],
  ['S', [68, 76], [92, 100]],
  ['M', [76, 84], [100, 108]],
  ['L', [84, 94], [108, 116]],
  ['XL', [94, 104], [116, 126]],
  ['1X', [104, 116], [126, 136]],
  ['2X', [116, 128], [136, 146]],
  ['3X', [128, 142], [146, 158]],
];

export const SIZE_LABELS: readonly string[] = ROWS.map(([label]) => label);

export const STATED_CHART: Chart = {
  measurementType: 'body',
  easeCm: 0,
  sizes: ROWS.map(([label, waist, hip]) => ({
    label,
    measurements: { waist: { min: waist[0], max: waist[1] }, hip: { min: hip[0], max: hip[1] } },
  })),
};

/**
 * A zone's size boundary at a fractional position p: knot i is the min of size i, knot n the max of the last size;
 * linear between knots and, past either end, along the end size's width.
 */
function boundaryAt(knots: readonly number[], p: number): number {
  const last = knots.length - 1;
  const i = Math.min(Math.max(Math.floor(p), 0), last - 1);
  return knots[i] + (p - i) * (knots[i + 1] - knots[i]);
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * The chart a product really follows when it runs `offset` size steps small (positive: a shopper needs a bigger size
 * than the stated chart says) or large (negative): every boundary moves down by `offset` sizes, so with +1 size M fits
 * the bodies the stated chart calls S. Ranges are rounded to 0.1 cm, as a merchant would write them.
 */
export function trueChart(stated: Chart, offset: number): Chart {
  const knots = Object.fromEntries(
    ZONES.map((z) => [z, [...stated.sizes.map((s) => s.measurements[z]!.min), stated.sizes.at(-1)!.measurements[z]!.max]]),
  ) as Record<Zone, number[]>;
  return {
    ...stated,
    sizes: stated.sizes.map((size, i) => ({
      label: size.label,
      measurements: Object.fromEntries(
        ZONES.map((z) => [z, { min: round1(boundaryAt(knots[z], i - offset)), max: round1(boundaryAt(knots[z], i + 1 - offset)) }]),
      ),
    })),
  };
}

/** The shopper's true size (index in chart order) on `chart`, from her measured waist and hip. */
export const trueSize = (chart: Chart, body: { waistCm: number; hipCm: number }): number =>
  referenceBestSize(chart, ZONE_WEIGHTS, { waist: body.waistCm, hip: body.hipCm });

/** The chart as the API takes it (`POST …/size-charts`). */
export function chartBody(name: string, chart: Chart) {
  return {
    name,
    unit: 'cm',
    measurement_type: 'body',
    sizes: chart.sizes.map((s) => ({ label: s.label, measurements: s.measurements })),
  };
}
