import { Injectable } from '@nestjs/common';
import type { Store } from '../stores/store.entity.js';
import type { ComparisonResult, ExperimentResultsResponse, LiftResponse, MetricValue } from './dto/results.dto.js';
import { type Experiment, type Metric, METRICS } from './experiment.entity.js';
import { ExperimentsRepository } from './experiments.repository.js';
import { ResultsRepository } from './results.repository.js';
import { analyseExperiment, type Lift, sampleRatioCheck } from './statistics.js';

/** Days after a purchase in which a return or an exchange is still expected: lines younger than this may still move. */
const RETURN_WINDOW_DAYS = 30;

/** A metric as the verdict names it, and how many of its units make a point. */
const SAID: Readonly<Record<Metric, string>> = {
  conversion: 'conversion',
  size_return_rate: 'size returns',
  size_exchange_rate: 'size exchanges',
  kept_rate: 'kept items',
};

const CAVEATS = [
  'By intention to treat: every exposed shopper counts in her arm, whether she opened size help or not.',
  'The always-valid intervals may be read every day without raising false alarms; the fixed-horizon ones only once, at the planned size.',
  'Rates per purchased line count outcomes up to observed_through: recent purchases can still be returned, exchanged or kept.',
  'Purchases count when they name the shopper (shopper_ref) and a product of the experiment, from her first exposure on.',
];

const round = (value: number, digits = 4) => Number(value.toFixed(digits));
/** A rate as points, with a true minus sign. */
const points = (rate: number) => (rate * 100).toFixed(1).replace('-', '−');

/** An experiment's results: its arms' rates, each arm against the control, the sample-ratio check, in plain words. */
@Injectable()
export class ResultsService {
  constructor(
    private readonly experiments: ExperimentsRepository,
    private readonly results: ResultsRepository,
  ) {}

  async read(store: Store, id: string): Promise<ExperimentResultsResponse> {
    const experiment = await this.experiments.get(store, id);
    const now = new Date();
    const totals = await this.results.totals(experiment, now, RETURN_WINDOW_DAYS);
    const analysis = analyseExperiment({
      arms: totals.map((arm) => arm.moments),
      control: experiment.controlArm,
      plannedUnits: experiment.plannedUnits,
    });
    const units = totals.map((arm) => arm.moments.units);
    const ratio = sampleRatioCheck(
      units,
      experiment.arms.map((arm) => arm.share),
    );
    const lines = totals.reduce((sum, arm) => sum + arm.lines, 0);
    const openLines = totals.reduce((sum, arm) => sum + arm.openLines, 0);
    const reached = analysis.plannedSizeReached;

    const comparisons: ComparisonResult[] = [experiment.primaryMetric, ...experiment.guardrails].flatMap((metric) =>
      analysis.metrics[metric].comparisons.map((comparison) => {
        const rateOf = (arm: string) => analysis.metrics[metric].arms.find((a) => a.arm === arm)?.plain.rate ?? null;
        const absolute = comparison.plain.absolute;
        return {
          arm: comparison.arm,
          metric,
          role: metric === experiment.primaryMetric ? ('primary' as const) : ('guardrail' as const),
          control_rate: nullableRound(rateOf(experiment.controlArm)),
          rate: nullableRound(rateOf(comparison.arm)),
          absolute: liftResponse(absolute, reached),
          relative: liftResponse(comparison.plain.relative, reached),
          adjusted_absolute: liftResponse(comparison.cuped.absolute, reached),
          variance_reduction: nullableRound(comparison.varianceReduction),
          direction: absolute?.direction ?? 'inconclusive',
          verdict: verdictOf(experiment, comparison.arm, metric, absolute),
        };
      }),
    );
    const primary = comparisons.filter((c) => c.role === 'primary');
    const total = units.reduce((sum, n) => sum + n, 0);
    const verdict = ratio.mismatch
      ? `The shoppers are not split between the arms as planned (p = ${ratio.p.toExponential(1)}): check how the integration ` +
        'asks for arms before reading these results.'
      : total === 0
        ? 'No shopper has been assigned an arm yet.'
        : primary.map((c) => c.verdict).join(' ');

    return {
      experiment_id: experiment.id,
      state: experiment.state,
      observed_through: now.toISOString(),
      planned_units: experiment.plannedUnits,
      units: total,
      planned_size_reached: reached,
      sample_ratio: {
        expected_shares: experiment.arms.map((arm) => arm.share),
        units,
        p_value: round(ratio.p, 6),
        mismatch: ratio.mismatch,
      },
      return_window: { days: RETURN_WINDOW_DAYS, open_lines: openLines, open_share: lines ? round(openLines / lines) : 0 },
      arms: experiment.arms.map((arm, i) => ({
        name: arm.name,
        treatment: arm.treatment,
        control: arm.name === experiment.controlArm,
        share: arm.share,
        units: units[i],
        purchasing_units: totals[i].purchasingUnits,
        purchased_lines: totals[i].lines,
        metrics: METRICS.map((metric): MetricValue => {
          const estimate = analysis.metrics[metric].arms[i];
          return {
            metric,
            rate: nullableRound(estimate.plain.rate),
            standard_error: nullableRound(estimate.plain.standardError, 5),
            adjusted_rate: nullableRound(estimate.cuped.rate),
          };
        }),
      })),
      comparisons,
      verdict,
      caveats: CAVEATS,
    };
  }
}

function nullableRound(value: number | null, digits = 4): number | null {
  return value === null ? null : round(value, digits);
}

function liftResponse(lift: Lift | null, reached: boolean): LiftResponse | null {
  if (lift === null) return null;
  return {
    estimate: round(lift.estimate, 5),
    standard_error: round(lift.standardError, 6),
    always_valid: { low: round(lift.alwaysValid.low, 5), high: round(lift.alwaysValid.high, 5) },
    always_valid_p: round(lift.alwaysValidP, 6),
    fixed_horizon: reached ? { low: round(lift.fixedHorizon.low, 5), high: round(lift.fixedHorizon.high, 5) } : null,
    fixed_horizon_p: reached ? round(lift.fixedHorizonP, 6) : null,
    significant: lift.significant,
  };
}

/**
 * One arm against the control in plain words, never saying more than the always-valid interval does: "holdout: size
 * returns 4.1 points higher than size help [1.2, 7.0]; the difference is real."
 */
function verdictOf(experiment: Experiment, arm: string, metric: Metric, lift: Lift | null): string {
  const said = SAID[metric];
  if (lift === null) return `${arm}: not enough ${metric === 'conversion' ? 'shoppers' : 'purchases'} yet to compare ${said}.`;
  const way = lift.estimate >= 0 ? 'higher' : 'lower';
  const interval = `[${points(lift.alwaysValid.low)}, ${points(lift.alwaysValid.high)}]`;
  const size = `${said} ${points(Math.abs(lift.estimate))} points ${way} than ${experiment.controlArm} ${interval}`;
  return lift.significant ? `${arm}: ${size}; the difference is real.` : `${arm}: ${size}; not yet told apart from no difference.`;
}
