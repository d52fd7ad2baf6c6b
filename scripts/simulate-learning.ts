/**
 * Shows by simulation, through the service's real HTTP API, that learning from outcomes finds how products really fit:
 *
 *   npm run eval:learning -- --simulate        (NHANES_DIR=… to read the data from elsewhere)
 *
 * Products on one stated women's bottoms chart really follow that chart moved by known offsets (size steps). NHANES
 * women of the training part shop them in a service started in this process on an in-memory embedded database: a fit
 * session (height, weight, age, sex), a decision, a purchase, an outcome from their true fit. At checkpoints of
 * outcomes per product, other NHANES women (never used for outcomes) are scored on every product against three
 * engines: the learning store, the stated chart alone, and a store whose charts are the true ones. Writes
 * docs/fit-quality.md (between the simulate-learning markers), docs/learning-simulation.svg and
 * bench/results/simulate-learning-<date>.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sfc32 } from '../src/sizing/draws.js';
import { projectRoot } from './lib/ansur.js';
import { loadNhanes } from './lib/nhanes.js';
import { Api } from './lib/sim-api.js';
import { SIZE_LABELS, STATED_CHART, trueChart } from './lib/sim-chart.js';
import { answersOn } from './lib/sim-evaluate.js';
import { learnedFit } from './lib/sim-flow.js';
import { emptyTally, type LearningRun, shopUntil } from './lib/sim-learning.js';
import { plotSvg } from './lib/sim-plot.js';
import { type Checkpoint, checkpoint, checkTargets, markdown } from './lib/sim-report.js';
import { startService } from './lib/sim-service.js';
import { BEHAVIOUR, shuffled } from './lib/sim-shopper.js';
import { createMerchant, createStore } from './lib/sim-store.js';

const SEED = 20_261_125;
/** How each product really fits, in size steps against the stated chart: both ways, by half and whole sizes, and two true to size. */
const OFFSETS = [-1, -0.5, 0, 0, 0.5, 1];
/** Reported outcomes per product at which new shoppers are scored. */
const CHECKPOINTS = [0, 25, 50, 100, 200];
/** Outcomes per product sent per round: what a round's shoppers see was learned from the rounds before. */
const ROUND = 25;
/** New shoppers, each scored on every product at every checkpoint. */
const NEW_SHOPPERS = 250;
/** Requests in flight at once. */
const CONCURRENCY = 8;

export async function simulate(): Promise<void> {
  const started = Date.now();
  const data = loadNhanes();
  const women = shuffled(
    data.people.filter((p) => p.sex === 'female'),
    sfc32(SEED),
  );
  const newShoppers = women.slice(0, NEW_SHOPPERS);
  const pool = women.slice(NEW_SHOPPERS);
  const trueCharts = OFFSETS.map((offset) => trueChart(STATED_CHART, offset));
  const service = await startService();
  const checkpoints: Checkpoint[] = [];
  const tally = emptyTally();
  try {
    const admin = await createMerchant(new Api(service.baseUrl, service.operatorKey), 'Simulated merchant');
    const learning = await createStore(
      admin,
      'Learning',
      OFFSETS.map((offset) => ({ offset, chart: STATED_CHART })),
    );
    const knowing = await createStore(
      admin,
      'True charts',
      OFFSETS.map((offset, p) => ({ offset, chart: trueCharts[p] })),
    );
    // that store never receives an outcome, so its answers are the same at every checkpoint: asked once
    const trueChartAnswers = (await answersOn(admin, knowing, newShoppers, trueCharts, SIZE_LABELS, CONCURRENCY)).recommended;
    const run: LearningRun = {
      api: admin,
      store: learning,
      trueCharts,
      labels: SIZE_LABELS,
      pool,
      seed: SEED,
      concurrency: CONCURRENCY,
      progress: OFFSETS.map(() => ({ shoppers: 0, reported: 0 })),
      tally,
    };
    let reached = 0;
    for (const target of CHECKPOINTS) {
      for (; reached < target; reached = Math.min(reached + ROUND, target)) await shopUntil(run, Math.min(reached + ROUND, target));
      const answers = await answersOn(admin, learning, newShoppers, trueCharts, SIZE_LABELS, CONCURRENCY);
      const learned = await Promise.all(learning.products.map((p) => learnedFit(admin, learning.id, p.id)));
      const c = checkpoint(
        target,
        { learning: answers.recommended, statedChart: answers.statedChart, trueChart: trueChartAnswers },
        learned,
      );
      checkpoints.push(c);
      console.log(
        `${target} outcomes/product (${Math.round((Date.now() - started) / 1000)} s): exact ${(100 * c.learning.all.exact).toFixed(1)}% ` +
          `(stated ${(100 * c.statedChart.all.exact).toFixed(1)}%, true chart ${(100 * c.trueChart.all.exact).toFixed(1)}%), ` +
          `ECE ${c.learning.all.ece.toFixed(3)}, learned ${learned.map((l) => l.size_steps.toFixed(2)).join(' ')}`,
      );
    }
  } finally {
    await service.close();
  }
  write(checkpoints, { seconds: (Date.now() - started) / 1000, tally, file: data.file, women: women.length, poolSize: pool.length });
}

interface RunFacts {
  readonly seconds: number;
  readonly tally: ReturnType<typeof emptyTally>;
  readonly file: { readonly name: string; readonly sha256: string };
  readonly women: number;
  readonly poolSize: number;
}

function write(checkpoints: readonly Checkpoint[], facts: RunFacts): void {
  const today = new Date().toISOString().slice(0, 10);
  const t = facts.tally;
  const targets = checkTargets(checkpoints.at(-1)!, OFFSETS);
  const header =
    `Generated by \`npm run eval:learning -- --simulate\` on ${today} in ${facts.seconds.toFixed(0)} s (seed ${SEED}). ` +
    `${facts.women} women of NHANES ${facts.file.name} (sha256 ${facts.file.sha256.slice(0, 12)}…): ${NEW_SHOPPERS} new shoppers, ` +
    `each scored on all ${OFFSETS.length} products at every checkpoint; learning shoppers drawn from the other ${facts.poolSize}. ` +
    `Learning shoppers: ${t.shoppers} (${t.overrides} overrode the recommendation, ${t.silent} never reported); outcomes: ` +
    `${t.kept} kept, ${t.returns} returns and ${t.exchanges} exchanges for size (${t.directed} of them with a direction, ` +
    `${t.named} exchanges naming the new size).`;
  const text = markdown(checkpoints, OFFSETS, header, targets);
  console.log(`\n${text}`);

  const root = projectRoot();
  const doc = join(root, 'docs', 'fit-quality.md');
  const begin = '<!-- simulate-learning:start -->';
  const end = '<!-- simulate-learning:end -->';
  const current = readFileSync(doc, 'utf8');
  const i = current.indexOf(begin);
  const j = current.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${doc}: markers ${begin} … ${end} not found`);
  writeFileSync(doc, `${current.slice(0, i + begin.length)}\n${text}\n${current.slice(j)}`);

  const caption = `Simulated through the HTTP API, ${NEW_SHOPPERS} new NHANES shoppers per product per checkpoint (${today}).`;
  writeFileSync(join(root, 'docs', 'learning-simulation.svg'), plotSvg(checkpoints, OFFSETS, caption));

  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const file = join(root, 'bench', 'results', `simulate-learning-${today}.json`);
  const json = {
    date: new Date().toISOString(),
    seconds: facts.seconds,
    seed: SEED,
    data: facts.file,
    chart: STATED_CHART,
    offsets: OFFSETS,
    behaviour: BEHAVIOUR,
    newShoppers: NEW_SHOPPERS,
    learningPool: facts.poolSize,
    learningShoppers: facts.tally,
    checkpoints,
    targets,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nupdated docs/fit-quality.md, docs/learning-simulation.svg and ${file}`);
}
