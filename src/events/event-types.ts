/**
 * What each event type means, in one table: who sends it, whether it is about an order line (and so needs
 * `product_id`, `variant_id`, `order_id` and `line_item_id`), whether it carries a `reason`, the outcome of its line it
 * sets (`order_lines`' column: for types with a reason, only for reason `size`), whether it names a size exchanged to,
 * and whether it buys the line. Every list and rule of events, their summaries and learning is read off it, and the
 * `CHECK` on `events.type` lists the same types (adding one: this table, a migration for the `CHECK`, and what the new
 * type's outcome means to learning in `learning/evidence-rules.ts`, if it has one).
 */
const TABLE = {
  fit_started: { sentBy: 'service' },
  fit_completed: { sentBy: 'service' },
  recommendation_generated: { sentBy: 'service' },
  recommendation_accepted: { sentBy: 'service' },
  recommendation_overridden: { sentBy: 'service' },
  fit_viewed: { sentBy: 'integration' },
  add_to_cart: { sentBy: 'integration' },
  checkout_started: { sentBy: 'integration' },
  purchase: { sentBy: 'integration', orderLine: true, buys: true },
  return_requested: { sentBy: 'integration', orderLine: true, reason: true, outcome: 'size_returned_at' },
  size_exchange: { sentBy: 'integration', orderLine: true, reason: true, outcome: 'size_exchanged_at', namesNewSize: true },
  item_kept: { sentBy: 'integration', orderLine: true, outcome: 'kept_at' },
} as const satisfies Record<string, EventTypeRules>;

interface EventTypeRules {
  readonly sentBy: 'service' | 'integration';
  readonly orderLine?: boolean;
  readonly reason?: boolean;
  readonly outcome?: LineOutcome;
  readonly namesNewSize?: boolean;
  readonly buys?: boolean;
}

/** The outcome an event sets on its order line: the column of `order_lines` (and `session_lines`) holding its time. */
type LineOutcome = 'size_returned_at' | 'kept_at' | 'size_exchanged_at';

export type EventType = keyof typeof TABLE;
type TypesSentBy<S> = { [T in EventType]: (typeof TABLE)[T]['sentBy'] extends S ? T : never }[EventType];
export type ServiceEventType = TypesSentBy<'service'>;
export type IntegrationEventType = TypesSentBy<'integration'>;

const rules = (type: string): EventTypeRules | undefined => (TABLE as Record<string, EventTypeRules>)[type];
const typesWhere = (test: (rules: EventTypeRules) => boolean | undefined) =>
  (Object.keys(TABLE) as EventType[]).filter((type) => test(TABLE[type]));

export const EVENT_TYPES: readonly EventType[] = Object.keys(TABLE) as EventType[];
/** Types the service records itself, in the transaction of the session change that causes them. */
export const SERVICE_EVENT_TYPES = typesWhere((r) => r.sentBy === 'service') as readonly ServiceEventType[];
/** Types an integration sends to the events endpoint. */
export const INTEGRATION_EVENT_TYPES = typesWhere((r) => r.sentBy === 'integration') as readonly IntegrationEventType[];
/** The types about one order line: they need product_id, variant_id, order_id and line_item_id. */
export const ORDER_OUTCOME_TYPES: readonly string[] = typesWhere((r) => r.orderLine);
/** The types that carry a reason. */
export const REASON_TYPES: readonly string[] = typesWhere((r) => r.reason);
/** The types that buy an order line. */
export const BUYING_TYPES: readonly string[] = typesWhere((r) => r.buys);
/** The types that may name the size exchanged to (`new_variant_id`). */
export const NEW_SIZE_TYPES: readonly string[] = typesWhere((r) => r.namesNewSize);

/** Whether the event buys its order line. */
export const buysLine = (event: { readonly type: string }): boolean => rules(event.type)?.buys === true;

/**
 * The outcome an event sets on its order line, or null: a kept item, and a return or exchange for size (one for
 * another reason is no outcome of fit). The same events are the ones learning reads for what they say about fit.
 */
export function lineOutcome(event: { readonly type: string; readonly reason: string | null }): LineOutcome | null {
  const r = rules(event.type);
  if (r?.outcome === undefined) return null;
  return !r.reason || event.reason === 'size' ? r.outcome : null;
}

/** The types, as a SQL list of literals (`'purchase', …`) for the statements that filter on them. */
export const sqlTypes = (types: readonly string[]): string => types.map((type) => `'${type.replace(/'/g, "''")}'`).join(', ');

/** `lineOutcome(e) = outcome` as a SQL condition on the events table aliased `e`. */
export function sqlOutcome(outcome: LineOutcome, e = 'e'): string {
  const setting = typesWhere((r) => r.outcome === outcome);
  const always = setting.filter((type) => !rules(type)?.reason);
  const forSize = setting.filter((type) => rules(type)?.reason);
  const terms = [
    ...(always.length ? [`${e}.type IN (${sqlTypes(always)})`] : []),
    ...(forSize.length ? [`(${e}.type IN (${sqlTypes(forSize)}) AND ${e}.reason = 'size')`] : []),
  ];
  return terms.length ? `(${terms.join(' OR ')})` : 'false';
}
