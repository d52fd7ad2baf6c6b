/**
 * What a rental tells the store after the fact, for `npm run eval:outcomes`: an order line (its purchase) and its
 * outcome, as events (`POST …/events/batch`) or as lines of the order-history import (`POST …/order-history`). A fit
 * verdict is an item kept; "small" a return for size the customer said was too small; "large" one too large.
 */
import type { Verdict } from './rtr.js';
import { chunks, mapLimit } from './sim-api.js';
import type { OutcomeApi } from './outcome-api.js';

/** The events' `source`. */
const SOURCE = 'rtr-replay';
/** The largest batch the events route takes. */
const EVENT_BATCH = 500;
/** The most lines one import request may hold. */
export const IMPORT_LINES = 1000;

/** One rental as an order line of the store. */
export interface LineOf {
  /** Unique per rental: the order and line item ids derive from it. */
  readonly key: string;
  readonly productId: string;
  readonly variantId: string;
  readonly shopperRef: string;
  readonly verdict: Verdict;
  readonly purchasedAt: Date;
  readonly outcomeAt: Date;
  /** The fit session the purchase came from. */
  readonly sessionId?: string;
}

type Fields = Record<string, string>;

/** The outcome's type and what it says: kept, or returned for size in the direction the customer gave. */
export function outcomeOf(verdict: Verdict): Fields {
  if (verdict === 'fit') return { type: 'item_kept' };
  return { type: 'return_requested', reason: 'size', fit_feedback: verdict === 'small' ? 'too_small' : 'too_large' };
}

/** The line's purchase and outcome events. */
export function lineEvents(line: LineOf): [Fields, Fields] {
  const common = {
    source: SOURCE,
    product_id: line.productId,
    variant_id: line.variantId,
    order_id: `order-${line.key}`,
    line_item_id: `line-${line.key}`,
  };
  const purchase: Fields = {
    ...common,
    external_id: `${line.key}/purchase`,
    type: 'purchase',
    occurred_at: line.purchasedAt.toISOString(),
    ...(line.sessionId ? { session_id: line.sessionId } : {}),
  };
  const outcome: Fields = {
    ...common,
    external_id: `${line.key}/outcome`,
    ...outcomeOf(line.verdict),
    occurred_at: line.outcomeAt.toISOString(),
  };
  return [purchase, outcome];
}

/** The line as the order-history import takes it. */
export function importLine(line: LineOf): Record<string, unknown> {
  return {
    order_id: `order-${line.key}`,
    line_item_id: `line-${line.key}`,
    product_id: line.productId,
    variant_id: line.variantId,
    shopper_ref: line.shopperRef,
    purchased_at: line.purchasedAt.toISOString(),
    outcome: { ...outcomeOf(line.verdict), occurred_at: line.outcomeAt.toISOString() },
  };
}

/** Events sent, by what the service answered: `201`, `200`, or the refusal's first field error code (`400 too_old`). */
export type Tally = Record<string, number>;

const count = (tally: Tally, key: string, n = 1) => (tally[key] = (tally[key] ?? 0) + n);

interface BatchResult {
  readonly status: number;
  readonly error?: { readonly code?: string; readonly errors?: readonly { readonly field?: string; readonly code?: string }[] };
}

/** Why an event was refused, as a short key: its status and its first field error's code, else the problem's code. */
export function refusalKey(r: BatchResult): string {
  if (r.status === 200 || r.status === 201) return String(r.status);
  const first = r.error?.errors?.[0];
  return `${r.status} ${first ? `${first.field ?? ''} ${first.code ?? ''}`.trim() : (r.error?.code ?? '')}`.trim();
}

/**
 * Sends lines' events in batches, `concurrency` batches at once (a line's two events in one batch, purchase first),
 * and tallies what the service answered for each event. Returns the milliseconds of each batch.
 */
export async function sendLineEvents(
  api: OutcomeApi,
  storeId: string,
  lines: readonly LineOf[],
  concurrency: number,
  tally: Tally,
): Promise<number[]> {
  const batches = chunks(
    lines.flatMap((line) => lineEvents(line)),
    EVENT_BATCH,
  );
  return mapLimit(batches, concurrency, async (events) => {
    const answer = await api.call<{ results: BatchResult[] }>('POST', `/v1/stores/${storeId}/events/batch`, { events });
    if (answer.status !== 200) throw new Error(`events batch: ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`);
    for (const r of answer.body.results) count(tally, refusalKey(r));
    return answer.ms;
  });
}

/** What the import answered, summed over its requests. */
export interface ImportTally {
  requests: number;
  received: number;
  learned: number;
  replaced: number;
  unchanged: number;
  /** Lines ignored, by the reason the service gave. */
  ignored: Record<string, number>;
  /** Lines per request: IMPORT_LINES, or fewer if the service refused a request as too large. */
  linesPerRequest: number;
  ms: number[];
}

export const emptyImportTally = (): ImportTally => ({
  requests: 0,
  received: 0,
  learned: 0,
  replaced: 0,
  unchanged: 0,
  ignored: {},
  linesPerRequest: IMPORT_LINES,
  ms: [],
});

/** Why an ignored line was ignored, as a short key, whatever shape the service gives it. */
function ignoredKey(item: unknown): string {
  if (item && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    for (const k of ['reason', 'code', 'error']) if (typeof o[k] === 'string') return o[k];
    const errors = o.errors;
    if (Array.isArray(errors) && errors[0] && typeof errors[0] === 'object') {
      const e = errors[0] as Record<string, unknown>;
      return `${String(e.field ?? '')} ${String(e.code ?? '')}`.trim();
    }
  }
  return 'unstated';
}

/** The path of the import route, which answers 404 while it does not exist. */
export const importPath = (storeId: string) => `/v1/stores/${storeId}/order-history`;

/**
 * Posts lines to the order-history import, in date order, one request at a time (a returning shopper's share of an
 * outcome is measured against what her products had learned by then). A request refused as too large is split in two.
 */
export async function importLines(api: OutcomeApi, storeId: string, lines: readonly LineOf[], tally: ImportTally): Promise<void> {
  let at = 0;
  while (at < lines.length) {
    const piece = lines.slice(at, at + tally.linesPerRequest);
    const answer = await api.call<Record<string, unknown>>('POST', importPath(storeId), { lines: piece.map(importLine) });
    if (answer.status === 413 && tally.linesPerRequest > 1) {
      tally.linesPerRequest = Math.ceil(tally.linesPerRequest / 2);
      continue;
    }
    if (answer.status !== 200) throw new Error(`order-history import: ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`);
    const b = answer.body;
    tally.requests++;
    tally.ms.push(answer.ms);
    for (const k of ['received', 'learned', 'replaced', 'unchanged'] as const) if (typeof b[k] === 'number') tally[k] += b[k];
    if (Array.isArray(b.ignored)) for (const item of b.ignored) count(tally.ignored, ignoredKey(item));
    at += piece.length;
  }
}
