/**
 * One held-out rental lived through the API as a store's backend would: a fit session named for the customer, her
 * answers, the decision for the size she rented. What the service answered is kept for scoring, with how long each
 * call took. Answers the service cannot recommend from (400 `needed_for_recommendation`) leave the rental without an
 * answer; its purchase and outcome are still sent, without the session.
 */
import type { OutcomeApi } from './outcome-api.js';
import { type Listed, sizeDistribution } from './outcome-score.js';

interface Recommendation {
  readonly size_label: string;
  readonly confidence: number;
  readonly alternatives: readonly { readonly size_label: string; readonly confidence: number }[];
  readonly outcomes?: readonly {
    readonly size_label: string;
    readonly too_small: number;
    readonly fit: number;
    readonly too_large: number;
  }[];
  readonly model_version: string;
  readonly adjustment: {
    readonly source: string;
    readonly size_steps: number;
    readonly sd: number | null;
    readonly evidence: number;
    readonly chart_size_label: string;
    readonly shopper_steps: number | null;
  } | null;
}

interface Problem {
  readonly code?: string;
  readonly errors?: readonly { readonly field?: string; readonly code?: string }[];
}

export interface LiveAnswer {
  readonly sessionId: string;
  /** The answer's probability of every chart size (labels' order). */
  readonly distribution: readonly number[];
  /** What each chart size (labels' order) is likely to turn out as, should she take it: [small, fit, large]; null when not given. */
  readonly outcomes: readonly (readonly [number, number, number])[] | null;
  readonly recommended: number;
  readonly confidence: number;
  /** What moved the stated chart's answer: the learned offset (product and shopper), in size steps. */
  readonly offsetSteps: number;
  readonly shopperSteps: number | null;
  /** The stated chart's answer for her body alone. */
  readonly chartSize: number;
}

export interface LiveResult {
  readonly sessionId: string;
  /** Null when the answers were refused. */
  readonly answer: LiveAnswer | null;
  /** Why the answers were refused: the codes and fields of the refusal. */
  readonly refused: string | null;
  readonly ms: { readonly session: number; readonly answers: number; readonly decision: number | null };
}

/** Why answers were refused, as a short key: `needed_for_recommendation: height, weight`. */
export function refusalOf(status: number, body: unknown): string {
  const p = (body ?? {}) as Problem;
  const errors = p.errors ?? [];
  if (errors.length === 0) return `${status} ${p.code ?? ''}`.trim();
  const byCode = new Map<string, string[]>();
  for (const e of errors) {
    const code = e.code ?? 'unstated';
    byCode.set(code, [...(byCode.get(code) ?? []), (e.field ?? '').replace(/^answers\./, '')]);
  }
  return [...byCode.entries()].map(([code, fields]) => `${code}: ${fields.sort().join(', ')}`).join('; ');
}

/** Reads a published recommendation into the sizes of the chart. */
export function readRecommendation(labels: readonly string[], r: Recommendation): Omit<LiveAnswer, 'sessionId'> {
  const listed: Listed[] = [
    { label: r.size_label, p: r.confidence },
    ...r.alternatives.map((a) => ({ label: a.size_label, p: a.confidence })),
  ];
  const recommended = labels.indexOf(r.size_label);
  return {
    distribution: sizeDistribution(labels, listed),
    outcomes: r.outcomes?.length ? labels.map((label) => outcomeAt(r, label)) : null,
    recommended,
    confidence: r.confidence,
    offsetSteps: r.adjustment?.size_steps ?? 0,
    shopperSteps: r.adjustment?.shopper_steps ?? null,
    chartSize: r.adjustment ? labels.indexOf(r.adjustment.chart_size_label) : recommended,
  };
}

/** The published outcome of the size `label`, as [small, fit, large]. */
function outcomeAt(r: Recommendation, label: string): readonly [number, number, number] {
  const o = r.outcomes?.find((x) => x.size_label === label);
  if (!o) throw new RangeError(`the answer gives no outcome for size ${label}`);
  return [o.too_small, o.fit, o.too_large];
}

/** The session, answers and decision of one rental. */
export async function liveRental(
  api: OutcomeApi,
  storeId: string,
  labels: readonly string[],
  rental: {
    readonly productId: string;
    readonly shopperRef: string;
    readonly answers: Record<string, unknown>;
    readonly rentedLabel: string;
  },
): Promise<LiveResult> {
  const sessions = `/v1/stores/${storeId}/sessions`;
  const started = await api.call<{ id: string }>('POST', sessions, { product_id: rental.productId, shopper_ref: rental.shopperRef });
  if (started.status !== 201) throw new Error(`session: ${started.status} ${JSON.stringify(started.body).slice(0, 600)}`);
  const sessionId = started.body.id;
  const answered = await api.call<{ recommendation: Recommendation | null }>('POST', `${sessions}/${sessionId}/answers`, {
    answers: rental.answers,
  });
  if (answered.status === 400) {
    return {
      sessionId,
      answer: null,
      refused: refusalOf(answered.status, answered.body),
      ms: { session: started.ms, answers: answered.ms, decision: null },
    };
  }
  if (answered.status !== 200 || !answered.body.recommendation) {
    throw new Error(`answers: ${answered.status} ${JSON.stringify(answered.body).slice(0, 600)}`);
  }
  const decided = await api.call('POST', `${sessions}/${sessionId}/decision`, { size_label: rental.rentedLabel });
  if (decided.status !== 200) throw new Error(`decision: ${decided.status} ${JSON.stringify(decided.body).slice(0, 600)}`);
  return {
    sessionId,
    answer: { sessionId, ...readRecommendation(labels, answered.body.recommendation) },
    refused: null,
    ms: { session: started.ms, answers: answered.ms, decision: decided.ms },
  };
}
