import type { FieldError } from '../../common/problems/problem-error.js';
import type { ExperimentResponse } from '../../experiments/dto/experiment.dto.js';

export type Metric = ExperimentResponse['primary_metric'];
export type Treatment = ExperimentResponse['arms'][number]['treatment'];
type Arm = ExperimentResponse['arms'][number];

/** The results an experiment can be judged by, in the order the form offers them. */
export const METRIC_CHOICES: readonly Metric[] = ['size_return_rate', 'conversion', 'size_exchange_rate', 'kept_rate'];

/** The three treatments, in the order the custom shares are asked for. */
export const TREATMENT_CHOICES: readonly Treatment[] = ['size_help', 'chart_only', 'no_size_help'];

/**
 * The groups as the console names them. The holdout is the one compared against, so that every comparison reads as
 * what size help (or the chart alone) changes.
 */
export const ARM_NAMES: Readonly<Record<Treatment, string>> = {
  size_help: 'Size help',
  chart_only: 'Chart alone',
  no_size_help: 'No size help',
};

type SplitChoice = 'halves' | 'thirds' | 'custom';

/** An edited draft's groups that the form's choices cannot say (made through the API): kept as they are. */
export const CURRENT_SPLIT = 'current';

/** The splits offered, each a sentence a merchant recognises; `custom` takes the shares typed. */
export const SPLITS: ReadonlyArray<{ readonly id: SplitChoice; readonly label: string; readonly hint: string }> = [
  { id: 'halves', label: 'Size help against a holdout, half and half', hint: 'half the shoppers see size help, half see none' },
  {
    id: 'thirds',
    label: 'Size help, the chart alone and a holdout, a third each',
    hint: 'tells what the learned fit adds to the size chart’s answer',
  },
  { id: 'custom', label: 'Custom shares', hint: 'the percentages below' },
];

const PRESETS: Readonly<Record<Exclude<SplitChoice, 'custom'>, readonly Arm[]>> = {
  halves: [
    { name: ARM_NAMES.size_help, share: 0.5, treatment: 'size_help' },
    { name: ARM_NAMES.no_size_help, share: 0.5, treatment: 'no_size_help' },
  ],
  thirds: [
    { name: ARM_NAMES.size_help, share: 1 / 3, treatment: 'size_help' },
    { name: ARM_NAMES.chart_only, share: 1 / 3, treatment: 'chart_only' },
    { name: ARM_NAMES.no_size_help, share: 1 / 3, treatment: 'no_size_help' },
  ],
};

/** The create form as typed, kept as text so that a refused form comes back as it was sent. */
export interface ExperimentFormValues {
  readonly name: string;
  readonly hypothesis: string;
  readonly split: string;
  /** Percentages, for `custom` only. */
  readonly shares: Readonly<Record<Treatment, string>>;
  /** `all` products, those of the chosen `types`, or (an edited draft's, made through the API) the `listed` ones. */
  readonly products: 'all' | 'types' | 'listed';
  readonly product_type_ids: readonly string[];
  /** For `listed` only: the products chosen through the API, kept as they are. */
  readonly product_ids: readonly string[];
  readonly primary_metric: string;
  readonly guardrails: readonly string[];
  /** In points. */
  readonly minimum_effect: string;
  /** In percent; empty for the typical rate. */
  readonly baseline_rate: string;
}

/** What a fresh form proposes: the question most merchants ask first, with conversion watched. */
export const NEW_EXPERIMENT: ExperimentFormValues = {
  name: '',
  hypothesis: '',
  split: 'halves',
  shares: { size_help: '50', chart_only: '0', no_size_help: '50' },
  products: 'all',
  product_type_ids: [],
  product_ids: [],
  primary_metric: 'size_return_rate',
  guardrails: ['conversion'],
  minimum_effect: '2',
  baseline_rate: '',
};

/** The fields a refusal can name, each with the id of the input the error summary leads to. */
export const FORM_FIELDS: Readonly<Record<string, string>> = {
  name: 'experiment-name',
  hypothesis: 'experiment-hypothesis',
  split: 'split-halves',
  shares: 'share-size_help',
  product_type_ids: 'products-types',
  primary_metric: `metric-${METRIC_CHOICES[0]}`,
  guardrails: `guardrail-${METRIC_CHOICES[0]}`,
  minimum_effect: 'minimum-effect',
  baseline_rate: 'baseline-rate',
};

const text = (body: Record<string, unknown>, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');
const texts = (body: Record<string, unknown>, name: string): string[] =>
  ([] as unknown[]).concat(body[name] ?? []).filter((value): value is string => typeof value === 'string');

export function experimentFormValues(body: Record<string, unknown>): ExperimentFormValues {
  return {
    name: text(body, 'name'),
    hypothesis: text(body, 'hypothesis'),
    split: text(body, 'split'),
    shares: {
      size_help: text(body, 'share_size_help').trim(),
      chart_only: text(body, 'share_chart_only').trim(),
      no_size_help: text(body, 'share_no_size_help').trim(),
    },
    products: text(body, 'products') === 'types' ? 'types' : text(body, 'products') === 'listed' ? 'listed' : 'all',
    product_type_ids: texts(body, 'product_type_ids'),
    product_ids: texts(body, 'product_ids'),
    primary_metric: text(body, 'primary_metric'),
    guardrails: texts(body, 'guardrails'),
    minimum_effect: text(body, 'minimum_effect').trim(),
    baseline_rate: text(body, 'baseline_rate').trim(),
  };
}

/** The form filled in with an experiment as it is, to edit it: its groups as the choice that makes them, if one does. */
export function formValuesOf(experiment: ExperimentResponse): ExperimentFormValues {
  const percentOf = (treatment: Treatment) => {
    const arm = experiment.arms.find((a) => a.treatment === treatment);
    return arm ? asPercent(arm.share) : '0';
  };
  return {
    name: experiment.name,
    hypothesis: experiment.hypothesis ?? '',
    split: splitOf(experiment),
    shares: { size_help: percentOf('size_help'), chart_only: percentOf('chart_only'), no_size_help: percentOf('no_size_help') },
    products: experiment.product_type_ids !== null ? 'types' : experiment.product_ids !== null ? 'listed' : 'all',
    product_type_ids: experiment.product_type_ids ?? [],
    product_ids: experiment.product_ids ?? [],
    primary_metric: experiment.primary_metric,
    guardrails: experiment.guardrails,
    minimum_effect: asPercent(experiment.minimum_effect),
    baseline_rate: experiment.baseline_rate === null ? '' : asPercent(experiment.baseline_rate),
  };
}

/** The split choice that gives these groups (names, treatments, shares and control as the form makes them), else `current`. */
function splitOf(experiment: ExperimentResponse): string {
  const { arms } = experiment;
  const treatments = new Set(arms.map((arm) => arm.treatment));
  if (
    treatments.size !== arms.length ||
    controlOf(arms) !== experiment.control_arm ||
    arms.some((arm) => arm.name !== ARM_NAMES[arm.treatment])
  ) {
    return CURRENT_SPLIT;
  }
  const same = (preset: readonly Arm[]) =>
    preset.length === arms.length && preset.every((p, i) => p.treatment === arms[i].treatment && Math.abs(p.share - arms[i].share) < 1e-6);
  if (same(PRESETS.halves)) return 'halves';
  if (same(PRESETS.thirds)) return 'thirds';
  // the form orders custom groups as TREATMENT_CHOICES does
  const ordered = TREATMENT_CHOICES.filter((treatment) => treatments.has(treatment));
  return ordered.every((treatment, i) => arms[i].treatment === treatment) ? 'custom' : CURRENT_SPLIT;
}

/**
 * The form as the API's update request: everything the form shows, sent whole (an emptied field is a removed one).
 * An experiment that has started takes its name and hypothesis only, as the API says.
 */
export function experimentUpdate(values: ExperimentFormValues, draft: boolean): { request: Record<string, unknown>; errors: FieldError[] } {
  const named = { name: values.name.trim(), hypothesis: values.hypothesis.trim() === '' ? null : values.hypothesis.trim() };
  if (!draft) return { request: named, errors: [] };
  const { request, errors } = experimentRequest(values);
  return {
    request: {
      ...request,
      ...named,
      product_ids: values.products === 'listed' ? (request.product_ids ?? null) : null,
      product_type_ids: request.product_type_ids ?? null,
      baseline_rate: request.baseline_rate ?? null,
    },
    errors,
  };
}

/** "2", "2.5", "2,5" or "12 %" as a number; null when it is none. */
function readNumber(value: string): number | null {
  const bare = value.replace(/\s*%$/, '');
  if (!/^\d+(?:[.,]\d+)?$/.test(bare)) return null;
  const number = Number(bare.replace(',', '.'));
  return Number.isFinite(number) ? number : null;
}

/** Percentages and points as the API's rates, without the binary noise of dividing by 100. */
const asRate = (percent: number): number => Number((percent / 100).toFixed(6));

/** A rate as the form shows it, in percent or points: 0.025 as "2.5". */
const asPercent = (rate: number): string => Number((rate * 100).toFixed(2)).toString();

/** The group the others are compared with: the holdout when there is one, so each comparison says what size help changes. */
const controlOf = (arms: readonly Arm[]): string => (arms.find((arm) => arm.treatment === 'no_size_help') ?? arms[0]).name;

const MESSAGES = {
  name: 'Give the experiment a name of up to 200 characters',
  hypothesis: 'Write what you expect in at most 2,000 characters, or leave it empty',
  split: 'Choose how shoppers are split between the groups',
  sharesNumbers: 'Write each share as a percentage from 0 to 100, such as 50',
  sharesTwo: 'Give at least two groups a share above 0',
  types: 'Choose at least one product type, or all products',
  typesGone: 'A chosen product type is no longer in this store: choose again',
  metric: 'Choose the result to judge the experiment by',
  guardrails: 'Choose each result to watch at most once',
  effect: 'Write the smallest difference worth detecting as points from 0.1 to 50, such as 2',
  effectTooBig: 'This difference would take the rate below 0 % or above 100 %: choose a smaller one, or another expected rate',
  baseline: 'Write the expected rate as a percentage from 0.1 to 99.9, or leave it empty',
} as const;

/**
 * The form as the API's create request, and what the form itself says is wrong (a figure that is not one, shares
 * that do not add up). What only the API's rules can say is checked by them afterwards (`formErrors`).
 */
export function experimentRequest(values: ExperimentFormValues): { request: Record<string, unknown>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const request: Record<string, unknown> = { name: values.name.trim() };
  if (values.hypothesis.trim() !== '') request.hypothesis = values.hypothesis.trim();

  const arms = values.split === CURRENT_SPLIT ? null : armsOf(values, errors);
  if (arms) {
    request.arms = arms;
    request.control_arm = controlOf(arms);
  }

  if (values.products === 'types') {
    if (values.product_type_ids.length === 0) errors.push({ field: 'product_type_ids', code: 'required', message: MESSAGES.types });
    else request.product_type_ids = [...new Set(values.product_type_ids)];
  } else if (values.products === 'listed') request.product_ids = [...new Set(values.product_ids)];

  request.primary_metric = values.primary_metric;
  // the metric it is judged by is watched anyway: ticking it again is not a mistake worth a refusal
  request.guardrails = [...new Set(values.guardrails)].filter((metric) => metric !== values.primary_metric);

  const effect = readNumber(values.minimum_effect);
  if (effect === null) errors.push({ field: 'minimum_effect', code: 'must_be_number', message: MESSAGES.effect });
  else request.minimum_effect = asRate(effect);
  if (values.baseline_rate !== '') {
    const baseline = readNumber(values.baseline_rate);
    if (baseline === null) errors.push({ field: 'baseline_rate', code: 'must_be_number', message: MESSAGES.baseline });
    else request.baseline_rate = asRate(baseline);
  }
  return { request, errors };
}

function armsOf(values: ExperimentFormValues, errors: FieldError[]): Arm[] | null {
  if (values.split === 'halves' || values.split === 'thirds') return PRESETS[values.split].map((arm) => ({ ...arm }));
  if (values.split !== 'custom') {
    errors.push({ field: 'split', code: 'required', message: MESSAGES.split });
    return null;
  }
  const percents = TREATMENT_CHOICES.map(
    (treatment) => [treatment, values.shares[treatment] === '' ? 0 : readNumber(values.shares[treatment])] as const,
  );
  if (percents.some(([, percent]) => percent === null || percent > 100)) {
    errors.push({ field: 'shares', code: 'must_be_number', message: MESSAGES.sharesNumbers });
    return null;
  }
  const taking = percents.filter(([, percent]) => (percent as number) > 0) as Array<readonly [Treatment, number]>;
  if (taking.length < 2) {
    errors.push({ field: 'shares', code: 'too_few', message: MESSAGES.sharesTwo });
    return null;
  }
  const total = taking.reduce((sum, [, percent]) => sum + percent, 0);
  if (Math.abs(total - 100) > 0.01) {
    const said = Number(total.toFixed(2)).toString();
    errors.push({ field: 'shares', code: 'shares_not_one', message: `The shares must add up to 100 % (they add up to ${said} %)` });
    return null;
  }
  return taking.map(([treatment, percent]) => ({ name: ARM_NAMES[treatment], share: percent / total, treatment }));
}

/**
 * The API's refusals in the form's words and on its fields (the API names JSON fields and rates the form shows as
 * points and percentages). Errors on a field the form already refused are left out, one message per field: shares
 * that do not add up leave the API no groups, which it would call a missing split.
 */
export function formErrors(apiErrors: readonly FieldError[], already: readonly FieldError[] = []): FieldError[] {
  const errors = [...already];
  for (const error of apiErrors) {
    const said = inFormWords(error);
    const covered = said.field === 'split' ? ['split', 'shares'] : [said.field];
    if (said.field !== '' && errors.some((e) => covered.includes(e.field))) continue;
    errors.push(said);
  }
  return errors;
}

function inFormWords(error: FieldError): FieldError {
  const at = (field: string, message: string): FieldError => ({ field, code: error.code, message });
  const field = error.field.replace(/\[.*$/, '');
  switch (field) {
    case 'name':
      return at('name', MESSAGES.name);
    case 'hypothesis':
      return at('hypothesis', MESSAGES.hypothesis);
    case 'arms':
    case 'control_arm':
      return at('split', MESSAGES.split);
    case 'product_ids':
    case 'product_type_ids':
      return at('product_type_ids', error.code === 'not_found' ? MESSAGES.typesGone : MESSAGES.types);
    case 'primary_metric':
      return at('primary_metric', MESSAGES.metric);
    case 'guardrails':
      return at('guardrails', MESSAGES.guardrails);
    case 'minimum_effect':
      return at('minimum_effect', error.code === 'out_of_range' ? MESSAGES.effectTooBig : MESSAGES.effect);
    case 'baseline_rate':
      return at('baseline_rate', MESSAGES.baseline);
    default:
      return error;
  }
}
