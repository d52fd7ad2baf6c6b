import type { SizeDefinition } from '../../catalog/catalog.entities.js';

/**
 * Size charts a merchant starts from: women's, men's and children's body measurements for tops, bottoms and dresses,
 * each with EU, US or UK size labels. Body charts in centimetres, smallest size first; every one passes the catalog's
 * rules (test/api/console/console-catalog.e2e-spec.ts creates each through the console).
 *
 * Source of the figures: EN 13402-3 ("Size designation of clothes — Part 3: Measurements and intervals"), which sizes
 * clothes by body girths in fixed intervals: 4 cm of bust or chest girth from one size to the next in the middle of the
 * range, children by body height in 6 cm steps. Each size here is the 4 cm interval of its primary girth around the
 * control measure of the conventional size (German women's sizes: bust = 2 × (size + 6) cm, so 38 is 86–90 cm; men's:
 * chest = 2 × size, so 50 is 98–102 cm); the secondary girths keep the usual proportions of European size tables
 * (women: waist 16 cm under the bust, hip 8 cm over it; men: waist 12 cm under the chest, hip 2 cm over it). Children's
 * sizes are their EN 13402 height (98, 104, … 164 cm) with chest, waist and hip girths growing by the size step of
 * those tables. US and UK labels are the usual conversions: women UK = EU − 26 and US = EU − 30 (EU 38 = UK 12 =
 * US 8); men's tops by chest in inches (EU 50 = 40), bottoms by waist in inches; children by age in years.
 *
 * The charts are a start, not a promise: a brand whose clothes run otherwise edits the ranges (or imports its own CSV).
 */

type Wearer = 'women' | 'men' | 'children';
type Garment = 'tops' | 'bottoms' | 'dresses';
export type LabelSystem = 'EU' | 'US' | 'UK';

export const LABEL_SYSTEMS: readonly LabelSystem[] = ['EU', 'US', 'UK'];

interface SizeChartTemplate {
  /** `women-tops`: what the form sends. */
  readonly id: string;
  readonly wearer: Wearer;
  readonly garment: Garment;
  /** "Women's tops". */
  readonly title: string;
  /** The zones its sizes state, for the product type it suits. */
  readonly zones: readonly string[];
  /** The chart's sizes, labelled in the system asked for. */
  sizes(labels: LabelSystem): SizeDefinition[];
}

interface Row {
  readonly labels: Readonly<Record<LabelSystem, string>>;
  /** Centre of each zone's range, in cm. */
  readonly centres: Readonly<Record<string, number>>;
}

const HALF_INTERVAL = 2; // cm: 4 cm from one size to the next

const range = (centre: number) => ({ min: centre - HALF_INTERVAL, max: centre + HALF_INTERVAL });

/** Women's sizes 32 to 48 (German numbering, as EU labels), each 4 cm of bust girth. */
const WOMEN: readonly Row[] = [32, 34, 36, 38, 40, 42, 44, 46, 48].map((size) => {
  const bust = 2 * (size + 6);
  return {
    labels: { EU: String(size), UK: String(size - 26), US: String(size - 30) },
    centres: { chest: bust, waist: bust - 16, hip: bust + 8 },
  };
});

/** Men's sizes 44 to 58, each 4 cm of chest girth. */
const MEN: readonly Row[] = [44, 46, 48, 50, 52, 54, 56, 58].map((size) => {
  const chest = 2 * size;
  const waist = chest - 12;
  return {
    labels: { EU: String(size), UK: String(size - 10), US: String(size - 10) },
    centres: { chest, waist, hip: chest + 2, waistInches: Math.round(waist / 2.54) },
  };
});

/** Children by height (EN 13402), with the age in years that US and UK labels name. */
const CHILDREN: readonly Row[] = [98, 104, 110, 116, 122, 128, 134, 140, 146, 152, 158, 164].map((height, i) => {
  const age = i + 3;
  return {
    labels: { EU: String(height), US: String(age), UK: `${age}-${age + 1} Y` },
    centres: { chest: 54 + 2 * i + Math.max(0, i - 6) * 2, waist: 51 + i + Math.max(0, i - 6), hip: 57 + 3 * i + Math.max(0, i - 6) },
  };
});

const ZONES_OF: Readonly<Record<Garment, readonly string[]>> = {
  tops: ['chest', 'waist'],
  bottoms: ['waist', 'hip'],
  dresses: ['chest', 'waist', 'hip'],
};

const WEARER_TITLE: Readonly<Record<Wearer, string>> = { women: 'Women’s', men: 'Men’s', children: 'Children’s' };
const ROWS: Readonly<Record<Wearer, readonly Row[]>> = { women: WOMEN, men: MEN, children: CHILDREN };

function template(wearer: Wearer, garment: Garment): SizeChartTemplate {
  const zones = ZONES_OF[garment];
  return {
    id: `${wearer}-${garment}`,
    wearer,
    garment,
    title: `${WEARER_TITLE[wearer]} ${garment}`,
    zones,
    sizes: (labels) =>
      ROWS[wearer].map((row) => ({
        // men's trousers are labelled by waist in inches outside the EU
        label: wearer === 'men' && garment === 'bottoms' && labels !== 'EU' ? `W${row.centres.waistInches}` : row.labels[labels],
        measurements: Object.fromEntries(zones.map((zone) => [zone, range(row.centres[zone])])),
      })),
  };
}

export const SIZE_CHART_TEMPLATES: readonly SizeChartTemplate[] = [
  template('women', 'tops'),
  template('women', 'bottoms'),
  template('women', 'dresses'),
  template('men', 'tops'),
  template('men', 'bottoms'),
  template('children', 'tops'),
  template('children', 'bottoms'),
  template('children', 'dresses'),
];

export const templateById = (id: string): SizeChartTemplate | undefined => SIZE_CHART_TEMPLATES.find((t) => t.id === id);
