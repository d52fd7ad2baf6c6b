/**
 * Scoring on new shoppers: people never used for outcomes each start a session on every product of a store and answer
 * it; the session is left undecided and nothing is bought, so scoring teaches the service nothing. Each answer is
 * scored against her true size on the product's true chart.
 */
import type { Chart } from '../../src/sizing/types.js';
import type { Person } from './nhanes.js';
import { type Api, mapLimit } from './sim-api.js';
import { trueSize } from './sim-chart.js';
import { recommendFor } from './sim-flow.js';
import type { Answer } from './sim-metrics.js';
import type { SimStore } from './sim-store.js';

/** Per product (store order), per new shopper (people order). */
export interface StoreAnswers {
  /** What the store recommended, with its confidence. */
  readonly recommended: Answer[][];
  /** What the stated chart alone answered (`adjustment.chart_size_label`): the engine that never learns. */
  readonly statedChart: Answer[][];
}

export async function answersOn(
  api: Api,
  store: SimStore,
  people: readonly Person[],
  trueCharts: readonly Chart[],
  labels: readonly string[],
  concurrency: number,
): Promise<StoreAnswers> {
  const jobs = store.products.flatMap((product, p) => people.map((person) => ({ product, p, person })));
  const answers = await mapLimit(jobs, concurrency, async ({ product, p, person }) => {
    const r = await recommendFor(api, store.id, product.id, {
      heightCm: person.heightCm,
      weightKg: person.weightKg,
      age: person.age,
      sex: person.sex,
    });
    const truth = trueSize(trueCharts[p], person);
    return {
      p,
      recommended: { truth, predicted: labels.indexOf(r.sizeLabel), confidence: r.confidence },
      statedChart: { truth, predicted: labels.indexOf(r.chartSizeLabel), confidence: NaN },
    };
  });
  const byProduct = (pick: (a: (typeof answers)[number]) => Answer) =>
    store.products.map((_, p) => answers.filter((a) => a.p === p).map(pick));
  return { recommended: byProduct((a) => a.recommended), statedChart: byProduct((a) => a.statedChart) };
}
