/**
 * Evaluates the size engine on the ANSUR II subjects held out of the body-model fit, and writes the results into
 * docs/fit-quality.md (between the eval-fit markers).
 *
 *   npm run eval:fit          (ANSUR_DIR=… to read the CSV files from elsewhere)
 *
 * True size: the tailor's rule on the subject's measured values. Predicted: the engine from height, weight, age and
 * sex alone (and variants with sex, age unknown, or one zone answered with a tape error). Baseline: per sex and BMI
 * bucket (1 kg/m² wide), the most common true size among the training subjects.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BODY_MODEL_COEFFICIENTS } from '../src/fit/engine/body-model.coefficients.js';
import { sfc32 } from '../src/fit/engine/draws.js';
import { ANSWER_SD_CM } from '../src/fit/engine/limits.js';
import { MODEL_VERSION, recommend } from '../src/fit/engine/recommend.js';
import type { Chart, Shopper, Zone, ZoneWeights } from '../src/fit/engine/types.js';
import { loadAnsur, projectRoot, type Subject } from './lib/ansur.js';
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

/** Retail-like unisex body charts, cm, contiguous ranges. */
const CHARTS: readonly EvalChart[] = [
  bodyChart('tops (chest 1, waist 0.5)', ['chest', 'waist'], { chest: 1, waist: 0.5 }, [
    ['XS', [80, 87], [64, 72]],
    ['S', [87, 94], [72, 80]],
    ['M', [94, 102], [80, 88]],
    ['L', [102, 110], [88, 97]],
    ['XL', [110, 118], [97, 107]],
    ['XXL', [118, 128], [107, 119]],
  ]),
  bodyChart('bottoms (waist 1, hip 1)', ['waist', 'hip'], { waist: 1, hip: 1 }, [
    ['XS', [62, 70], [84, 91]],
    ['S', [70, 78], [91, 98]],
    ['M', [78, 86], [98, 105]],
    ['L', [86, 95], [105, 112]],
    ['XL', [95, 105], [112, 120]],
    ['XXL', [105, 117], [120, 130]],
  ]),
  bodyChart('shirts (neck 1, sleeve 0.5)', ['neck', 'sleeve'], { neck: 1, sleeve: 0.5 }, [
    ['S', [34, 38], [50, 55]],
    ['M', [38, 41], [55, 58]],
    ['L', [41, 44], [58, 61]],
    ['XL', [44, 47], [61, 64]],
    ['XXL', [47, 51], [64, 68]],
  ]),
];

interface Scenario {
  readonly name: string;
  readonly shopper: (s: Subject, chart: EvalChart, noise: number) => Shopper;
  /** Which baseline compares: per sex, pooled (sex unknown), or none. */
  readonly baseline: 'sex' | 'pooled' | 'none';
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'height, weight, age, sex',
    baseline: 'sex',
    shopper: (s) => ({ heightCm: s.heightCm, weightKg: s.weightKg, age: s.age, sex: s.sex, measured: {} }),
  },
  {
    name: 'sex unknown',
    baseline: 'pooled',
    shopper: (s) => ({ heightCm: s.heightCm, weightKg: s.weightKg, age: s.age, measured: {} }),
  },
  {
    name: 'age unknown',
    baseline: 'sex',
    shopper: (s) => ({ heightCm: s.heightCm, weightKg: s.weightKg, sex: s.sex, measured: {} }),
  },
  {
    name: 'first zone answered (tape error)',
    baseline: 'none',
    shopper: (s, c, noise) => {
      const zone = Object.keys(c.zoneWeights)[0] as Zone;
      const measured = { [zone]: Math.round((s.zones[zone] + noise * ANSWER_SD_CM[zone]) * 10) / 10 };
      return { heightCm: s.heightCm, weightKg: s.weightKg, age: s.age, sex: s.sex, measured };
    },
  },
];

const bmi = (s: Subject) => s.weightKg / (s.heightCm / 100) ** 2;
const bucket = (s: Subject) => Math.min(Math.max(Math.floor(bmi(s)), 16), 40);

/** The naive baseline: per (sex or pooled) BMI bucket, the most common true size among training subjects. */
function fitBaseline(train: readonly Subject[], truth: Map<string, number>, key: (s: Subject) => string) {
  const counts = new Map<string, Map<number, number>>();
  for (const s of train) {
    const k = `${key(s)}:${bucket(s)}`;
    const m = counts.get(k) ?? new Map<number, number>();
    const t = truth.get(s.id) as number;
    m.set(t, (m.get(t) ?? 0) + 1);
    counts.set(k, m);
  }
  const mode = (m: Map<number, number>) => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
  return (s: Subject): number => {
    // the subject's bucket, else the nearest populated one
    for (let d = 0; d <= 30; d++) {
      for (const b of [bucket(s) - d, bucket(s) + d]) {
        const m = counts.get(`${key(s)}:${b}`);
        if (m !== undefined) return mode(m);
      }
    }
    throw new Error('empty baseline');
  };
}

interface Metrics {
  n: number;
  exact: number;
  withinOne: number;
  ece: number;
  meanConfidence: number;
}

function ece(rows: readonly { confidence: number; hit: boolean }[]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, conf: 0, hit: 0 }));
  for (const r of rows) {
    const b = bins[Math.min(Math.floor(r.confidence * 10), 9)];
    b.n++;
    b.conf += r.confidence;
    b.hit += r.hit ? 1 : 0;
  }
  return bins.reduce((sum, b) => sum + (b.n === 0 ? 0 : (b.n / rows.length) * Math.abs(b.hit - b.conf) / b.n), 0);
}

/** The ECE a perfectly calibrated predictor would show on these confidences and this n (sampling noise alone). */
function eceNoiseFloor(confidences: readonly number[], random: () => number): number {
  let sum = 0;
  const reps = 200;
  for (let r = 0; r < reps; r++) sum += ece(confidences.map((c) => ({ confidence: c, hit: random() < c })));
  return sum / reps;
}

function metrics(rows: readonly { truth: number; predicted: number; confidence?: number }[]): Metrics {
  const n = rows.length;
  const exact = rows.filter((r) => r.truth === r.predicted).length / n;
  const withinOne = rows.filter((r) => Math.abs(r.truth - r.predicted) <= 1).length / n;
  const scored = rows.every((r) => r.confidence !== undefined);
  const meanConfidence = scored ? rows.reduce((sum, r) => sum + (r.confidence as number), 0) / n : NaN;
  const e = scored ? ece(rows.map((r) => ({ confidence: r.confidence as number, hit: r.truth === r.predicted }))) : NaN;
  return { n, exact, withinOne, ece: e, meanConfidence };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const percentile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

function main(): void {
  const data = loadAnsur();
  for (const f of data.files) {
    const fitted = BODY_MODEL_COEFFICIENTS.provenance.sourceFiles.find((g) => g.name === f.name);
    if (fitted?.sha256 !== f.sha256) console.warn(`warning: ${f.name} differs from the file the model was fitted on`);
  }
  const train = data.subjects.filter((s) => !s.heldOut);
  const test = data.subjects.filter((s) => s.heldOut);
  const noise = sfc32(0x0e7a1);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - noise())) * Math.cos(2 * Math.PI * noise());
  const floorRandom = sfc32(0xca11b);
  const tapeError = new Map(test.map((s) => [s.id, gaussian()]));

  const tableRows: string[][] = [];
  const checks: string[] = [];
  const timings: number[] = [];
  const subgroupRows: string[][] = [];
  const cpuStart = process.cpuUsage();
  let calls = 0;
  const cpuTimings: number[] = [];
  const timed = (input: Parameters<typeof recommend>[0]) => {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const r = recommend(input);
    timings.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpuTimings.push((c.user + c.system) / 1000);
    calls++;
    return r;
  };

  for (const c of CHARTS) {
    const zones = Object.keys(c.zoneWeights) as Zone[];
    const label = (i: number) => c.chart.sizes[i].label;
    const index = new Map(c.chart.sizes.map((s, i) => [s.label, i]));
    const truth = new Map(data.subjects.map((s) => [s.id, referenceBestSize(c.chart, c.zoneWeights, s.zones)]));

    // measured values must give the chart's own answer, every time
    let agree = 0;
    for (const s of test) {
      const measured = Object.fromEntries(zones.map((z) => [z, s.zones[z]]));
      const r = recommend({ chart: c.chart, zoneWeights: c.zoneWeights, fitAdjustment: 'true_to_size', shopper: { measured } });
      if (r.sizeLabel === label(truth.get(s.id) as number)) agree++;
    }
    checks.push(`${c.name}: ${agree}/${test.length} held-out subjects (${pct(agree / test.length)})`);

    const baseSex = fitBaseline(train, truth, (s) => s.sex);
    const basePooled = fitBaseline(train, truth, () => 'all');
    for (const scenario of SCENARIOS) {
      const predictions = test.map((s) => {
        const r = timed({
          chart: c.chart,
          zoneWeights: c.zoneWeights,
          fitAdjustment: 'true_to_size',
          shopper: scenario.shopper(s, c, tapeError.get(s.id) as number),
        });
        return { s, truth: truth.get(s.id) as number, predicted: index.get(r.sizeLabel) as number, confidence: r.confidence };
      });
      for (const sex of ['female', 'male', 'all'] as const) {
        const rows = predictions.filter((p) => sex === 'all' || p.s.sex === sex);
        const m = metrics(rows);
        const base = scenario.baseline === 'sex' ? baseSex : basePooled;
        const baseline =
          scenario.baseline === 'none' ? undefined : metrics(rows.map((p) => ({ truth: p.truth, predicted: base(p.s) })));
        const wins = rows.filter((p) => p.predicted === p.truth && base(p.s) !== p.truth).length;
        const losses = rows.filter((p) => p.predicted !== p.truth && base(p.s) === p.truth).length;
        tableRows.push([
          c.name,
          scenario.name,
          sex,
          String(m.n),
          pct(m.exact),
          pct(m.withinOne),
          m.ece.toFixed(3),
          eceNoiseFloor(
            rows.map((p) => p.confidence),
            floorRandom,
          ).toFixed(3),
          m.meanConfidence.toFixed(3),
          baseline ? pct(baseline.exact) : '—',
          baseline ? pct(baseline.withinOne) : '—',
          baseline ? `+${wins} / −${losses}` : '—',
        ]);
      }
      if (scenario.name === SCENARIOS[0].name) {
        // subgroups: the light and heavy ends (a civilian population sits more often at the heavy end), older subjects
        for (const [name, keep] of [
          ['BMI < 22', (s: Subject) => bmi(s) < 22],
          ['BMI ≥ 30', (s: Subject) => bmi(s) >= 30],
          ['age ≥ 40', (s: Subject) => s.age >= 40],
        ] as const) {
          const rows = predictions.filter((p) => keep(p.s));
          const m = metrics(rows);
          const floor = eceNoiseFloor(
            rows.map((p) => p.confidence),
            floorRandom,
          );
          subgroupRows.push([
            c.name,
            name,
            String(m.n),
            pct(m.exact),
            pct(m.withinOne),
            m.ece.toFixed(3),
            floor.toFixed(3),
            m.meanConfidence.toFixed(3),
          ]);
        }
      }
    }
  }
  const cpu = process.cpuUsage(cpuStart);
  const sorted = [...timings].sort((a, b) => a - b);
  const cpuSorted = [...cpuTimings].sort((a, b) => a - b);
  const timing =
    `${calls} recommendations (cold caches included): CPU time p50 ${percentile(cpuSorted, 0.5).toFixed(3)} ms, ` +
    `p95 ${percentile(cpuSorted, 0.95).toFixed(3)} ms; wall p50 ${percentile(sorted, 0.5).toFixed(3)} ms; whole run ` +
    `${((cpu.user + cpu.system) / 1000 / calls).toFixed(3)} ms CPU per recommendation (evaluation bookkeeping included)`;

  const header = [
    'chart',
    'answers',
    'sex',
    'n',
    'exact',
    '±1 size',
    'ECE',
    'ECE if calibrated',
    'mean conf.',
    'baseline exact',
    'baseline ±1',
    'vs baseline',
  ];
  const render = (head: string[], rows: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  const subgroupHeader = ['chart', 'subjects', 'n', 'exact', '±1 size', 'ECE', 'ECE if calibrated', 'mean conf.'];
  const today = new Date().toISOString().slice(0, 10);
  const markdown = [
    `Generated by \`npm run eval:fit\` on ${today}, model \`${MODEL_VERSION}\`, on the ${test.length} held-out ANSUR II ` +
      `subjects (${test.filter((s) => s.sex === 'female').length} female, ${test.filter((s) => s.sex === 'male').length} male). ` +
      `Exact / ±1 size: share of subjects whose predicted size is the true size (the chart's answer on their measured body) ` +
      `/ at most one size away. ECE: expected calibration error of \`confidence\` (10 equal bins); ECE if calibrated: ` +
      `the ECE a perfectly calibrated predictor with the same confidences shows on this n (sampling noise alone, 200 ` +
      `simulations). Baseline: per sex (pooled when the sex is unknown) and 1-unit BMI bucket, the most common true ` +
      `size in the training part. vs baseline: subjects the engine gets right and the baseline wrong / the reverse.`,
    '',
    render(header, tableRows),
    '',
    'Subgroups (height, weight, age, sex known); a civilian population sits more often at the heavy end:',
    '',
    render(subgroupHeader, subgroupRows),
    '',
    'Measured inputs give the chart\'s own answer:',
    '',
    ...checks.map((c) => `- ${c}`),
    '',
    `Speed: ${timing}.`,
  ].join('\n');

  console.log(render(header, tableRows));
  console.log('');
  console.log(render(subgroupHeader, subgroupRows));
  console.log('');
  for (const c of checks) console.log(`chart's own answer from measured inputs: ${c}`);
  console.log(timing);

  const doc = join(projectRoot(), 'docs', 'fit-quality.md');
  const begin = '<!-- eval-fit:begin -->';
  const end = '<!-- eval-fit:end -->';
  let text: string;
  try {
    text = readFileSync(doc, 'utf8');
  } catch {
    text = `# Fit quality\n\n## Evaluation\n\n${begin}\n${end}\n`;
  }
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${doc}: markers ${begin} … ${end} not found`);
  writeFileSync(doc, `${text.slice(0, i + begin.length)}\n${markdown}\n${text.slice(j)}`);
  console.log(`\nupdated docs/fit-quality.md`);
  const failures = checks.filter((c) => !c.includes('(100.0%)'));
  if (failures.length > 0) {
    console.error('measured inputs did not always give the chart\'s own answer');
    process.exitCode = 1;
  }
}

main();
