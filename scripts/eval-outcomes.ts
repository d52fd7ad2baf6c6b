/**
 * Scores the answer a shopper actually gets: RentTheRunway's rentals replayed through the service's HTTP API, started in
 * this process on an in-memory embedded database, as a store would live them.
 *
 *   npm run eval:outcomes -- [--history import|events] [--from 2017-01-01] [--limit N] [--concurrency 5] [--bra-method]
 *                            [--no-analyze]
 *
 * The rentals reviewed before `--from` are the history, sent to the store first (order-history import, or purchase and
 * outcome events); every later rental, day by day, becomes a fit session named for its customer, her answers, the
 * decision for the size she rented, then its purchase (naming the session) and its outcome. Each answered rental is
 * scored on the answer's size probabilities against her verdict, beside baselines counted online over the same stream.
 * Writes bench/results/eval-outcomes-<date>.json and docs/fit-quality.md between the eval-outcomes markers.
 * RTR_DIR points to the data set (default ../shared/data/renttherunway).
 */
import { join } from 'node:path';
import { projectRoot } from './lib/ansur.js';
import { loadRtr, type Rental } from './lib/rtr.js';
import { usualSizes } from './lib/rtr-evaluate.js';
import { mapLimit } from './lib/sim-api.js';
import { closeConnections, OutcomeApi } from './lib/outcome-api.js';
import { chooseStrengths, STRENGTHS, type Strengths, VerdictCounts } from './lib/outcome-baselines.js';
import { byDay, chestChart, commonSizes, DAY_MS, dateShift, nearestSize, rentalAnswers, splitAt } from './lib/outcome-data.js';
import {
  emptyImportTally,
  IMPORT_LINES,
  importLines,
  importPath,
  type ImportTally,
  type LineOf,
  sendLineEvents,
  type Tally,
} from './lib/outcome-events.js';
import { liveRental } from './lib/outcome-live.js';
import {
  figuresOf,
  groupsOf,
  groupTable,
  HISTORY_BUCKETS,
  historyBucket,
  mainTable,
  type Model,
  readText,
  replaceSection,
  type ScoredRental,
  writeText,
} from './lib/outcome-report.js';
import { quantile, verdictsAt } from './lib/outcome-score.js';
import { startService } from './lib/sim-service.js';
import { createOutcomeStore } from './lib/outcome-store.js';

interface Options {
  readonly history: 'import' | 'events';
  readonly from: string;
  readonly limit: number | null;
  readonly concurrency: number;
  readonly braMethod: boolean;
  /** Run ANALYZE on the embedded database after the catalog, after the history and every ANALYZE_EVERY live days. */
  readonly analyze: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
    return v;
  };
  const known = new Set(['--history', '--from', '--limit', '--concurrency', '--bra-method', '--no-analyze']);
  for (const a of argv) if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a}`);
  const history = value('--history') ?? 'import';
  if (history !== 'import' && history !== 'events') throw new Error('--history is import or events');
  const from = value('--from') ?? '2017-01-01';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || Number.isNaN(Date.parse(from))) throw new Error('--from is a date, YYYY-MM-DD');
  const limit = value('--limit');
  const concurrency = Number(value('--concurrency') ?? 5);
  if (limit !== undefined && !(Number.isInteger(Number(limit)) && Number(limit) > 0)) throw new Error('--limit is a whole number');
  if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new Error('--concurrency is a whole number');
  return {
    history,
    from,
    limit: limit === undefined ? null : Number(limit),
    concurrency,
    braMethod: argv.includes('--bra-method'),
    analyze: !argv.includes('--no-analyze'),
  };
}

const MARKERS = { begin: '<!-- eval-outcomes:start -->', end: '<!-- eval-outcomes:end -->' };
const SECTION = `## The answer shoppers get, measured over the API

\`npm run eval:outcomes\` (\`scripts/eval-outcomes.ts\`) starts the service in-process on an embedded database and replays
RentTheRunway's training file through its HTTP API as one store: the rentals before the held-out period are sent as
order history, then each held-out rental, day by day, becomes a fit session named for its customer (her height, weight
and age, her chest read from her bra size, the size she usually rents), the decision for the size she rented, and its
purchase and outcome (kept, or returned as too small or too large). Each rental is scored on the answer the service gave
before any outcome of its day arrived: the answer's size probabilities give P(too small), P(fit) and P(too large) for the
size she rented. The baselines are counted online over the same stream, from earlier days only.

{generated}`;

/** Requests in flight while the catalog is created. */
const SETUP_CONCURRENCY = 8;
/** Live days between two ANALYZE runs (sim-service.ts). */
const ANALYZE_EVERY = 15;

async function main(): Promise<void> {
  const started = Date.now();
  const options = parseOptions(process.argv.slice(2));
  const data = loadRtr();
  const from = Date.parse(`${options.from}T00:00:00Z`);
  const { history, heldOut } = splitAt(data.rentals, from);
  if (history.length === 0 || heldOut.length === 0) throw new Error(`--from ${options.from} leaves no history or nothing held out`);
  const scored = options.limit === null ? heldOut : heldOut.slice(0, options.limit);
  // every date moves by whole days so that the last held-out day is today (the service refuses future dates)
  const shift = dateShift(heldOut.at(-1)!.at, Date.now());

  const sizes = commonSizes(history);
  const chart = chestChart(history, sizes);
  const labels = sizes.map(String);
  const labelOf = (size: number) => labels[nearestSize(sizes, size)];
  const usual = usualSizes(data.rentals);
  const items = new Map<string, string>();
  for (const r of [...history, ...scored]) if (!items.has(r.itemId)) items.set(r.itemId, r.category);
  const historyDays = byDay(history);
  const strengths = chooseStrengths(historyDays);
  console.log(
    `${data.rentals.length} rentals: history ${history.length}, held out ${heldOut.length} (scoring ${scored.length}); ` +
      `${items.size} items; chart ${chart.map((s) => `${s.size}: ${s.min}–${s.max}`).join(', ')}; ` +
      `baselines: alpha ${strengths.chosen.alpha}, beta ${strengths.chosen.beta}`,
  );

  const service = await startService();
  const analyses: number[] = [];
  const analyse = async () => {
    if (options.analyze) analyses.push(await service.analyse());
  };
  const operator = new OutcomeApi(service.baseUrl, service.operatorKey);
  const latency = { session: [] as number[], answers: [] as number[], decision: [] as number[], eventBatch: [] as number[] };
  const historyEvents: Tally = {};
  const liveEvents: Tally = {};
  const imported: ImportTally = emptyImportTally();
  const refusals: Record<string, number> = {};
  const rows: ScoredRental[] = [];
  const seconds: Record<string, number> = {};
  try {
    const store = await createOutcomeStore(operator, chart, items, SETUP_CONCURRENCY, (n) =>
      console.log(`catalog: ${n}/${items.size} products`),
    );
    await analyse();
    seconds.setup = (Date.now() - started) / 1000;
    console.log(`catalog ready in ${seconds.setup.toFixed(0)} s`);
    const lineOf = (r: Rental, key: string, purchasedAt: Date, outcomeAt: Date, sessionId?: string): LineOf => {
      const product = store.products.get(r.itemId)!;
      return {
        key,
        productId: product.id,
        variantId: product.variants[nearestSize(sizes, r.size)],
        shopperRef: r.userId,
        verdict: r.verdict,
        purchasedAt,
        outcomeAt,
        sessionId,
      };
    };

    // the history: bought on its (moved) review day, the outcome the same day at noon
    const historyStarted = Date.now();
    const historyLines = history.map((r, i) => lineOf(r, `h${i}`, new Date(r.at + shift), new Date(r.at + shift + DAY_MS / 2)));
    if (options.history === 'import') {
      const probe = await store.admin.call('POST', importPath(store.id), { lines: [] });
      if (probe.status === 404) {
        throw new Error(
          `POST ${importPath(store.id)} answers 404: the order-history import does not exist here yet; run with --history events`,
        );
      }
      await importLines(store.admin, store.id, historyLines, imported);
    } else {
      latency.eventBatch.push(...(await sendLineEvents(store.admin, store.id, historyLines, options.concurrency, historyEvents)));
    }
    await analyse();
    seconds.history = (Date.now() - historyStarted) / 1000;
    console.log(
      `history sent in ${seconds.history.toFixed(0)} s: ${JSON.stringify(options.history === 'import' ? { ...imported, ms: undefined } : historyEvents)}`,
    );

    const counts = new VerdictCounts();
    for (const day of historyDays) counts.add(day);
    const liveStarted = Date.now();
    const days = byDay(scored);
    let index = 0;
    for (const [d, day] of days.entries()) {
      const before = day.map((r) => ({
        itemEarlier: counts.itemCount(r.itemId),
        returning: counts.customerCount(r.userId) > 0,
        baselines: baselinesOf(counts, r, strengths.chosen),
      }));
      const first = index;
      index += day.length;
      const flowsStarted = Date.now();
      const lived = await mapLimit(day, options.concurrency, async (r) => {
        const usualSize = usual.get(r) ?? null;
        const answers = rentalAnswers(r, usualSize === null ? null : labelOf(usualSize), { braMethod: options.braMethod });
        const result = await liveRental(store.admin, store.id, labels, {
          productId: store.products.get(r.itemId)!.id,
          shopperRef: r.userId,
          answers: answers.answers,
          rentedLabel: labelOf(r.size),
        });
        return { result, given: answers.given };
      });
      // a session is dated when it is created, and a purchase may not be dated before its session: the day's
      // purchases and outcomes are dated now, when they are sent
      seconds.flows = (seconds.flows ?? 0) + (Date.now() - flowsStarted) / 1000;
      const sentAt = new Date();
      const lines = day.map((r, k) =>
        lineOf(r, `l${first + k}`, sentAt, new Date(sentAt.getTime() + 1), lived[k].result.answer ? lived[k].result.sessionId : undefined),
      );
      latency.eventBatch.push(...(await sendLineEvents(store.admin, store.id, lines, options.concurrency, liveEvents)));
      seconds.events = (seconds.events ?? 0) + (Date.now() - sentAt.getTime()) / 1000;
      counts.add(day);
      if ((d + 1) % ANALYZE_EVERY === 0) await analyse();

      day.forEach((r, k) => {
        const { result, given } = lived[k];
        latency.session.push(result.ms.session);
        latency.answers.push(result.ms.answers);
        if (result.ms.decision !== null) latency.decision.push(result.ms.decision);
        if (!result.answer) {
          refusals[result.refused ?? 'unstated'] = (refusals[result.refused ?? 'unstated'] ?? 0) + 1;
          return;
        }
        const rented = nearestSize(sizes, r.size);
        rows.push({
          verdict: r.verdict,
          itemEarlier: before[k].itemEarlier,
          returning: before[k].returning,
          month: new Date(r.at).toISOString().slice(0, 7),
          given,
          predictions: {
            // the odds the answer gave for the size she rented; a third each while it gave none
            outcomes: result.answer.outcomes?.[rented] ?? [1 / 3, 1 / 3, 1 / 3],
            service: verdictsAt(result.answer.distribution, rented),
            ...before[k].baselines,
          },
          facts: { confidence: result.answer.confidence, rentedRecommended: result.answer.recommended === rented },
          offset: result.answer.offsetSteps,
        });
      });
      if ((d + 1) % 10 === 0 || d === days.length - 1) {
        const so = figuresOf(rows);
        console.log(
          `day ${d + 1}/${days.length} (${new Date(day[0].at).toISOString().slice(0, 10)}): ${index} rentals in ` +
            `${((Date.now() - liveStarted) / 1000).toFixed(0)} s (sessions ${seconds.flows.toFixed(0)} s, events ${seconds.events.toFixed(0)} s); answered ${rows.length}; mean AUC odds ${so.models.outcomes.auc.toFixed(3)}, distribution ${so.models.service.auc.toFixed(3)}, ` +
            `item & customer ${so.models['item & customer'].auc.toFixed(3)}`,
        );
      }
    }
    seconds.live = (Date.now() - liveStarted) / 1000;
  } finally {
    await service.close();
    closeConnections();
  }
  seconds.total = (Date.now() - started) / 1000;
  report({
    options,
    data,
    history: history.length,
    heldOut: heldOut.length,
    scored,
    shiftDays: shift / DAY_MS,
    chart,
    strengths,
    historyEvents,
    imported,
    liveEvents,
    refusals,
    rows,
    latency,
    seconds,
    analyses,
  });
}

function baselinesOf(
  counts: VerdictCounts,
  r: Rental,
  s: Strengths,
): Record<Exclude<Model, 'service' | 'outcomes'>, readonly [number, number, number]> {
  return {
    'item & customer': counts.itemAndCustomer(r.itemId, r.userId, s),
    'item rates': counts.itemRates(r.itemId, s.alpha),
    'global shares': counts.globalShares(),
  };
}

interface Run {
  readonly options: Options;
  readonly data: ReturnType<typeof loadRtr>;
  readonly history: number;
  readonly heldOut: number;
  readonly scored: readonly Rental[];
  readonly shiftDays: number;
  readonly chart: ReturnType<typeof chestChart>;
  readonly strengths: ReturnType<typeof chooseStrengths>;
  readonly historyEvents: Tally;
  readonly imported: ImportTally;
  readonly liveEvents: Tally;
  readonly refusals: Record<string, number>;
  readonly rows: readonly ScoredRental[];
  readonly latency: Record<'session' | 'answers' | 'decision' | 'eventBatch', number[]>;
  readonly seconds: Record<string, number>;
  /** Milliseconds of each ANALYZE. */
  readonly analyses: readonly number[];
}

function report(run: Run): void {
  const today = new Date().toISOString().slice(0, 10);
  const { rows, options, strengths } = run;
  const all = figuresOf(rows);
  const byHistory = groupsOf(
    rows,
    (r) => historyBucket(r.itemEarlier),
    HISTORY_BUCKETS.map((b) => b.name),
  );
  const byCustomer = groupsOf(rows, (r) => (r.returning ? 'returning' : 'new'), ['new', 'returning']);
  const byChest = groupsOf(rows, (r) => (r.given.chest ? 'with chest' : 'without chest'), ['with chest', 'without chest']);
  const byUsual = groupsOf(rows, (r) => (r.given.usualSize ? 'with usual size' : 'without usual size'), [
    'with usual size',
    'without usual size',
  ]);
  const byBody = groupsOf(rows, (r) => (r.given.heightWeight ? 'height and weight' : 'not both'), ['height and weight', 'not both']);
  const months = [...new Set(rows.map((r) => r.month))].sort();
  const byMonth = groupsOf(rows, (r) => r.month, months);
  const lat = (xs: readonly number[]) => ({ n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) });
  const latency = {
    session: lat(run.latency.session),
    answers: lat(run.latency.answers),
    decision: lat(run.latency.decision),
    eventBatch: lat(run.latency.eventBatch),
  };
  const unanswered = Object.values(run.refusals).reduce((a, b) => a + b, 0);
  const firstDay = run.scored[0] ? new Date(run.scored[0].at).toISOString().slice(0, 10) : '–';
  const lastDay = run.scored.at(-1) ? new Date(run.scored.at(-1)!.at).toISOString().slice(0, 10) : '–';
  const names: Record<Model, string> = {
    outcomes: 'the service’s answer: its odds for the size she took',
    service: 'the service’s answer: its distribution over her best size',
    'item & customer': `item and customer rates (α ${strengths.chosen.alpha}, β ${strengths.chosen.beta})`,
    'item rates': `item rates (α ${strengths.chosen.alpha})`,
    'global shares': 'global shares',
  };
  const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
  const deliveredHistory =
    options.history === 'import'
      ? `imported through \`POST …/order-history\` (${run.imported.requests} requests of up to ${run.imported.linesPerRequest} lines: ` +
        `${run.imported.received} received, ${run.imported.learned} learned, ${run.imported.replaced} replaced, ${run.imported.unchanged} unchanged, ` +
        `${describeIgnored(run.imported.ignored)})`
      : `sent as purchase and outcome events (${describeTally(run.historyEvents)})`;
  const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : '–');
  const text = [
    `Generated by \`npm run eval:outcomes -- --history ${options.history}${options.limit ? ` --limit ${options.limit}` : ''}` +
      `${options.from !== '2017-01-01' ? ` --from ${options.from}` : ''}${options.braMethod ? ' --bra-method' : ''}\` on ${today} in ` +
      `${minutes(run.seconds.total)} (catalog ${minutes(run.seconds.setup)}, history ${minutes(run.seconds.history)}, held-out days ` +
      `${minutes(run.seconds.live)}; concurrency ${options.concurrency}). ${run.data.rentals.length} rentals of ${run.data.file.name} ` +
      `(sha256 ${run.data.file.sha256.slice(0, 12)}…): history ${run.history} (reviewed before ${options.from}), ` +
      `${deliveredHistory}; held out ${run.heldOut}, of which the ${run.scored.length} from ${firstDay} to ${lastDay} were lived ` +
      `through the API (${run.scored.length - unanswered} answered, ${unanswered} refused), dates moved ${run.shiftDays} days so that the last held-out day is ` +
      `the run's. Held-out purchases and outcomes went as events (${describeTally(run.liveEvents)}).`,
    '',
    `One body chart of the shop's ${run.chart.length} most common sizes by chest (cm; a size outside them is read as the nearest): ` +
      run.chart.map((s) => `${s.size} ${s.min}–${s.max}`).join(', ') +
      '. Each range is centred on the interpolated median bust (band + cup inches, × 2.54) of the history’s rentals that ' +
      'fitted, made increasing; boundaries halfway between centres.',
    '',
    '#### All answered held-out rentals',
    '',
    ...mainTable(all, names),
    '',
    `The answer's odds for the size she took: the \`outcomes\` it published for that size (what the size is likely to turn ` +
      `out as, should she take it), before she took it. Its distribution over her best size: ` +
      `P(small) is the answer's probability of the sizes above the one rented, P(fit) of that size, P(large) of the sizes below ` +
      `(sizes the answer does not list share what is left, at least 0.001 each). ECE: of the most probable verdict; of P(fit) ` +
      `against "fitted". The learned offset alone ranks rentals by the offset the answer used (positive: runs small), as a ` +
      `score with no probabilities. The answer's own figures: she rented the size recommended in ${(100 * all.answer.rentedRecommended).toFixed(1)}% ` +
      `of rentals, and it fitted in ${(100 * all.answer.recommendedAndFit).toFixed(1)}%; mean confidence ${all.answer.meanConfidence.toFixed(3)}, ` +
      `ECE of confidence (against "rented it and it fitted") ${all.answer.eceConfidence.toFixed(3)}. Item rates: the item's earlier ` +
      `verdicts with α rentals at the global shares; item and customer: those rates times her own (her earlier verdicts with β ` +
      `rentals at the global shares) over the global shares, renormalised; α and β chosen by log loss replaying the history alone ` +
      `(tried ${STRENGTHS.join(', ')}).`,
    '',
    '#### By the item’s earlier rentals (history and earlier held-out days)',
    '',
    'Each cell: the answer’s odds / its size distribution / item and customer / item rates / global shares. The last two columns are the answer’s.',
    '',
    ...groupTable(byHistory),
    '',
    '#### By customer and by answers given',
    '',
    'Each cell: the answer’s odds / its size distribution / item and customer / item rates / global shares. Returning: she rented on an earlier day ' +
      '(history included); her usual size is the median of those rentals, so the rentals with a usual size are the returning ones.',
    '',
    ...groupTable([...byCustomer, ...byChest, ...byUsual, ...byBody]),
    '',
    '#### By month of the held-out period',
    '',
    'Each cell: the answer’s odds / its size distribution / item and customer / item rates / global shares. What the service learns from the held-out ' +
      'days’ outcomes shows here first.',
    '',
    ...groupTable(byMonth),
    '',
    '#### Rentals without an answer, and speed',
    '',
    unanswered === 0
      ? 'Every held-out rental got an answer.'
      : `Refused answers, by the service's reason: ${Object.entries(run.refusals)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} (${v})`)
          .join('; ')}. Their purchases and outcomes were still sent, without a session.`,
    '',
    '| step | calls | p50 | p99 |',
    '|---|---|---|---|',
    `| \`POST …/sessions\` | ${latency.session.n} | ${ms(latency.session.p50)} | ${ms(latency.session.p99)} |`,
    `| \`POST …/sessions/{id}/answers\` | ${latency.answers.n} | ${ms(latency.answers.p50)} | ${ms(latency.answers.p99)} |`,
    `| \`POST …/sessions/{id}/decision\` | ${latency.decision.n} | ${ms(latency.decision.p50)} | ${ms(latency.decision.p99)} |`,
    `| \`POST …/events/batch\` (up to 500 events) | ${latency.eventBatch.n} | ${ms(latency.eventBatch.p50)} | ${ms(latency.eventBatch.p99)} |`,
    '',
    `Latency with ${options.concurrency} rentals in flight, the service in the same process as the client. A session is dated ` +
      'when it is created and a purchase may not be dated before its session, so held-out purchases and outcomes carry the ' +
      'time they were sent, not their moved review day; the history keeps its moved dates. ' +
      (run.analyses.length
        ? `The embedded database keeps no statistics of its own (PostgreSQL's autovacuum does): the run ran ANALYZE ` +
          `${run.analyses.length} times (after the catalog, after the history, every ${ANALYZE_EVERY} held-out days; ` +
          `${(run.analyses.reduce((a, b) => a + b, 0) / 1000).toFixed(0)} s in all), without which the statement reading ` +
          `each outcome's sizes keeps the plan it got on an empty store and a day's outcomes take minutes.`
        : 'The run did not analyse the embedded database (`--no-analyze`).'),
  ].join('\n');
  console.log(`\n${text}`);

  const root = projectRoot();
  const doc = join(root, 'docs', 'fit-quality.md');
  writeText(doc, replaceSection(readText(doc), MARKERS, text, SECTION, '## The body model'));
  const file = join(root, 'bench', 'results', `eval-outcomes-${today}.json`);
  const json = {
    date: new Date().toISOString(),
    seconds: run.seconds,
    options,
    data: run.data.file,
    split: { from: options.from, history: run.history, heldOut: run.heldOut, scored: run.scored.length, shiftDays: run.shiftDays },
    chart: run.chart,
    strengths,
    history: options.history === 'import' ? { import: run.imported } : { events: run.historyEvents },
    live: { events: run.liveEvents, answered: rows.length, refused: run.refusals },
    figures: { all, byHistory, byCustomer, byChest, byUsual, byBody, byMonth },
    latency,
    analyses: run.analyses,
    importLinesPerRequest: IMPORT_LINES,
  };
  writeText(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nupdated docs/fit-quality.md and ${file}`);
}

function describeIgnored(ignored: Readonly<Record<string, number>>): string {
  const entries = Object.entries(ignored).sort((a, b) => b[1] - a[1]);
  return entries.length ? `ignored: ${entries.map(([reason, n]) => `${reason} (${n})`).join('; ')}` : 'none ignored';
}

/** `201: 12, 400 occurred_at too_old: 3` */
function describeTally(t: Tally): string {
  return (
    Object.entries(t)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k === '201' ? 'stored' : k === '200' ? 'already stored' : `refused ${k}`}: ${v}`)
      .join(', ') || 'none'
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
