/**
 * A plain reference computation of the cohort metrics, written from docs/decisions/004-events-and-metrics.md
 * ("Metrics") and nothing else: it shares no code with src/. It works on what a test knows it sent — sessions with
 * their creation instant and how far they got, and the events the service accepted — and on the `observed_through`
 * the service answered, so that the comparison does not depend on when the request ran.
 *
 * Every instant is a number of milliseconds since the epoch (the API's timestamps have millisecond precision).
 */

export const COUNT_KEYS = [
  'started_sessions',
  'recommended_sessions',
  'accepted_sessions',
  'overridden_sessions',
  'converted_sessions',
  'purchased_lines',
  'size_returned_lines',
  'kept_lines',
  'size_exchanged_lines',
] as const;
export type CountKey = (typeof COUNT_KEYS)[number];
export type Counts = Record<CountKey, number>;

export const RATE_KEYS = [
  'quiz_completion',
  'recommendation_acceptance',
  'recommendation_override',
  'fit_assisted_conversion',
  'size_related_return',
  'kept_after_recommendation',
  'exchange_for_size',
] as const;
export type RateKey = (typeof RATE_KEYS)[number];
export type Rates = Record<RateKey, number | null>;

export interface Figures {
  counts: Counts;
  rates: Rates;
}

/** How far a session got: started only, recommended (no decision yet), or decided either way. */
export type Stage = 'started' | 'recommended' | 'accepted' | 'overridden';

export interface RefSession {
  id: string;
  storeId: string;
  createdAt: number;
  stage: Stage;
}

export type OutcomeType = 'purchase' | 'return_requested' | 'size_exchange' | 'item_kept';

export interface RefEvent {
  storeId: string;
  /** Any type the integration may send; only the four order outcomes matter to the metrics. */
  type: string;
  sessionId: string | null;
  orderId: string | null;
  lineItemId: string | null;
  reason: 'size' | 'other' | null;
  occurredAt: number;
}

export const DAY_MS = 86_400_000;

/** The rate `numerator / denominator`, or null when the denominator is zero. */
export function rate(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

export function ratesOf(c: Counts): Rates {
  return {
    quiz_completion: rate(c.recommended_sessions, c.started_sessions),
    recommendation_acceptance: rate(c.accepted_sessions, c.recommended_sessions),
    recommendation_override: rate(c.overridden_sessions, c.recommended_sessions),
    fit_assisted_conversion: rate(c.converted_sessions, c.recommended_sessions),
    size_related_return: rate(c.size_returned_lines, c.purchased_lines),
    kept_after_recommendation: rate(c.kept_lines, c.purchased_lines),
    exchange_for_size: rate(c.size_exchanged_lines, c.purchased_lines),
  };
}

const lineKey = (orderId: string, lineItemId: string) => JSON.stringify([orderId, lineItemId]);

/**
 * The figures of `storeId` for the cohort `[from, to)`, with outcomes observed up to `observedThrough`:
 *
 * - cohort: the store's sessions created in [from, to);
 * - recommended / accepted / overridden: cohort sessions that got a recommendation / whose decision was accepted /
 *   overridden (a decided session got a recommendation first);
 * - converted: recommended cohort sessions named by a `purchase` of the store with occurred_at ≤ observed_through;
 * - purchased lines: the distinct (order_id, line_item_id) of those purchases;
 * - size returned / size exchanged / kept lines: purchased lines with at least one `return_requested` reason size /
 *   `size_exchange` reason size / `item_kept` of the store on the same (order_id, line_item_id), occurred_at ≤
 *   observed_through, whatever its session_id (or none).
 */
export function referenceMetrics(
  sessions: readonly RefSession[],
  events: readonly RefEvent[],
  storeId: string,
  from: number,
  to: number,
  observedThrough: number,
): Figures {
  const cohort = sessions.filter((s) => s.storeId === storeId && s.createdAt >= from && s.createdAt < to);
  const recommended = cohort.filter((s) => s.stage !== 'started');
  const recommendedIds = new Set(recommended.map((s) => s.id));
  const observed = events.filter((e) => e.storeId === storeId && e.occurredAt <= observedThrough);

  const converted = new Set<string>();
  const purchased = new Set<string>();
  for (const e of observed) {
    if (e.type !== 'purchase' || e.sessionId === null || !recommendedIds.has(e.sessionId)) continue;
    if (e.orderId === null || e.lineItemId === null) throw new Error('reference: a purchase without its line');
    converted.add(e.sessionId);
    purchased.add(lineKey(e.orderId, e.lineItemId));
  }

  const linesWith = (type: string, reason: 'size' | null): number => {
    const lines = new Set<string>();
    for (const e of observed) {
      if (e.type !== type || e.orderId === null || e.lineItemId === null) continue;
      if (reason !== null && e.reason !== reason) continue;
      const key = lineKey(e.orderId, e.lineItemId);
      if (purchased.has(key)) lines.add(key);
    }
    return lines.size;
  };

  const counts: Counts = {
    started_sessions: cohort.length,
    recommended_sessions: recommended.length,
    accepted_sessions: cohort.filter((s) => s.stage === 'accepted').length,
    overridden_sessions: cohort.filter((s) => s.stage === 'overridden').length,
    converted_sessions: converted.size,
    purchased_lines: purchased.size,
    size_returned_lines: linesWith('return_requested', 'size'),
    kept_lines: linesWith('item_kept', null),
    size_exchanged_lines: linesWith('size_exchange', 'size'),
  };
  return { counts, rates: ratesOf(counts) };
}

/** The UTC days that [from, to) touches, each with its part of the range: `date` is `YYYY-MM-DD`. */
export function referenceDays(from: number, to: number): { date: string; from: number; to: number }[] {
  const days: { date: string; from: number; to: number }[] = [];
  for (let start = Math.floor(from / DAY_MS) * DAY_MS; start < to; start += DAY_MS) {
    days.push({
      date: new Date(start).toISOString().slice(0, 10),
      from: Math.max(from, start),
      to: Math.min(to, start + DAY_MS),
    });
  }
  return days;
}
