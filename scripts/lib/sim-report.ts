/**
 * The simulation's figures: per checkpoint (outcomes per product), the three engines' scores on the same new shoppers,
 * the learned offsets against the truth, and whether the targets hold. Markdown for docs/fit-quality.md; the same
 * figures go raw to bench/results.
 */
import type { Learned } from './sim-flow.js';
import { type Answer, accuracyDifference, type Scores, score } from './sim-metrics.js';

/** An engine's scores over every product's new shoppers, and per product. */
export interface EngineScores {
  readonly all: Scores;
  readonly byProduct: readonly Scores[];
}

export interface Checkpoint {
  /** Reported outcomes per product so far. */
  readonly outcomes: number;
  readonly learning: EngineScores;
  /** The stated chart's answer (never learns). */
  readonly statedChart: EngineScores;
  /** A store whose charts are the true ones (never learns). */
  readonly trueChart: EngineScores;
  /** Learning's accuracy minus the true chart's, paired on the same shoppers. */
  readonly gapToTrueChart: { readonly difference: number; readonly se: number };
  /** `GET …/fit` per product. */
  readonly learned: readonly Learned[];
}

/** The targets the simulation checks at its last checkpoint. */
export const TARGETS = { accuracyGap: 0.02, zeroOffset: 0.15, ece: 0.05 } as const;

const engine = (byProduct: readonly (readonly Answer[])[]): EngineScores => ({
  all: score(byProduct.flat()),
  byProduct: byProduct.map((a) => score(a)),
});

export function checkpoint(
  outcomes: number,
  answers: { learning: Answer[][]; statedChart: Answer[][]; trueChart: Answer[][] },
  learned: readonly Learned[],
): Checkpoint {
  return {
    outcomes,
    learning: engine(answers.learning),
    statedChart: engine(answers.statedChart),
    trueChart: engine(answers.trueChart),
    gapToTrueChart: accuracyDifference(answers.learning.flat(), answers.trueChart.flat()),
    learned,
  };
}

export interface TargetCheck {
  readonly name: string;
  readonly value: string;
  readonly met: boolean;
}

/** The targets, judged at the last checkpoint. */
export function checkTargets(last: Checkpoint, offsets: readonly number[]): TargetCheck[] {
  const gap = last.gapToTrueChart.difference;
  const zeros = offsets.flatMap((o, p) => (o === 0 ? [last.learned[p].size_steps] : []));
  return [
    {
      name: `exact-size accuracy within ${pct(TARGETS.accuracyGap)} points of the engine that knows the true chart`,
      value: `${signedPoints(gap)} points (± ${pct(last.gapToTrueChart.se)} s.e.)`,
      met: gap >= -TARGETS.accuracyGap,
    },
    {
      name: `products with no true offset learned within ±${TARGETS.zeroOffset} steps`,
      value: zeros.map(signed).join(', '),
      met: zeros.every((z) => Math.abs(z) <= TARGETS.zeroOffset),
    },
    { name: `ECE of confidence ≤ ${TARGETS.ece}`, value: last.learning.all.ece.toFixed(3), met: last.learning.all.ece <= TARGETS.ece },
  ];
}

const pct = (x: number) => (100 * x).toFixed(1);
const signedPoints = (x: number) => `${x >= 0 ? '+' : '−'}${pct(Math.abs(x))}`;
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
const productName = (p: number, offset: number) =>
  `P${p + 1} (${offset === 0 ? '0' : signed(offset).replace(/0+$/, '').replace(/\.$/, '')})`;

/** The markdown between the simulate-learning markers. */
export function markdown(
  checkpoints: readonly Checkpoint[],
  offsets: readonly number[],
  header: string,
  targets: readonly TargetCheck[],
): string {
  const last = checkpoints.at(-1)!;
  return [
    header,
    '',
    '#### Exact-size accuracy on new shoppers (all products)',
    '',
    '| outcomes per product | learning | never learns (stated chart) | knows the true chart | learning − true chart (± s.e.) | ECE learning | ECE true chart | mean confidence, learning |',
    '|---|---|---|---|---|---|---|---|',
    ...checkpoints.map(
      (c) =>
        `| ${c.outcomes} | ${pct(c.learning.all.exact)}% | ${pct(c.statedChart.all.exact)}% | ${pct(c.trueChart.all.exact)}% | ` +
        `${signedPoints(c.gapToTrueChart.difference)} (± ${pct(c.gapToTrueChart.se)}) | ${c.learning.all.ece.toFixed(3)} | ` +
        `${c.trueChart.all.ece.toFixed(3)} | ${c.learning.all.meanConfidence.toFixed(3)} |`,
    ),
    '',
    'With no outcome yet the learning store answers as the stated chart does (its ECE at 0 is the stated chart’s). The ' +
      'store that knows the true charts never receives an outcome: its answers are asked once and the same at every ' +
      'checkpoint.',
    '',
    '#### Learned offset against the truth (size steps; `GET …/fit`: offset ± sd, outcomes counted by the service)',
    '',
    `| outcomes per product | ${offsets.map((o, p) => productName(p, o)).join(' | ')} |`,
    `|---|${offsets.map(() => '---').join('|')}|`,
    ...checkpoints.map(
      (c) => `| ${c.outcomes} | ${c.learned.map((l) => `${signed(l.size_steps)} ± ${l.sd.toFixed(2)} (${l.outcomes})`).join(' | ')} |`,
    ),
    '',
    'The service counts one lesson per order line: its outcome, or, until the outcome arrives, the decision for another ' +
      'size than both the recommendation and the stated chart’s answer when that size was bought (weak evidence); a shopper ' +
      'who never reports leaves only that decision.',
    '',
    `#### Per product after ${last.outcomes} outcomes each (exact-size accuracy on new shoppers)`,
    '',
    '| product | true offset | learned | learning | never learns | knows the true chart |',
    '|---|---|---|---|---|---|',
    ...offsets.map(
      (o, p) =>
        `| P${p + 1} | ${signed(o)} | ${signed(last.learned[p].size_steps)} [${signed(last.learned[p].low)}, ${signed(last.learned[p].high)}] | ` +
        `${pct(last.learning.byProduct[p].exact)}% | ${pct(last.statedChart.byProduct[p].exact)}% | ${pct(last.trueChart.byProduct[p].exact)}% |`,
    ),
    '',
    `#### Targets after ${last.outcomes} outcomes per product`,
    '',
    ...targets.map((t) => `- ${t.met ? '**met**' : '**not met**'}: ${t.name}: ${t.value}.`),
    ...trailing(last, offsets),
  ].join('\n');
}

/** The products on which learning trails the engine that knows the true chart by more than the target allows. */
function trailing(last: Checkpoint, offsets: readonly number[]): string[] {
  const behind = offsets.flatMap((o, p) => {
    const gap = last.learning.byProduct[p].exact - last.trueChart.byProduct[p].exact;
    return gap < -TARGETS.accuracyGap ? [`${productName(p, o)} ${signedPoints(gap)}`] : [];
  });
  return behind.length === 0
    ? []
    : [
        '',
        `Learning trails the engine that knows the true chart by more than ${pct(TARGETS.accuracyGap)} points on ${behind.join(', ')} points.`,
      ];
}
