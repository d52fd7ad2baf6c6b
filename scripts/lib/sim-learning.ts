/**
 * The shoppers whose outcomes the service learns from, in rounds: each round sends, for every product, new shoppers
 * until the product has the outcomes the round asks for. A round's sessions are all answered before any decision and
 * its events are sent after them, in two batches (purchases, then outcomes), as a store's backend would forward a day's
 * orders: so every shopper of a round sees what the earlier rounds taught, and a run is repeatable whatever the
 * concurrency. Each shopper draws from a random stream of her own (seed, product, number).
 */
import { createHash } from 'node:crypto';
import { sfc32 } from '../../src/sizing/draws.js';
import type { Chart } from '../../src/sizing/types.js';
import type { Person } from './nhanes.js';
import { type Api, mapLimit } from './sim-api.js';
import { trueSize } from './sim-chart.js';
import { decide, outcomeEvent, purchaseEvent, recommendFor, sendEvents, type OrderLine } from './sim-flow.js';
import { chooseSize, type Outcome, outcomeOf, staysSilent } from './sim-shopper.js';
import type { SimStore } from './sim-store.js';

/** What the learning shoppers did, for the record. */
export interface Tally {
  shoppers: number;
  silent: number;
  overrides: number;
  kept: number;
  returns: number;
  exchanges: number;
  /** Returns and exchanges that said which way. */
  directed: number;
  /** Exchanges that named the new size. */
  named: number;
}

export const emptyTally = (): Tally => ({ shoppers: 0, silent: 0, overrides: 0, kept: 0, returns: 0, exchanges: 0, directed: 0, named: 0 });

export interface LearningRun {
  readonly api: Api;
  readonly store: SimStore;
  /** Each product's true chart, by product position. */
  readonly trueCharts: readonly Chart[];
  readonly labels: readonly string[];
  /** The people learning shoppers are drawn from (never the evaluation's). */
  readonly pool: readonly Person[];
  readonly seed: number;
  readonly concurrency: number;
  /** Per product: shoppers so far, and of them those who reported an outcome. */
  readonly progress: { shoppers: number; reported: number }[];
  readonly tally: Tally;
}

/** A shopper's own random stream: the same shopper draws the same numbers in every run. */
function shopperRandom(seed: number, product: number, n: number): () => number {
  const hex = createHash('sha256').update(`${seed}:${product}:${n}`).digest('hex');
  return sfc32(parseInt(hex.slice(0, 8), 16));
}

interface Plan {
  readonly product: number;
  readonly person: Person;
  readonly random: () => number;
  readonly silent: boolean;
  readonly key: string;
}

function plan(run: LearningRun, target: number): Plan[] {
  const plans: Plan[] = [];
  run.progress.forEach((p, product) => {
    while (p.reported < target) {
      const random = shopperRandom(run.seed, product, p.shoppers);
      const person = run.pool[Math.floor(random() * run.pool.length)];
      const silent = staysSilent(random);
      plans.push({ product, person, random, silent, key: `${product + 1}-${p.shoppers}` });
      p.shoppers++;
      if (!silent) p.reported++;
    }
  });
  return plans;
}

function count(tally: Tally, outcome: Outcome | null): void {
  if (outcome === null) tally.silent++;
  else if (outcome.kind === 'kept') tally.kept++;
  else {
    if (outcome.kind === 'return') tally.returns++;
    else {
      tally.exchanges++;
      if (outcome.newSize !== null) tally.named++;
    }
    if (outcome.feedback !== null) tally.directed++;
  }
}

/** Shops until every product has `target` reported outcomes. */
export async function shopUntil(run: LearningRun, target: number): Promise<void> {
  const plans = plan(run, target);
  const storeId = run.store.id;
  const recommended = await mapLimit(plans, run.concurrency, (p) =>
    recommendFor(run.api, storeId, run.store.products[p.product].id, {
      heightCm: p.person.heightCm,
      weightKg: p.person.weightKg,
      age: p.person.age,
      sex: p.person.sex,
    }),
  );
  const lines = plans.map((p, i) => {
    const truth = trueSize(run.trueCharts[p.product], p.person);
    const offered = run.labels.indexOf(recommended[i].sizeLabel);
    const bought = chooseSize(offered, truth, run.labels.length, p.random);
    if (bought !== offered) run.tally.overrides++;
    const line: OrderLine = { product: run.store.products[p.product], sessionId: recommended[i].sessionId, bought, key: p.key };
    return { line, outcome: p.silent ? null : outcomeOf(bought, truth, p.random) };
  });
  await mapLimit(lines, run.concurrency, ({ line }) => decide(run.api, storeId, line.sessionId, run.labels[line.bought]));
  await sendEvents(
    run.api,
    storeId,
    lines.map(({ line }) => purchaseEvent(line)),
  );
  await sendEvents(
    run.api,
    storeId,
    lines.flatMap(({ line, outcome }) => (outcome === null ? [] : [outcomeEvent(line, outcome)])),
  );
  run.tally.shoppers += plans.length;
  for (const { outcome } of lines) count(run.tally, outcome);
}
