/**
 * One shopper's path through the API, as an integration sends it: a fit session (answers: height, weight, age, sex; never
 * waist or hip, which the engine estimates), her decision, then the order line's events: the purchase naming the
 * session, and the outcome with the same order line, dated now.
 */
import type { Api } from './sim-api.js';
import { chunks } from './sim-api.js';
import type { Outcome } from './sim-shopper.js';
import type { SimProduct } from './sim-store.js';

/** What a shopper tells the fit session. */
export interface Answers {
  readonly heightCm: number;
  readonly weightKg: number;
  readonly age: number;
  readonly sex: 'female' | 'male';
}

/** The parts of a recommendation the simulation scores. */
export interface Recommended {
  readonly sessionId: string;
  readonly sizeLabel: string;
  readonly confidence: number;
  /** What the stated chart answers without the learned offset: the engine that never learns. */
  readonly chartSizeLabel: string;
}

interface SessionBody {
  readonly id: string;
  readonly recommendation: {
    readonly size_label: string;
    readonly confidence: number;
    readonly adjustment: { readonly chart_size_label: string };
  } | null;
}

/** Starts a session on the product and answers it. */
export async function recommendFor(api: Api, storeId: string, productId: string, a: Answers): Promise<Recommended> {
  const sessions = `/v1/stores/${storeId}/sessions`;
  const started = await api.post<SessionBody>(sessions, { product_id: productId });
  const answered = await api.post<SessionBody>(`${sessions}/${started.id}/answers`, {
    answers: { height: { value: a.heightCm, unit: 'cm' }, weight: { value: a.weightKg, unit: 'kg' }, age: a.age, sex: a.sex },
  });
  const r = answered.recommendation;
  if (r === null) throw new Error(`session ${started.id}: answered without a recommendation`);
  return { sessionId: started.id, sizeLabel: r.size_label, confidence: r.confidence, chartSizeLabel: r.adjustment.chart_size_label };
}

export async function decide(api: Api, storeId: string, sessionId: string, sizeLabel: string): Promise<void> {
  await api.post(`/v1/stores/${storeId}/sessions/${sessionId}/decision`, { size_label: sizeLabel });
}

/** An order line bought after a session: what its events share. */
export interface OrderLine {
  readonly product: SimProduct;
  readonly sessionId: string;
  readonly bought: number;
  /** A unique name for the line (order, line item and delivery ids derive from it). */
  readonly key: string;
}

type EventBody = Record<string, string>;

const SOURCE = 'simulation';

function lineFields(line: OrderLine): EventBody {
  return {
    source: SOURCE,
    product_id: line.product.id,
    variant_id: line.product.variants[line.bought],
    order_id: `order-${line.key}`,
    line_item_id: `line-${line.key}`,
    occurred_at: new Date().toISOString(),
  };
}

export function purchaseEvent(line: OrderLine): EventBody {
  return { ...lineFields(line), external_id: `purchase-${line.key}`, type: 'purchase', session_id: line.sessionId };
}

/** The outcome's event: kept, or a return or exchange for size with what the shopper said. */
export function outcomeEvent(line: OrderLine, outcome: Outcome): EventBody {
  const base = { ...lineFields(line), external_id: `outcome-${line.key}` };
  if (outcome.kind === 'kept') return { ...base, type: 'item_kept' };
  const feedback: EventBody = outcome.feedback === null ? {} : { fit_feedback: outcome.feedback };
  if (outcome.kind === 'return') return { ...base, type: 'return_requested', reason: 'size', ...feedback };
  const named: EventBody = outcome.newSize === null ? {} : { new_variant_id: line.product.variants[outcome.newSize] };
  return { ...base, type: 'size_exchange', reason: 'size', ...feedback, ...named };
}

/** The largest batch the events route takes. */
const BATCH = 500;

/** Sends events in batches, in order; any event the service refuses stops the run. */
export async function sendEvents(api: Api, storeId: string, events: readonly EventBody[]): Promise<void> {
  for (const batch of chunks(events, BATCH)) {
    const answer = await api.post<{ results: { status: number; error?: unknown }[] }>(`/v1/stores/${storeId}/events/batch`, {
      events: batch,
    });
    const refused = answer.results.findIndex((r) => r.status !== 201);
    if (refused >= 0) throw new Error(`event ${JSON.stringify(batch[refused])} refused: ${JSON.stringify(answer.results[refused])}`);
  }
}

/** What the service learned about a product (`GET …/fit`). */
export interface Learned {
  readonly size_steps: number;
  readonly sd: number;
  readonly low: number;
  readonly high: number;
  readonly outcomes: number;
}

export async function learnedFit(api: Api, storeId: string, productId: string): Promise<Learned> {
  return (await api.get<{ learned: Learned }>(`/v1/stores/${storeId}/products/${productId}/fit`)).learned;
}
