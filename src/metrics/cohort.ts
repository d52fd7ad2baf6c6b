import { ProblemError } from '../common/problems/problem-error.js';
import { parseInstantOrDate } from '../common/validation/rfc3339.js';
import type { MetricsCounts, MetricsQuery, MetricsRates } from './dto/metrics.dto.js';

const DAY_MS = 86_400_000;
const DEFAULT_RANGE_DAYS = 30;
const MAX_RANGE_DAYS = 366;

export interface Range {
  readonly from: Date;
  readonly to: Date;
}

/** `to` defaults to now and `from` to 30 days before `to`; `from < to`, at most 366 days apart. */
export function readRange(query: MetricsQuery, now: Date): Range {
  const to = query.to === undefined ? now : (parseInstantOrDate(query.to) as Date);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : (parseInstantOrDate(query.from) as Date);
  if (from >= to) throw ProblemError.field('from', 'not_before_to', 'from must be before to');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw ProblemError.field('to', 'range_too_long', `the range from from to to must be at most ${MAX_RANGE_DAYS} days`);
  }
  return { from, to };
}

/** The UTC days `[from, to)` touches, each clipped to the range. */
export function utcDays(range: Range): Array<Range & { date: string }> {
  const days = [];
  let start = range.from;
  while (start < range.to) {
    const midnight = new Date(Math.floor(start.getTime() / DAY_MS) * DAY_MS + DAY_MS);
    const end = midnight < range.to ? midnight : range.to;
    days.push({ date: start.toISOString().slice(0, 10), from: start, to: end });
    start = end;
  }
  return days;
}

export const NO_COUNTS: MetricsCounts = {
  started_sessions: 0,
  recommended_sessions: 0,
  accepted_sessions: 0,
  overridden_sessions: 0,
  converted_sessions: 0,
  purchased_lines: 0,
  size_returned_lines: 0,
  kept_lines: 0,
  size_exchanged_lines: 0,
};

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? null : numerator / denominator);

/** The seven rates of the interface, from the counts beside them. */
export function rates(c: MetricsCounts): MetricsRates {
  return {
    quiz_completion: ratio(c.recommended_sessions, c.started_sessions),
    recommendation_acceptance: ratio(c.accepted_sessions, c.recommended_sessions),
    recommendation_override: ratio(c.overridden_sessions, c.recommended_sessions),
    fit_assisted_conversion: ratio(c.converted_sessions, c.recommended_sessions),
    size_related_return: ratio(c.size_returned_lines, c.purchased_lines),
    kept_after_recommendation: ratio(c.kept_lines, c.purchased_lines),
    exchange_for_size: ratio(c.size_exchanged_lines, c.purchased_lines),
  };
}
