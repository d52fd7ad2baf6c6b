/**
 * The figures and tables of `npm run eval:outcomes`: every scored rental's verdict probabilities from the service's
 * answer and from the baselines, summed up overall and by group, and written as the Markdown section of
 * docs/fit-quality.md.
 */
import { dirname } from 'node:path';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import type { Verdict } from './rtr.js';
import type { Probabilities } from './rtr-ordinal.js';
import {
  type AnswerFacts,
  type AnswerFigures,
  answerFigures,
  type ModelFigures,
  modelFigures,
  type ObservedShares,
  observedShares,
  offsetAuc,
} from './outcome-score.js';

export const MODELS = ['outcomes', 'service', 'item & customer', 'item rates', 'global shares'] as const;
export type Model = (typeof MODELS)[number];

export interface ScoredRental {
  readonly verdict: Verdict;
  /** Earlier rentals of the item (history and earlier live days). */
  readonly itemEarlier: number;
  /** She rented on an earlier day. */
  readonly returning: boolean;
  /** The month of the review (YYYY-MM), before dates were moved. */
  readonly month: string;
  readonly given: { readonly heightWeight: boolean; readonly chest: boolean; readonly usualSize: boolean };
  readonly predictions: Readonly<Record<Model, Probabilities>>;
  readonly facts: AnswerFacts;
  /** The learned offset the answer used (product and shopper), in size steps. */
  readonly offset: number;
}

export interface Figures {
  readonly n: number;
  readonly observed: ObservedShares;
  readonly models: Readonly<Record<Model, ModelFigures>>;
  readonly answer: AnswerFigures;
  /** Mean AUC of the learned offset alone, as a ranking. */
  readonly offsetAuc: number;
}

export function figuresOf(rows: readonly ScoredRental[]): Figures {
  const seen = rows.map((r) => r.verdict);
  return {
    n: rows.length,
    observed: observedShares(seen),
    models: Object.fromEntries(
      MODELS.map((m) => [
        m,
        modelFigures(
          rows.map((r) => r.predictions[m]),
          seen,
        ),
      ]),
    ) as Record<Model, ModelFigures>,
    answer: answerFigures(
      rows.map((r) => r.facts),
      seen,
    ),
    offsetAuc: offsetAuc(
      rows.map((r) => r.offset),
      seen,
    ),
  };
}

export interface Group {
  readonly name: string;
  readonly figures: Figures;
}

/** Figures per group, in `order`, groups without a rental left out. */
export function groupsOf(rows: readonly ScoredRental[], keyOf: (r: ScoredRental) => string, order: readonly string[]): Group[] {
  return order.flatMap((name) => {
    const members = rows.filter((r) => keyOf(r) === name);
    return members.length ? [{ name, figures: figuresOf(members) }] : [];
  });
}

export const HISTORY_BUCKETS = [
  { name: '0', min: 0, max: 1 },
  { name: '1–4', min: 1, max: 5 },
  { name: '5–19', min: 5, max: 20 },
  { name: '20–99', min: 20, max: 100 },
  { name: '100+', min: 100, max: Infinity },
] as const;

export const historyBucket = (earlier: number) => HISTORY_BUCKETS.find((b) => earlier >= b.min && earlier < b.max)!.name;

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');

/** The main table: one row per model over all scored rentals. */
export function mainTable(f: Figures, names: Readonly<Record<Model, string>>): string[] {
  const row = (name: string, m: ModelFigures) =>
    `| ${name} | ${f3(m.auc)} | ${f3(m.logLoss)} | ${f3(m.accuracy)} | ${f3(m.ece)} | ${f3(m.eceFit)} | ${f3(m.meanSmall)} | ${f3(m.meanFit)} | ${f3(m.meanLarge)} |`;
  return [
    '| model | mean AUC | log loss | accuracy | ECE | ECE of P(fit) | mean P(small) | mean P(fit) | mean P(large) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...MODELS.map((m) => row(names[m], f.models[m])),
    `| learned offset alone (a ranking) | ${f3(f.offsetAuc)} | – | – | – | – | – | – | – |`,
    `| observed | – | – | – | – | – | ${f3(f.observed.small)} | ${f3(f.observed.fit)} | ${f3(f.observed.large)} |`,
  ];
}

/**
 * A table of groups: each cell the answer's outcomes / its size distribution / item & customer / item rates / global
 * shares, and the answer's own figures.
 */
export function groupTable(groups: readonly Group[]): string[] {
  const cell = (g: Group, f: (m: ModelFigures) => number) => MODELS.map((m) => f3(f(g.figures.models[m]))).join(' / ');
  return [
    '| group | rentals | mean AUC | log loss | ECE of P(fit) | rented the size recommended | confidence (mean, ECE) |',
    '|---|---|---|---|---|---|---|',
    ...groups.map(
      (g) =>
        `| ${g.name} | ${g.figures.n} | ${cell(g, (m) => m.auc)} | ${cell(g, (m) => m.logLoss)} | ${cell(g, (m) => m.eceFit)} | ` +
        `${pct(g.figures.answer.rentedRecommended)} | ${f3(g.figures.answer.meanConfidence)}, ${f3(g.figures.answer.eceConfidence)} |`,
    ),
  ];
}

/** Replaces what lies between `begin` and `end` in `text`; where they are missing, inserts `section` before `before`. */
export function replaceSection(
  text: string,
  markers: { begin: string; end: string },
  generated: string,
  section: string,
  before: string,
): string {
  const i = text.indexOf(markers.begin);
  const j = text.indexOf(markers.end);
  if (i >= 0 && j > i) return `${text.slice(0, i + markers.begin.length)}\n${generated}\n${text.slice(j)}`;
  if (i >= 0 || j >= 0) throw new Error(`${markers.begin} … ${markers.end}: only one of the markers found`);
  const k = text.indexOf(before);
  if (k < 0) throw new Error(`"${before}" not found: nowhere to put the section`);
  const block = section.replace('{generated}', `${markers.begin}\n${generated}\n${markers.end}`);
  return `${text.slice(0, k)}${block}\n\n${text.slice(k)}`;
}

/** Writes `text` to `file`, creating its folder. */
export function writeText(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export const readText = (file: string) => readFileSync(file, 'utf8');
