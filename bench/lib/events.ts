/**
 * The single events the benches send, by kind, as JSON text made fresh for every request (a new delivery key each
 * time; a purchase gets an order of its own). Each kind takes another path through the service
 * (src/events/events.service.ts), which the floor (bench/floor.ts) repeats with the same statements:
 *
 *   add_to_cart           names nothing (the bench's original event: batches, scale-out, bench:compare by default)
 *   fit_viewed            names nothing: one INSERT … ON CONFLICT, autocommitted
 *   add_to_cart_product   names the product: one autocommitted statement that reads it FOR KEY SHARE and inserts the
 *                         event only if it is the store's (EventsRepository.insertAlone)
 *   purchase_line         names product, variant, order and line item: the same statement, which also checks the
 *                         variant is the product's and gives the order line its row in order_lines
 *   purchase_session      the same and its fit session: a transaction (product, variant and session read FOR KEY
 *                         SHARE, the event, then the line summaries: order_lines, session_lines, shared links,
 *                         sessions.first_purchased_at)
 *
 * `occurred_at` is the instant the factory was made, after the bench store's sessions were started, so that a
 * purchase never predates its session.
 */
import type { BenchStore } from './fixtures.js';

export const EVENT_KINDS = ['add_to_cart', 'fit_viewed', 'add_to_cart_product', 'purchase_line', 'purchase_session'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The kinds part 1 of `npm run bench` measures, in the order it runs them. */
export const INGEST_KINDS: readonly EventKind[] = ['fit_viewed', 'add_to_cart_product', 'purchase_line', 'purchase_session'];

/** What the service and the floor do for one event of the kind, in words (for the results). */
export const KIND_WORK: Readonly<Record<EventKind, string>> = {
  add_to_cart: 'names nothing: one autocommitted statement inserting the event',
  fit_viewed: 'names nothing: one autocommitted statement inserting the event',
  add_to_cart_product: 'names the product: one autocommitted statement reading it FOR KEY SHARE and inserting the event',
  purchase_line:
    'names product, variant, order and line item: one autocommitted statement reading product and variant FOR KEY SHARE, ' +
    'inserting the event and its order line',
  purchase_session:
    'a purchase naming its fit session: BEGIN, product/variant/session read FOR KEY SHARE, the event, order_lines, ' +
    'session_lines, shared links, sessions.first_purchased_at, COMMIT',
};

/** Whether events of the kind name nothing in the store (the only kind the floor takes in batches). */
export const namesNothing = (kind: EventKind): boolean => kind === 'add_to_cart' || kind === 'fit_viewed';

/** The kinds named in `text` (comma-separated), checked against `allowed`. */
export function parseKinds(text: string, allowed: readonly EventKind[] = EVENT_KINDS): EventKind[] {
  const kinds = text.split(',').filter(Boolean);
  for (const k of kinds) if (!(allowed as readonly string[]).includes(k)) throw new Error(`unknown event kind ${k}: ${allowed.join(', ')}`);
  if (!kinds.length) throw new Error(`name at least one event kind: ${allowed.join(', ')}`);
  return kinds as EventKind[];
}

export interface EventFactory {
  /** The next event, as a request body. */
  readonly one: () => string;
  /** The next `size` events, as a batch's request body. */
  readonly batch: (size: number) => string;
}

/** Events of `kind` from `source` in the bench store, with external ids `<runId>-<n>`. */
export function eventFactory(
  kind: EventKind,
  bench: Pick<BenchStore, 'productId' | 'variantIds' | 'sessionIds'>,
  source: string,
  runId: string,
): EventFactory {
  let n = 0;
  const occurredAt = new Date().toISOString();
  const product = `"product_id":"${bench.productId}"`;
  // Each purchase buys one size of the product in an order of its own; the order id carries the source, so that the
  // service's and the floor's lines never meet (which would make one of them mark links shared).
  const line = (i: number) =>
    `${product},"variant_id":"${bench.variantIds[i % bench.variantIds.length]}","order_id":"${source}-${runId}-${i}","line_item_id":"1"`;
  const fields: Record<EventKind, (i: number) => string> = {
    add_to_cart: () => '"type":"add_to_cart"',
    fit_viewed: () => '"type":"fit_viewed"',
    add_to_cart_product: () => `"type":"add_to_cart",${product}`,
    purchase_line: (i) => `"type":"purchase",${line(i)}`,
    purchase_session: (i) => `"type":"purchase",${line(i)},"session_id":"${bench.sessionIds[i % bench.sessionIds.length]}"`,
  };
  const pick = fields[kind];
  const one = () => {
    const i = n++;
    return `{"source":"${source}","external_id":"${runId}-${i}",${pick(i)},"occurred_at":"${occurredAt}"}`;
  };
  return { one, batch: (size) => `{"events":[${Array.from({ length: size }, one).join(',')}]}` };
}
