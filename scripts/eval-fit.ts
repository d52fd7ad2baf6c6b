/**
 * Evaluates the size engine on people it has never seen and writes the results into docs/fit-quality.md (between the
 * eval-fit markers):
 *
 *   npm run eval:fit          (NHANES_DIR=…, ANSUR_DIR=… to read the data from elsewhere)
 *
 * 1. NHANES civilians, 5-fold cross-validation: for each fold the body model is refitted on the other four folds (and
 *    the ANSUR II training split) and scored on the fold, unweighted and with the survey's sample weights.
 * 2. ANSUR II's held-out subjects, with the model the service ships (never fitted on them).
 *
 * True size: the chart's own answer on the person's measured body (scripts/lib/reference-tailor.ts). Baselines on the
 * same folds: least squares per sex on height, weight, age and BMI, and the most common size per sex and BMI bucket
 * (scripts/lib/fit-metrics.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BODY_MODEL_COEFFICIENTS } from '../src/sizing/body-model.coefficients.js';
import { BODY_MODEL, compileBodyModel, MODEL_VERSION, type BodyModel } from '../src/sizing/body-model.js';
import { sfc32 } from '../src/sizing/draws.js';
import { recommend } from '../src/sizing/recommend.js';
import type { Chart, Shopper, Zone, ZoneWeights } from '../src/sizing/types.js';
import { loadAnsur, projectRoot, type Subject } from './lib/ansur.js';
import { DEFAULT_FIT_OPTIONS, fitBodyModel, type FitOptions } from './lib/body-model-fit.js';
import {
  accuracy,
  AGE_BANDS,
  ageBand,
  BMI_CLASSES,
  bmiClass,
  eceNoiseFloor,
  leastSquares,
  mostCommonSize,
  summarise,
  type Body,
  type Scored,
  type Summary,
} from './lib/fit-metrics.js';
import { FOLDS, loadNhanes, type Person } from './lib/nhanes.js';
import { referenceBestSize } from './lib/reference-tailor.js';

interface EvalChart {
  readonly name: string;
  readonly chart: Chart;
  readonly zoneWeights: ZoneWeights;
}

type Row = readonly [label: string, ...ranges: (readonly [number, number])[]];

function bodyChart(name: string, zones: readonly Zone[], zoneWeights: ZoneWeights, rows: readonly Row[]): EvalChart {
  return {
    name,
    zoneWeights,
    chart: {
      measurementType: 'body',
      easeCm: 0,
      sizes: rows.map(([label, ...ranges]) => ({
        label,
        measurements: Object.fromEntries(zones.map((z, i) => [z, { min: ranges[i][0], max: ranges[i][1] }])),
      })),
    },
  };
}

/** Retail-like body charts (cm) that cover the civilian range, plus sizes. */
const WOMENS_BOTTOMS = bodyChart("women's bottoms (waist 1, hip 1)", ['waist', 'hip'], { waist: 1, hip: 1 }, [
  ['XS', [60, 68], [84, 92]],
  ['S', [68, 76], [92, 100]],
  ['M', [76, 84], [100, 108]],
  ['L', [84, 94], [108, 116]],
  ['XL', [94, 104], [116, 126]],
  ['1X', [104, 116], [126, 136]],
  ['2X', [116, 128], [136, 146]],
  ['3X', [128, 142], [146, 158]],
]);
const MENS_BOTTOMS = bodyChart("men's bottoms (waist 1, hip 1)", ['waist', 'hip'], { waist: 1, hip: 1 }, [
  ['S', [70, 80], [86, 94]],
  ['M', [80, 90], [94, 102]],
  ['L', [90, 100], [102, 110]],
  ['XL', [100, 110], [110, 118]],
  ['2XL', [110, 122], [118, 128]],
  ['3XL', [122, 134], [128, 138]],
  ['4XL', [134, 148], [138, 150]],
]);
/** Jeans by waist in inches: ranges with gaps between them (a body in a gap takes the next size up). */
const JEANS = bodyChart('jeans by waist, gaps between sizes (waist 1)', ['waist'], { waist: 1 }, [
  ['28', [70, 73]],
  ['30', [75, 78]],
  ['32', [80, 83]],
  ['34', [85, 88]],
  ['36', [90, 93]],
  ['38', [95, 98]],
  ['40', [100, 103]],
  ['42', [105, 108]],
  ['44', [110, 114]],
  ['46', [116, 120]],
  ['48', [122, 126]],
  ['50', [128, 134]],
]);
const TOPS = bodyChart('tops (chest 1, waist 0.5)', ['chest', 'waist'], { chest: 1, waist: 0.5 }, [
  ['XS', [80, 87], [64, 72]],
  ['S', [87, 94], [72, 80]],
  ['M', [94, 102], [80, 88]],
  ['L', [102, 110], [88, 97]],
  ['XL', [110, 118], [97, 107]],
  ['XXL', [118, 128], [107, 119]],
]);
/** The unisex bottoms chart of the engine's first evaluation (ANSUR II only), kept to compare like with like. */
const UNISEX_BOTTOMS = bodyChart('unisex bottoms (waist 1, hip 1)', ['waist', 'hip'], { waist: 1, hip: 1 }, [
  ['XS', [62, 70], [84, 91]],
  ['S', [70, 78], [91, 98]],
  ['M', [78, 86], [98, 105]],
  ['L', [86, 95], [105, 112]],
  ['XL', [95, 105], [112, 120]],
  ['XXL', [105, 117], [120, 130]],
]);
const SHIRTS = bodyChart('shirts (neck 1, sleeve 0.5)', ['neck', 'sleeve'], { neck: 1, sleeve: 0.5 }, [
  ['S', [34, 38], [50, 55]],
  ['M', [38, 41], [55, 58]],
  ['L', [41, 44], [58, 61]],
  ['XL', [44, 47], [61, 64]],
  ['XXL', [47, 51], [64, 68]],
]);

/** NHANES measures waist and hip only: the charts on those zones. */
const NHANES_CHARTS = [WOMENS_BOTTOMS, MENS_BOTTOMS, JEANS];
const ANSUR_CHARTS = [TOPS, UNISEX_BOTTOMS, WOMENS_BOTTOMS, MENS_BOTTOMS, JEANS, SHIRTS];

type Scenario = 'height, weight, age, sex' | 'sex unknown' | 'age unknown';
const SCENARIOS: readonly Scenario[] = ['height, weight, age, sex', 'sex unknown', 'age unknown'];

function shopperFor(b: Body, scenario: Scenario): Shopper {
  const base = { heightCm: b.heightCm, weightKg: b.weightKg, measured: {} };
  if (scenario === 'sex unknown') return { ...base, age: b.age };
  if (scenario === 'age unknown') return { ...base, sex: b.sex };
  return { ...base, age: b.age, sex: b.sex };
}

interface Prediction {
  readonly body: Body;
  readonly scored: Scored;
  readonly unweighted: Scored;
  /** Baselines' predicted sizes: least squares, most common. */
  readonly leastSquares: number;
  readonly mostCommon: number;
  /** The engine on a body model fitted on ANSUR II alone (before the civilian model), when scored. */
  readonly soldiersOnly?: Scored;
}

const timings: number[] = [];

function score(model: BodyModel, c: EvalChart, shopper: Shopper, truth: number, weight: number): Scored {
  const t0 = process.hrtime.bigint();
  const r = recommend({ chart: c.chart, zoneWeights: c.zoneWeights, fitAdjustment: 'true_to_size', shopper }, model);
  timings.push(Number(process.hrtime.bigint() - t0) / 1e6);
  const labels = c.chart.sizes.map((s) => s.label);
  const probabilities = labels.map(() => 0);
  probabilities[labels.indexOf(r.sizeLabel)] = r.confidence;
  for (const a of r.alternatives) probabilities[labels.indexOf(a.sizeLabel)] = a.confidence;
  return { truth, predicted: labels.indexOf(r.sizeLabel), confidence: r.confidence, probabilities, weight };
}

const zonesOf = (c: EvalChart) => Object.keys(c.zoneWeights) as Zone[];
const personZones = (p: Person): Partial<Record<Zone, number>> => ({ waist: p.waistCm, hip: p.hipCm });
const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);
const fixed = (x: number, d = 3) => (Number.isNaN(x) ? '—' : x.toFixed(d));
const render = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

interface Group {
  readonly name: string;
  readonly keep: (b: Body) => boolean;
}
const GROUPS: readonly Group[] = [
  { name: 'all', keep: () => true },
  { name: 'women', keep: (b) => b.sex === 'female' },
  { name: 'men', keep: (b) => b.sex === 'male' },
  ...AGE_BANDS.map((a) => ({ name: `age ${a.name}`, keep: (b: Body) => ageBand(b) === a.name })),
  ...BMI_CLASSES.map((c) => ({ name: c.name, keep: (b: Body) => bmiClass(b) === c.name })),
];

function resultRow(chart: string, group: string, rows: readonly Prediction[], weighted: boolean): string[] {
  const pick = (p: Prediction) => (weighted ? p.scored : p.unweighted);
  const m: Summary = summarise(rows.map(pick));
  const ls = accuracy(rows.map((p) => ({ truth: pick(p).truth, predicted: p.leastSquares, weight: pick(p).weight })));
  const mc = accuracy(rows.map((p) => ({ truth: pick(p).truth, predicted: p.mostCommon, weight: pick(p).weight })));
  const soldiers = rows.every((p) => p.soldiersOnly !== undefined)
    ? summarise(rows.map((p) => ({ ...(p.soldiersOnly as Scored), weight: pick(p).weight })))
    : undefined;
  return [
    chart,
    group,
    String(m.n),
    pct(m.exact),
    pct(m.withinOne),
    fixed(m.ece),
    fixed(m.brier),
    fixed(m.logLoss),
    pct(ls.exact),
    pct(ls.withinOne),
    pct(mc.exact),
    soldiers === undefined ? '—' : pct(soldiers.exact),
    soldiers === undefined ? '—' : fixed(soldiers.ece),
  ];
}
const RESULT_HEADER = [
  'chart',
  'people',
  'n',
  'exact',
  '±1 size',
  'ECE',
  'Brier',
  'log loss',
  'LS exact',
  'LS ±1',
  'mode exact',
  'ANSUR-only exact',
  'ANSUR-only ECE',
];

interface CrossValidated {
  readonly byChart: Map<string, Map<Scenario, Prediction[]>>;
  /** Engine with every weighted zone measured agrees with the chart, per chart: [agree, total]. */
  readonly measured: Map<string, [number, number]>;
}

function compile(fits: ReturnType<typeof fitBodyModel>, version: string): BodyModel {
  return compileBodyModel({ ...BODY_MODEL_COEFFICIENTS, modelVersion: version, female: fits.female.model, male: fits.male.model });
}

/** `soldiersOnly`: the engine before the civilian model; it never saw NHANES, so every fold shares it. */
function crossValidate(people: readonly Person[], ansurTrain: readonly Subject[], soldiersOnly: BodyModel): CrossValidated {
  const byChart = new Map(NHANES_CHARTS.map((c) => [c.name, new Map(SCENARIOS.map((s) => [s, [] as Prediction[]]))]));
  const measured = new Map(NHANES_CHARTS.map((c) => [c.name, [0, 0] as [number, number]]));
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = people.filter((p) => p.fold !== fold);
    const test = people.filter((p) => p.fold === fold);
    const model = compile(fitBodyModel(train, ansurTrain), `cv-fold-${fold}`);
    const zonesCm = (p: Person) => [p.waistCm, p.hipCm];
    const lsFull = leastSquares(train, zonesCm, { withAge: true, bySex: true });
    const lsPooled = leastSquares(train, zonesCm, { withAge: true, bySex: false });
    const lsNoAge = leastSquares(train, zonesCm, { withAge: false, bySex: true });
    for (const c of NHANES_CHARTS) {
      const truthOf = (p: Person) => referenceBestSize(c.chart, c.zoneWeights, personZones(p));
      const pointSize = (cm: number[]) => referenceBestSize(c.chart, c.zoneWeights, { waist: cm[0], hip: cm[1] });
      const modeBySex = mostCommonSize(train, truthOf, (b) => b.sex);
      const modePooled = mostCommonSize(train, truthOf, () => 'all');
      const counts = measured.get(c.name) as [number, number];
      for (const p of test) {
        const truth = truthOf(p);
        for (const scenario of SCENARIOS) {
          const shopper = shopperFor(p, scenario);
          const ls = scenario === 'sex unknown' ? lsPooled : scenario === 'age unknown' ? lsNoAge : lsFull;
          const mode = scenario === 'sex unknown' ? modePooled : modeBySex;
          const scored = score(model, c, shopper, truth, p.sampleWeight);
          byChart
            .get(c.name)
            ?.get(scenario)
            ?.push({
              body: p,
              scored,
              unweighted: { ...scored, weight: 1 },
              leastSquares: pointSize(ls(p)),
              mostCommon: mode(p),
              soldiersOnly: scenario === 'height, weight, age, sex' ? score(soldiersOnly, c, shopper, truth, 1) : undefined,
            });
        }
        const all = Object.fromEntries(zonesOf(c).map((z) => [z, personZones(p)[z]]));
        const r = recommend(
          { chart: c.chart, zoneWeights: c.zoneWeights, fitAdjustment: 'true_to_size', shopper: { measured: all } },
          model,
        );
        counts[0] += r.sizeLabel === c.chart.sizes[truth].label ? 1 : 0;
        counts[1]++;
      }
    }
    console.log(`fold ${fold + 1}/${FOLDS}: ${test.length} people scored`);
  }
  return { byChart, measured };
}

function main(): void {
  const nhanes = loadNhanes();
  const ansur = loadAnsur();
  const ansurTrain = ansur.subjects.filter((s) => !s.heldOut);
  const ansurTest = ansur.subjects.filter((s) => s.heldOut);
  const floorRandom = sfc32(0xca11b);
  const lines: string[] = [];
  const checks: { text: string; pass: boolean }[] = [];

  // 1. NHANES cross-validation
  const soldiersOnly = compile(fitBodyModel(nhanes.people, ansurTrain, { ...DEFAULT_FIT_OPTIONS, civilianZones: false }), 'ansur-only');
  const cv = crossValidate(nhanes.people, ansurTrain, soldiersOnly);
  const primary: Scenario = 'height, weight, age, sex';
  for (const weighted of [false, true]) {
    const rows: string[][] = [];
    for (const c of NHANES_CHARTS) {
      const predictions = cv.byChart.get(c.name)?.get(primary) ?? [];
      for (const g of GROUPS)
        rows.push(
          resultRow(
            c.name,
            g.name,
            predictions.filter((p) => g.keep(p.body)),
            weighted,
          ),
        );
    }
    lines.push(
      weighted
        ? '#### NHANES, cross-validated, weighted by the survey (the US adult population)'
        : '#### NHANES, cross-validated, unweighted (the sampled people)',
      '',
      render(RESULT_HEADER, rows),
      '',
    );
  }

  // calibration cells: sex × age band, and sex × age band × BMI class
  const cellRows: string[][] = [];
  for (const c of NHANES_CHARTS) {
    const predictions = cv.byChart.get(c.name)?.get(primary) ?? [];
    const pooled = summarise(predictions.map((p) => p.unweighted));
    checks.push({ text: `${c.name}: pooled ECE ${fixed(pooled.ece)} ≤ 0.03`, pass: pooled.ece <= 0.03 });
    if (c !== JEANS) {
      checks.push({ text: `${c.name}: within one size ${pct(pooled.withinOne)} ≥ 99%`, pass: pooled.withinOne >= 0.99 });
    }
    const ls = accuracy(predictions.map((p) => ({ truth: p.unweighted.truth, predicted: p.leastSquares, weight: 1 })));
    checks.push({
      text: `${c.name}: exact ${pct(pooled.exact)} vs least squares ${pct(ls.exact)} (${(100 * (pooled.exact - ls.exact)).toFixed(1)} points)`,
      pass: pooled.exact >= ls.exact,
    });
    for (const sex of ['female', 'male'] as const) {
      for (const band of AGE_BANDS) {
        const cell = predictions.filter((p) => p.body.sex === sex && ageBand(p.body) === band.name);
        const s = summarise(cell.map((p) => p.unweighted));
        const floor = eceNoiseFloor(
          cell.map((p) => p.unweighted),
          floorRandom,
        );
        cellRows.push([c.name, `${sex}, ${band.name}`, String(s.n), pct(s.exact), fixed(s.ece), fixed(floor), fixed(s.meanConfidence)]);
        if (s.n >= 100) {
          checks.push({ text: `${c.name}, ${sex} ${band.name}: ECE ${fixed(s.ece)} ≤ 0.05 (n ${s.n})`, pass: s.ece <= 0.05 });
        }
        for (const bmi of BMI_CLASSES) {
          const sub = cell.filter((p) => bmiClass(p.body) === bmi.name);
          const t = summarise(sub.map((p) => p.unweighted));
          const subFloor = eceNoiseFloor(
            sub.map((p) => p.unweighted),
            floorRandom,
          );
          cellRows.push([
            c.name,
            `${sex}, ${band.name}, ${bmi.name}`,
            String(t.n),
            pct(t.exact),
            fixed(t.ece),
            fixed(subFloor),
            fixed(t.meanConfidence),
          ]);
        }
      }
    }
  }
  lines.push(
    '#### Calibration by sex × age band × BMI class (NHANES, cross-validated, unweighted)',
    '',
    'ECE if calibrated: the ECE a perfectly calibrated engine shows on the same confidences and n (sampling noise alone).',
    '',
    render(['chart', 'cell', 'n', 'exact', 'ECE', 'ECE if calibrated', 'mean conf.'], cellRows),
    '',
  );

  // other answers
  const scenarioRows: string[][] = [];
  for (const c of NHANES_CHARTS) {
    for (const scenario of SCENARIOS) {
      const predictions = cv.byChart.get(c.name)?.get(scenario) ?? [];
      for (const g of GROUPS.slice(0, 3)) {
        scenarioRows.push([
          scenario,
          ...resultRow(
            c.name,
            g.name,
            predictions.filter((p) => g.keep(p.body)),
            false,
          ),
        ]);
      }
    }
  }
  lines.push(
    '#### NHANES, cross-validated, by what the shopper answered (unweighted; baselines without sex pooled, without age refitted without it)',
    '',
    render(['answers', ...RESULT_HEADER], scenarioRows),
    '',
  );

  // 2. ANSUR II held-out subjects, the shipped model
  const ansurRows: string[][] = [];
  const ansurModel = BODY_MODEL;
  for (const c of ANSUR_CHARTS) {
    const truthOf = (s: Subject) => referenceBestSize(c.chart, c.zoneWeights, s.zones);
    const zones = zonesOf(c);
    const ls = leastSquares(ansurTrain, (s) => zones.map((z) => s.zones[z]), { withAge: true, bySex: true });
    const mode = mostCommonSize(ansurTrain, truthOf, (b) => b.sex);
    const predictions: Prediction[] = ansurTest.map((s) => {
      const truth = truthOf(s);
      const scored = score(ansurModel, c, shopperFor(s, primary), truth, 1);
      const point = ls(s);
      return {
        body: s,
        scored,
        unweighted: scored,
        soldiersOnly: score(soldiersOnly, c, shopperFor(s, primary), truth, 1),
        leastSquares: referenceBestSize(c.chart, c.zoneWeights, Object.fromEntries(zones.map((z, i) => [z, point[i]]))),
        mostCommon: mode(s),
      };
    });
    for (const g of GROUPS.slice(0, 3))
      ansurRows.push(
        resultRow(
          c.name,
          g.name,
          predictions.filter((p) => g.keep(p.body)),
          false,
        ),
      );
    const now = summarise(predictions.map((p) => p.scored)).exact;
    const before = summarise(predictions.map((p) => p.soldiersOnly as Scored)).exact;
    checks.push({
      text: `ANSUR II held-out, ${c.name}: exact ${pct(now)} vs ${pct(before)} on ANSUR II alone (no more than 1 point lower)`,
      pass: now >= before - 0.01,
    });
    let agree = 0;
    for (const s of ansurTest) {
      const measured = Object.fromEntries(zones.map((z) => [z, s.zones[z]]));
      const r = recommend({ chart: c.chart, zoneWeights: c.zoneWeights, fitAdjustment: 'true_to_size', shopper: { measured } }, ansurModel);
      if (r.sizeLabel === c.chart.sizes[truthOf(s)].label) agree++;
    }
    cv.measured.set(`${c.name} (ANSUR II)`, [agree, ansurTest.length]);
  }
  lines.push(
    `#### ANSUR II held-out subjects (${ansurTest.length}), the shipped model, height, weight, age and sex answered`,
    '',
    render(RESULT_HEADER, ansurRows),
    '',
  );

  // the join of the two surveys, compared: which ANSUR II girths follow the civilian hip, and how
  const ablationRows: string[][] = [];
  const variants: readonly [string, FitOptions][] = [
    ['shipped: as ANSUR II measured them', DEFAULT_FIT_OPTIONS],
    ['widened like the civilian hip', { ...DEFAULT_FIT_OPTIONS, widenGirths: true }],
    ['widened and shifted with the civilian hip', { ...DEFAULT_FIT_OPTIONS, shiftMeans: true, widenGirths: true }],
  ];
  for (const [name, options] of variants) {
    const model = compile(fitBodyModel(nhanes.people, ansurTrain, options), name);
    for (const c of [TOPS, SHIRTS]) {
      const truthOf = (s: Subject) => referenceBestSize(c.chart, c.zoneWeights, s.zones);
      for (const g of GROUPS.slice(0, 3)) {
        const rows = ansurTest.filter((s) => g.keep(s)).map((s) => score(model, c, shopperFor(s, primary), truthOf(s), 1));
        const m = summarise(rows);
        ablationRows.push([name, c.name, g.name, String(m.n), pct(m.exact), fixed(m.ece), fixed(m.meanConfidence), fixed(m.logLoss)]);
      }
    }
  }
  lines.push(
    '#### ANSUR II held-out subjects: the girths NHANES does not measure, three ways of joining the surveys',
    '',
    render(['body model', 'chart', 'people', 'n', 'exact', 'ECE', 'mean conf.', 'log loss'], ablationRows),
    '',
  );

  for (const [name, [agree, n]] of cv.measured) {
    checks.push({ text: `every weighted zone measured, ${name}: ${agree}/${n} the chart's own answer`, pass: agree === n });
  }
  const sorted = [...timings].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3);
  const speed = `${timings.length} recommendations: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms (wall, one core, caches warm after the first of each kind)`;

  const today = new Date().toISOString().slice(0, 10);
  const people = nhanes.people;
  const markdown = [
    `Generated by \`npm run eval:fit\` on ${today}; shipped model \`${MODEL_VERSION}\`. NHANES: ${people.length} adults ` +
      `(${people.filter((p) => p.sex === 'female').length} women, ${people.filter((p) => p.sex === 'male').length} men) of ` +
      `the training part in ${FOLDS} folds; each fold scored by a model fitted without it. Exact / ±1 size: share whose ` +
      `predicted size is the chart's answer on their measured body / at most one size away. ECE: expected calibration ` +
      `error of \`confidence\` (10 bins). Brier and log loss score the whole published size distribution (a size not ` +
      `listed counts as 0.001 in the log loss). LS: least squares per sex on height, weight, age and BMI, fitted on the ` +
      `same training folds, its point estimate put through the chart. Mode: the most common size per sex and BMI unit in ` +
      `the training folds.`,
    '',
    ...lines,
    '#### Checks',
    '',
    ...checks.map((c) => `- ${c.pass ? 'pass' : '**fail**'}: ${c.text}`),
    '',
    `Speed: ${speed}.`,
  ].join('\n');
  console.log(markdown);

  const doc = join(projectRoot(), 'docs', 'fit-quality.md');
  const begin = '<!-- eval-fit:begin -->';
  const end = '<!-- eval-fit:end -->';
  const text = readFileSync(doc, 'utf8');
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${doc}: markers ${begin} … ${end} not found`);
  writeFileSync(doc, `${text.slice(0, i + begin.length)}\n${markdown}\n${text.slice(j)}`);
  console.log(`\nupdated docs/fit-quality.md`);
  if ([...cv.measured.values()].some(([agree, n]) => agree !== n)) {
    console.error("measured inputs did not always give the chart's own answer");
    process.exitCode = 1;
  }
}

main();
