/**
 * Proves the experiments' statistics through the HTTP API, with known truth: simulated shoppers exposed through
 * `POST …/assignments`, their purchases and returns for size sent as events naming them, the results read every
 * simulated day (`GET …/experiments/{id}/results`), as a merchant would read them. The service runs in this process
 * on an in-memory embedded database.
 *
 *   npm run eval:experiments -- [--aa 500] [--aa-units 400] [--effects 300] [--days 10] [--srm 20] [--srm-units 10000]
 *                               [--concurrency 8] [--seed 1]
 *
 * - A/A (no true difference), each read every day: how often the always-valid interval ever excludes no difference
 *   (at most 5% is promised), beside the fixed-horizon interval read as often (which is not made for it).
 * - Known effects (conversion 30% → 40%; size returns 20% → 10% of lines, shoppers' lines sharing a habit), each run to
 *   its planned size: coverage of the true lifts by both intervals, power at the planned size, and CUPED's variance
 *   reduction from shoppers' purchases before the start.
 * - A faulty integration (50/50 planned, 52/48 delivered: it loses one in thirteen of arm B's shoppers before asking for
 *   their arm), at `--srm-units` exposed shoppers: how often the sample-ratio check flags it.
 * Writes bench/results/eval-experiments-<date>.json and docs/experiments.md between the eval-experiments markers (the
 * faulty integration's between eval-experiments-srm markers); a phase left out (0) leaves its section as it was.
 */
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { armOf } from '../src/experiments/assignment.js';
import type { Arm } from '../src/experiments/experiment.entity.js';
import { ShopperDigests } from '../src/learning/shopper-digests.js';
import { upperTail } from '../src/sizing/normal.js';
import { projectRoot } from './lib/ansur.js';
import { behave, drawShopper, generator, priorPurchases, type ArmTruth, trueRates } from './lib/experiment-sim.js';
import { readText, replaceSection, writeText } from './lib/outcome-report.js';
import { Api, chunks, mapLimit } from './lib/sim-api.js';
import { type RunningService, startService } from './lib/sim-service.js';

interface Options {
  readonly aa: number;
  readonly aaUnits: number;
  readonly effects: number;
  readonly days: number;
  readonly srm: number;
  readonly srmUnits: number;
  readonly concurrency: number;
  readonly seed: number;
}

function parseOptions(argv: readonly string[]): Options {
  const known = ['--aa', '--aa-units', '--effects', '--days', '--srm', '--srm-units', '--concurrency', '--seed'];
  for (const a of argv) if (a.startsWith('--') && !known.includes(a)) throw new Error(`unknown option ${a}`);
  const whole = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    const value = i < 0 ? fallback : Number(argv[i + 1]);
    if (!(Number.isInteger(value) && value >= 0)) throw new Error(`${name} is a whole number`);
    return value;
  };
  return {
    aa: whole('--aa', 500),
    aaUnits: whole('--aa-units', 400),
    effects: whole('--effects', 300),
    days: Math.max(1, whole('--days', 10)),
    srm: whole('--srm', 20),
    srmUnits: Math.max(2, whole('--srm-units', 10_000)),
    concurrency: Math.max(1, whole('--concurrency', 8)),
    seed: whole('--seed', 1),
  };
}

type Interval = { low: number; high: number };
type Lift = { estimate: number; standard_error: number; always_valid: Interval; fixed_horizon: Interval | null; significant: boolean };
type Comparison = { metric: string; absolute: Lift | null; adjusted_absolute: Lift | null; variance_reduction: number | null };
type Results = {
  units: number;
  planned_size_reached: boolean;
  sample_ratio: { mismatch: boolean; units: number[]; p_value: number };
  comparisons: Comparison[];
};
type Experiment = { id: string; plan: { units_needed: number } };

const Z = 1.959963984540054;
const AA_TRUTH: ArmTruth = { conversion: 0.3, sizeReturn: 0.2 };
const CONTROL: ArmTruth = { conversion: 0.3, sizeReturn: 0.2 };
const TREATED: ArmTruth = { conversion: 0.4, sizeReturn: 0.1 };
const SIZES = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 } } },
];

/**
 * `work` again when the connection broke before an answer (a keep-alive connection the server closed as it was reused):
 * every call here may be repeated, assignments and event deliveries being idempotent.
 */
async function again<T>(work: () => Promise<T>, tries = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** The simulation's client, each call repeated when its connection broke. */
class PatientApi extends Api {
  constructor(
    private readonly base: string,
    secret: string,
  ) {
    super(base, secret);
  }

  override as(secret: string): PatientApi {
    return new PatientApi(this.base, secret);
  }

  override get<T>(path: string): Promise<T> {
    return again(() => super.get<T>(path));
  }

  override post<T>(path: string, body: object): Promise<T> {
    return again(() => super.post<T>(path, body));
  }
}

/** A fresh store with one product of one size: an experiment of its own, its shoppers digested under its own key. */
async function newStore(operator: Api): Promise<{ api: Api; path: string; productId: string; variantId: string }> {
  const merchant = await operator.post<{ api_key: { secret: string } }>('/v1/merchants', { name: 'Simulated merchant' });
  const api = operator.as(merchant.api_key.secret);
  const store = await api.post<{ id: string }>('/v1/stores', { name: 'Simulated store' });
  const path = `/v1/stores/${store.id}`;
  const type = await api.post<{ id: string }>(`${path}/product-types`, { name: 'Tops', category: 'tops', zone_weights: { chest: 1 } });
  const chart = await api.post<{ id: string }>(`${path}/size-charts`, {
    name: 'Chart',
    unit: 'cm',
    measurement_type: 'body',
    sizes: SIZES,
  });
  const product = await api.post<{ id: string }>(`${path}/products`, { title: 'Tee', product_type_id: type.id, size_chart_id: chart.id });
  const variant = await api.post<{ id: string }>(`${path}/products/${product.id}/variants`, { size_label: 'M' });
  return { api, path, productId: product.id, variantId: variant.id };
}

interface Run {
  /** Per daily read: the primary lift (conversion) and the size-return lift, as the results gave them. */
  readonly reads: { units: number; conversion: Comparison | undefined; sizeReturn: Comparison | undefined; reached: boolean }[];
  readonly plannedUnits: number;
  /** The splits the sample-ratio check flagged, read by read. */
  readonly flagged: { units: number[]; p: number }[];
}

/**
 * One experiment, day by day: `units` shoppers in all (or the plan's), a day's share exposed, then what they do sent as
 * events, then the results read. With `prior`, each shopper's purchases before the start are sent first (CUPED).
 */
async function runExperiment(
  operator: Api,
  seed: number,
  truths: { A: ArmTruth; B: ArmTruth },
  options: { units: number | null; days: number; concurrency: number; prior: boolean; minimumEffect: number },
): Promise<Run> {
  const random = generator(seed);
  const store = await newStore(operator);
  const experiment = await store.api.post<Experiment>(`${store.path}/experiments`, {
    name: `Simulated ${seed}`,
    arms: [
      { name: 'A', share: 0.5, treatment: 'size_help' },
      { name: 'B', share: 0.5, treatment: 'size_help' },
    ],
    primary_metric: 'conversion',
    guardrails: ['size_return_rate'],
    minimum_effect: options.minimumEffect,
    baseline_rate: truths.A.conversion,
  });
  const units = options.units ?? experiment.plan.units_needed;
  const shoppers = Array.from({ length: units }, (_, i) => ({ ref: `s${seed}-${i}`, traits: drawShopper(random) }));
  let line = 0;
  const purchase = (ref: string) => ({
    source: 'sim',
    external_id: `p${++line}`,
    type: 'purchase',
    product_id: store.productId,
    variant_id: store.variantId,
    order_id: `o${line}`,
    line_item_id: '1',
    shopper_ref: ref,
    occurred_at: new Date().toISOString(),
  });
  const send = async (events: object[]) => {
    for (const batch of chunks(events, 500)) await store.api.post(`${store.path}/events/batch`, { events: batch });
  };
  if (options.prior) {
    await send(shoppers.flatMap((s) => Array.from({ length: priorPurchases(random, s.traits) }, () => purchase(s.ref))));
  }
  await store.api.post(`${store.path}/experiments/${experiment.id}/start`, {});

  const reads: Run['reads'] = [];
  const flagged: Run['flagged'] = [];
  const perDay = Math.ceil(units / options.days);
  for (let day = 0; day * perDay < units; day++) {
    const today = shoppers.slice(day * perDay, (day + 1) * perDay);
    const arms = await mapLimit(today, options.concurrency, (s) =>
      store.api.post<{ arm: 'A' | 'B' }>(`${store.path}/assignments`, { shopper_ref: s.ref, product_id: store.productId }),
    );
    const events: object[] = [];
    today.forEach((s, i) => {
      for (const returned of behave(random, s.traits, truths[arms[i].arm])) {
        const bought = purchase(s.ref);
        events.push(bought);
        if (returned) {
          events.push({
            source: 'sim',
            external_id: `r${line}`,
            type: 'return_requested',
            reason: 'size',
            product_id: store.productId,
            variant_id: store.variantId,
            order_id: bought.order_id,
            line_item_id: '1',
            occurred_at: new Date().toISOString(),
          });
        }
      }
    });
    await send(events);
    const results = await store.api.get<Results>(`${store.path}/experiments/${experiment.id}/results`);
    if (results.sample_ratio.mismatch) flagged.push({ units: results.sample_ratio.units, p: results.sample_ratio.p_value });
    const find = (metric: string) => results.comparisons.find((c) => c.metric === metric);
    reads.push({
      units: results.units,
      conversion: find('conversion'),
      sizeReturn: find('size_return_rate'),
      reached: results.planned_size_reached,
    });
  }
  return { reads, plannedUnits: experiment.plan.units_needed, flagged };
}

/** The share of arm B's shoppers the faulty integration loses before asking: 50/50 planned, 52/48 delivered. */
const LOST_FROM_B = 2 - 1 / 0.52;

/**
 * A faulty integration: its page for arm B fails, before asking for the arm, for one in thirteen of that arm's
 * shoppers, who are then never exposed; shoppers arrive until `units` are. No API call can lose a shopper that way
 * (the call that tells the arm records the exposure), so the simulation plays the fault itself: it knows each
 * shopper's arm from the service's own hash, under the experiment's salt and the store's digest of her id, read from
 * the service. Every exposure then goes through `POST …/assignments`, whose arm must be the one foreseen.
 */
async function runFaulty(
  service: RunningService,
  operator: Api,
  seed: number,
  options: { units: number; concurrency: number },
): Promise<{ units: number[]; p: number; mismatch: boolean }> {
  const random = generator(seed);
  const store = await newStore(operator);
  const storeId = store.path.split('/').pop() as string;
  const experiment = await store.api.post<Experiment>(`${store.path}/experiments`, {
    name: `Faulty ${seed}`,
    arms: [
      { name: 'A', share: 0.5, treatment: 'size_help' },
      { name: 'B', share: 0.5, treatment: 'no_size_help' },
    ],
    primary_metric: 'conversion',
    minimum_effect: 0.02,
  });
  await store.api.post(`${store.path}/experiments/${experiment.id}/start`, {});
  const database = service.app.get(DataSource);
  const [{ salt, arms }]: { salt: Buffer; arms: Arm[] }[] = await database.query('SELECT salt, arms FROM experiments WHERE id = $1', [
    experiment.id,
  ]);
  const digests = service.app.get(ShopperDigests);
  let exposed = 0;
  for (let batch = 0; exposed < options.units; batch++) {
    const refs = Array.from({ length: 1000 }, (_, i) => `f${seed}-${batch * 1000 + i}`);
    const units = await database.transaction((manager) => digests.of(manager, storeId, refs));
    const shown = refs
      .map((ref, i) => ({ ref, arm: armOf(arms, salt, units[i]).name }))
      .filter((s) => !(s.arm === 'B' && random() < LOST_FROM_B))
      .slice(0, options.units - exposed);
    const answers = await mapLimit(shown, options.concurrency, (s) =>
      store.api.post<{ arm: string }>(`${store.path}/assignments`, { shopper_ref: s.ref, product_id: store.productId }),
    );
    answers.forEach((answer, i) => {
      if (answer.arm !== shown[i].arm) throw new Error(`the service gave ${shown[i].ref} arm ${answer.arm}, not ${shown[i].arm}`);
    });
    exposed += shown.length;
  }
  const results = await store.api.get<Results>(`${store.path}/experiments/${experiment.id}/results`);
  return { units: results.sample_ratio.units, p: results.sample_ratio.p_value, mismatch: results.sample_ratio.mismatch };
}

/** The chance the χ² test (1 degree of freedom, p < 0.001) flags a 52/48 split of `n` units planned 50/50. */
function srmPower(n: number): number {
  const shift = 2 * (0.52 - 0.5) * Math.sqrt(n); // the split's z-score: (p − ½) / √(¼ / n)
  const critical = 3.2905267314919255; // two-sided 0.001
  return upperTail(critical - shift) + upperTail(critical + shift);
}

const excludesZero = (i: Interval) => i.low > 0 || i.high < 0;
const fixedOf = (lift: Lift): Interval => ({ low: lift.estimate - Z * lift.standard_error, high: lift.estimate + Z * lift.standard_error });
const covers = (i: Interval, truth: number) => i.low <= truth && truth <= i.high;
const share = (hits: number, of: number) => (of ? hits / of : Number.NaN);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
/** A proportion's 95% Wilson interval, for the Monte Carlo error of each figure. */
function wilson(hits: number, n: number): Interval {
  if (!n) return { low: Number.NaN, high: Number.NaN };
  const p = hits / n;
  const centre = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const half = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / (1 + (Z * Z) / n);
  return { low: centre - half, high: centre + half };
}
const withError = (hits: number, n: number) => {
  const w = wilson(hits, n);
  return `${pct(share(hits, n))} [${pct(w.low)}, ${pct(w.high)}]`;
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const service = await startService();
  const operator = new PatientApi(service.baseUrl, service.operatorKey);
  const tally = {
    aa: {
      runs: 0,
      alwaysValidEver: 0,
      fixedEver: 0,
      alwaysValidEverReturns: 0,
      fixedEverReturns: 0,
      srm: 0,
      flagged: [] as Run['flagged'][],
    },
    effects: {
      runs: 0,
      reached: 0,
      conversionAlwaysValid: 0,
      conversionFixed: 0,
      returnsAlwaysValid: 0,
      returnsFixed: 0,
      cupedCovers: 0,
      powerFixed: 0,
      powerAlwaysValid: 0,
      returnsPowerFixed: 0,
      varianceReduction: [] as number[],
      plannedUnits: 0,
      srm: 0,
    },
    faulty: { runs: 0, flagged: 0, shareA: [] as number[], p: [] as number[] },
  };
  const truthControl = trueRates(CONTROL);
  const truthTreated = trueRates(TREATED);
  const truthAa = trueRates(AA_TRUTH);
  const trueLift = {
    conversion: truthTreated.conversion - truthControl.conversion,
    sizeReturn: truthTreated.sizeReturn - truthControl.sizeReturn,
  };
  try {
    // A/A: both arms behave alike; every daily read counts, as a merchant who looks every day would act on any
    const aaSeeds = Array.from({ length: options.aa }, (_, i) => options.seed * 1_000_000 + i);
    await mapLimit(aaSeeds, 2, async (seed) => {
      const run = await runExperiment(
        operator,
        seed,
        { A: AA_TRUTH, B: AA_TRUTH },
        {
          units: options.aaUnits,
          days: options.days,
          concurrency: options.concurrency,
          prior: false,
          minimumEffect: 0.1,
        },
      );
      const t = tally.aa;
      t.runs++;
      const ever = (pick: (r: Run['reads'][number]) => Comparison | undefined, interval: (l: Lift) => Interval) =>
        run.reads.some((r) => {
          const lift = pick(r)?.absolute;
          return lift ? excludesZero(interval(lift)) : false;
        });
      if (
        ever(
          (r) => r.conversion,
          (l) => l.always_valid,
        )
      )
        t.alwaysValidEver++;
      if (ever((r) => r.conversion, fixedOf)) t.fixedEver++;
      if (
        ever(
          (r) => r.sizeReturn,
          (l) => l.always_valid,
        )
      )
        t.alwaysValidEverReturns++;
      if (ever((r) => r.sizeReturn, fixedOf)) t.fixedEverReturns++;
      if (run.flagged.length) {
        t.srm++;
        t.flagged.push(run.flagged);
      }
      if (t.runs % 20 === 0) console.log(`A/A: ${t.runs}/${options.aa} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    });

    // known effects, each to its planned size, with shoppers' purchases before the start
    const effectSeeds = Array.from({ length: options.effects }, (_, i) => options.seed * 1_000_000 + 500_000 + i);
    await mapLimit(effectSeeds, 2, async (seed) => {
      const run = await runExperiment(
        operator,
        seed,
        { A: CONTROL, B: TREATED },
        {
          units: null,
          days: options.days,
          concurrency: options.concurrency,
          prior: true,
          minimumEffect: 0.1,
        },
      );
      const t = tally.effects;
      t.runs++;
      t.plannedUnits = run.plannedUnits;
      const last = run.reads[run.reads.length - 1];
      if (last.reached) t.reached++;
      if (run.flagged.length) t.srm++;
      const conversion = last.conversion?.absolute;
      const returns = last.sizeReturn?.absolute;
      if (conversion) {
        if (covers(conversion.always_valid, trueLift.conversion)) t.conversionAlwaysValid++;
        if (covers(fixedOf(conversion), trueLift.conversion)) t.conversionFixed++;
        if (excludesZero(fixedOf(conversion))) t.powerFixed++;
        if (conversion.significant) t.powerAlwaysValid++;
      }
      const adjusted = last.conversion?.adjusted_absolute;
      if (adjusted && covers(fixedOf(adjusted), trueLift.conversion)) t.cupedCovers++;
      if (last.conversion?.variance_reduction != null) t.varianceReduction.push(last.conversion.variance_reduction);
      if (returns) {
        if (covers(returns.always_valid, trueLift.sizeReturn)) t.returnsAlwaysValid++;
        if (covers(fixedOf(returns), trueLift.sizeReturn)) t.returnsFixed++;
        if (excludesZero(fixedOf(returns))) t.returnsPowerFixed++;
      }
      if (t.runs % 10 === 0) console.log(`effects: ${t.runs}/${options.effects} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    });

    // a faulty integration delivering 52/48 of a 50/50 plan, at `srmUnits` exposed shoppers
    const faultySeeds = Array.from({ length: options.srm }, (_, i) => options.seed * 1_000_000 + 900_000 + i);
    await mapLimit(faultySeeds, 2, async (seed) => {
      const run = await runFaulty(service, operator, seed, { units: options.srmUnits, concurrency: options.concurrency });
      const t = tally.faulty;
      t.runs++;
      if (run.mismatch) t.flagged++;
      t.shareA.push(run.units[0] / (run.units[0] + run.units[1]));
      t.p.push(run.p);
      if (t.runs % 5 === 0) console.log(`faulty: ${t.runs}/${options.srm} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    });
  } finally {
    await service.close();
  }

  const seconds = (Date.now() - started) / 1000;
  const a = tally.aa;
  const e = tally.effects;
  const meanReduction = e.varianceReduction.reduce((s, x) => s + x, 0) / Math.max(1, e.varianceReduction.length);
  const figures = { options, seconds, truth: { aa: truthAa, control: truthControl, treated: truthTreated, lift: trueLift }, tally };
  const date = new Date().toISOString().slice(0, 10);
  const root = projectRoot();
  const statistics = options.aa + options.effects > 0;
  const name = statistics ? `eval-experiments-${date}.json` : `eval-experiments-faulty-${date}.json`;
  writeText(join(root, 'bench', 'results', name), `${JSON.stringify(figures, null, 2)}\n`);
  const docs = join(root, 'docs', 'experiments.md');

  if (options.srm > 0) {
    const f = tally.faulty;
    const shares = [...f.shareA].sort((x, y) => x - y);
    const faulty = [
      `Run on ${date}: \`npm run eval:experiments -- --aa 0 --effects 0 --srm ${options.srm} --srm-units ${options.srmUnits} ` +
        `--seed ${options.seed}\`: ${f.runs} experiments planned 50/50, each with ${options.srmUnits.toLocaleString('en-GB')} ` +
        `shoppers exposed through the API by an integration that loses one in thirteen of arm B's shoppers before asking ` +
        `(52/48 delivered; arm A's share ${pct(shares[0])}–${pct(shares[shares.length - 1])}). The sample-ratio check ` +
        `flagged ${withError(f.flagged, f.runs)} of them and withheld their verdict; a χ² test at p < 0.001 is expected ` +
        `to flag ${pct(srmPower(options.srmUnits))} of 52/48 splits of that size (chance decides whether a given one ` +
        `lands past the threshold), and ${pct(srmPower(2 * options.srmUnits))} at twice the units.`,
    ].join('\n');
    writeText(
      docs,
      replaceSection(
        readText(docs),
        { begin: '<!-- eval-experiments-srm:begin -->', end: '<!-- eval-experiments-srm:end -->' },
        faulty,
        '',
        '',
      ),
    );
    console.log(faulty);
  }
  if (!statistics) return;

  const section = [
    `Run on ${date}: \`npm run eval:experiments -- --aa ${options.aa} --aa-units ${options.aaUnits} --effects ${options.effects} ` +
      `--days ${options.days} --seed ${options.seed}\` (${Math.round(seconds / 60)} min). Every figure is the service's own ` +
      'answer over HTTP; brackets are the 95% Monte Carlo interval of the figure.',
    '',
    `**A/A**: ${a.runs} experiments of ${options.aaUnits} shoppers, both arms alike (conversion ${pct(truthAa.conversion)}, ` +
      `size returns ${pct(truthAa.sizeReturn)} of lines), results read on each of ${options.days} days.`,
    '',
    '| An interval excluding no difference at any daily read | conversion | size returns |',
    '|---|---|---|',
    `| always-valid (what verdicts use; at most 5% promised) | ${withError(a.alwaysValidEver, a.runs)} | ${withError(a.alwaysValidEverReturns, a.runs)} |`,
    `| fixed-horizon, read as often | ${withError(a.fixedEver, a.runs)} | ${withError(a.fixedEverReturns, a.runs)} |`,
    '',
    `Sample-ratio alarms at any daily read: ${a.runs ? withError(a.srm, a.runs) : 'n/a'} of A/A experiments (0.1% a read ` +
      `is the check's threshold: up to ${(0.1 * options.days).toFixed(1)}% over ${options.days} reads).`,
    '',
    `**Known effects**: ${e.runs} experiments run to their planned size (${e.plannedUnits} shoppers; conversion ` +
      `${pct(truthControl.conversion)} → ${pct(truthTreated.conversion)}, planned for a 10-point difference; size returns ` +
      `${pct(truthControl.sizeReturn)} → ${pct(truthTreated.sizeReturn)} of lines, each shopper's lines sharing her return ` +
      'habit), shoppers with purchases before the start that track how keen they are.',
    '',
    '| At the planned size | figure |',
    '|---|---|',
    `| conversion lift covered, always-valid interval | ${withError(e.conversionAlwaysValid, e.runs)} |`,
    `| conversion lift covered, fixed-horizon interval | ${withError(e.conversionFixed, e.runs)} |`,
    `| size-return lift covered (clustered by shopper), always-valid | ${withError(e.returnsAlwaysValid, e.runs)} |`,
    `| size-return lift covered, fixed-horizon | ${withError(e.returnsFixed, e.runs)} |`,
    `| power, fixed-horizon test at the planned size (80% planned) | ${withError(e.powerFixed, e.runs)} |`,
    `| power, always-valid interval at the planned size | ${withError(e.powerAlwaysValid, e.runs)} |`,
    `| CUPED: mean variance removed from the conversion lift | ${pct(meanReduction)} |`,
    `| CUPED: conversion lift covered, fixed-horizon | ${withError(e.cupedCovers, e.runs)} |`,
    `| sample-ratio alarms | ${withError(e.srm, e.runs)} |`,
  ].join('\n');
  const text = readText(docs);
  writeText(
    docs,
    replaceSection(text, { begin: '<!-- eval-experiments:begin -->', end: '<!-- eval-experiments:end -->' }, section, '', ''),
  );
  console.log(section);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
