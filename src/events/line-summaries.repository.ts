import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import { type LinkedLine, lineKey, type OrderLineState, type WaitingChange } from '../learning/order-lines.js';
import type { FitEvent } from './event.entity.js';
import { buysLine, lineOutcome } from './event-types.js';

/** The earliest outcome of each kind seen for one order line (null: none yet), and its first purchase's variant. */
interface LineOutcomes {
  orderId: string;
  lineItemId: string;
  sizeReturnedAt: Date | null;
  keptAt: Date | null;
  sizeExchangedAt: Date | null;
  purchase: { variantId: string | null; at: Date } | null;
}

/** What summing up events did to their order lines: each touched line's state, and the lines newly linked to sessions. */
interface SummedLines {
  readonly lines: ReadonlyMap<string, OrderLineState>;
  readonly linked: readonly LinkedLine[];
}

const earliest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a <= b ? a : b);
const byKey = <T>(entries: Map<string, T>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** What the summaries need of a session a purchase names, read under a `FOR KEY SHARE` lock. */
export interface LinkedSession {
  readonly createdAt: Date;
  readonly recommended: boolean;
  /** Its decision was for another size than the one recommended (a lesson of the line bought after it). */
  readonly overridden: boolean;
}

/**
 * Whether storing the event changes no summary but its own order line's row (created if new, its times unchanged):
 * no purchase linking a session, no outcome to copy to links. Such an event needs no transaction of its own.
 */
export const touchesOnlyItsLine = (event: Pick<FitEvent, 'type' | 'reason' | 'sessionId'>): boolean =>
  !(buysLine(event) && event.sessionId !== null) && lineOutcome(event) === null;

/** The field of `LineOutcomes` holding each outcome's time. */
const OUTCOME_FIELD = { size_returned_at: 'sizeReturnedAt', kept_at: 'keptAt', size_exchanged_at: 'sizeExchangedAt' } as const;

/** Touched lines into `order_lines`, each outcome time the earliest seen, the first purchase's variant kept. */
const UPSERT_ORDER_LINES = prepared<{
  order_id: string;
  line_item_id: string;
  size_returned_at: Date | null;
  kept_at: Date | null;
  size_exchanged_at: Date | null;
  purchased_variant_id: string | null;
  lesson_waiting: boolean;
}>(
  'line-summaries.upsert-order-lines',
  `INSERT INTO order_lines AS l (store_id, order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at,
                                 purchased_variant_id)
     SELECT $1, t.* FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::uuid[])
       AS t(order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at, purchased_variant_id)
     ON CONFLICT (store_id, order_id, line_item_id) DO UPDATE SET
       size_returned_at = LEAST(l.size_returned_at, EXCLUDED.size_returned_at),
       kept_at = LEAST(l.kept_at, EXCLUDED.kept_at),
       size_exchanged_at = LEAST(l.size_exchanged_at, EXCLUDED.size_exchanged_at),
       purchased_variant_id = coalesce(l.purchased_variant_id, EXCLUDED.purchased_variant_id)
     RETURNING l.order_id, l.line_item_id, l.size_returned_at, l.kept_at, l.size_exchanged_at, l.purchased_variant_id,
               l.lesson_waiting`,
);

/** Lines locked, with their state (`LineState`), in the order of their keys. */
const LOCK_LINES = prepared<{ order_id: string; line_item_id: string; purchased_variant_id: string | null; lesson_waiting: boolean }>(
  'line-summaries.lock-lines',
  `SELECT l.order_id, l.line_item_id, l.purchased_variant_id, l.lesson_waiting
     FROM order_lines l JOIN unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
       ON l.order_id = t.order_id AND l.line_item_id = t.line_item_id
    WHERE l.store_id = (SELECT $1::uuid)
    ORDER BY l.order_id, l.line_item_id
      FOR UPDATE OF l`,
);

/** Lines whose outcome now waits, or no longer waits, for their purchase. */
const SET_WAITING = prepared<never>(
  'line-summaries.set-waiting',
  `UPDATE order_lines AS l SET lesson_waiting = t.waiting
     FROM unnest($2::text[], $3::text[], $4::boolean[]) AS t(order_id, line_item_id, waiting)
    WHERE l.store_id = (SELECT $1::uuid) AND l.order_id = t.order_id AND l.line_item_id = t.line_item_id`,
);

/** Lines linked to the sessions their purchases name, with the line's outcome times. */
const LINK_SESSIONS = prepared<never>(
  'line-summaries.link-sessions',
  `INSERT INTO session_lines AS s (store_id, session_id, order_id, line_item_id, session_created_at,
                                       session_recommended, purchased_at, size_returned_at, kept_at, size_exchanged_at)
       SELECT $1, t.* FROM unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::boolean[],
                                  $7::timestamptz[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])
         AS t(session_id, order_id, line_item_id, session_created_at, session_recommended, purchased_at,
              size_returned_at, kept_at, size_exchanged_at)
       ON CONFLICT (store_id, session_id, order_id, line_item_id) DO UPDATE SET
         purchased_at = LEAST(s.purchased_at, EXCLUDED.purchased_at)`,
);

/** The links of lines that now have several sessions marked `shared`. */
const MARK_SHARED = prepared<never>(
  'line-summaries.mark-shared',
  `UPDATE session_lines AS s SET shared = true
         FROM (SELECT l.order_id, l.line_item_id
                 FROM session_lines l
                 JOIN unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
                   ON l.order_id = t.order_id AND l.line_item_id = t.line_item_id
                WHERE l.store_id = (SELECT $1::uuid)
                GROUP BY l.order_id, l.line_item_id
               HAVING count(*) > 1) AS m
        WHERE s.store_id = (SELECT $1::uuid) AND s.order_id = m.order_id AND s.line_item_id = m.line_item_id AND NOT s.shared`,
);

/** Changed outcome times copied to every session link of their line. */
const COPY_OUTCOMES = prepared<never>(
  'line-summaries.copy-outcomes',
  `UPDATE session_lines AS s
          SET size_returned_at = t.size_returned_at, kept_at = t.kept_at, size_exchanged_at = t.size_exchanged_at
         FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[])
           AS t(order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at)
        WHERE s.store_id = (SELECT $1::uuid) AND s.order_id = t.order_id AND s.line_item_id = t.line_item_id`,
);

/** `first_purchased_at` of the sessions purchases name moved to the earliest. */
const FIRST_PURCHASES = prepared<never>(
  'line-summaries.first-purchases',
  `UPDATE fit_session_purchases AS s SET first_purchased_at = t.at
         FROM unnest($2::uuid[], $3::timestamptz[]) AS t(id, at)
        WHERE s.store_id = (SELECT $1::uuid) AND s.id = t.id AND (s.first_purchased_at IS NULL OR s.first_purchased_at > t.at)`,
);

/** A session's links start counting once it has recommended. */
const MARK_RECOMMENDED = prepared<never>(
  'line-summaries.mark-recommended',
  `UPDATE session_lines SET session_recommended = true
      WHERE store_id = (SELECT $1::uuid) AND session_id = $2 AND NOT session_recommended`,
);

/** A line linked to the session its purchase names, at the time of its earliest purchase naming it. */
interface Link extends LinkedLine {
  readonly purchasedAt: Date;
}

/**
 * What events change in their order lines, before any statement: each touched line with its earliest outcome times and
 * first purchase, the links purchases make to sessions (the earliest for each), and the lines whose outcome times moved.
 */
function summarise(events: readonly FitEvent[]): { touched: Map<string, LineOutcomes>; links: Map<string, Link>; changed: Set<string> } {
  const touched = new Map<string, LineOutcomes>();
  const links = new Map<string, Link>();
  const changed = new Set<string>();
  for (const event of events) {
    if (event.orderId === null || event.lineItemId === null) continue;
    const [orderId, lineItemId, at] = [event.orderId, event.lineItemId, event.occurredAt];
    const key = lineKey(orderId, lineItemId);
    const line = touched.get(key) ?? { orderId, lineItemId, sizeReturnedAt: null, keptAt: null, sizeExchangedAt: null, purchase: null };
    const outcome = lineOutcome(event);
    if (buysLine(event)) {
      if (line.purchase === null || at < line.purchase.at) line.purchase = { variantId: event.variantId, at };
      const linkKey = JSON.stringify([event.sessionId, orderId, lineItemId]);
      const link = links.get(linkKey);
      if (event.sessionId !== null && (!link || at < link.purchasedAt)) {
        links.set(linkKey, { sessionId: event.sessionId, orderId, lineItemId, purchasedAt: at });
      }
    } else if (outcome !== null) {
      line[OUTCOME_FIELD[outcome]] = earliest(line[OUTCOME_FIELD[outcome]], at);
      changed.add(key);
    } else {
      continue;
    }
    touched.set(key, line);
  }
  return { touched, links, changed };
}

/** The metrics' summaries of order lines: `order_lines`, `session_lines` and `sessions.first_purchased_at`. */
@Injectable()
export class LineSummariesRepository {
  /**
   * Keeps `order_lines`, `session_lines` and `sessions.first_purchased_at` (see the migration that creates them) in
   * step with newly stored events, inside the transaction that stores them. At most five statements whatever the
   * number of events:
   *
   * 1. upsert every touched line into `order_lines`, taking the earliest outcome times. The upsert locks the line's
   *    row until commit, so events of one line are applied one transaction after the other; lines are locked in one
   *    global order (sorted), so two transactions cannot deadlock on them;
   * 2. link lines to the sessions their purchases name, copying the line's outcome times;
   * 3. mark the links of lines that now have several sessions as `shared`;
   * 4. copy changed outcome times to every session link of the line;
   * 5. move `first_purchased_at` of the sessions purchases name (sorted by id, after every line lock).
   */
  async recordLineOutcomes(
    manager: EntityManager,
    store: Store,
    events: readonly FitEvent[],
    sessions: ReadonlyMap<string, LinkedSession>,
  ): Promise<SummedLines> {
    const { touched, links, changed } = summarise(events);
    if (!touched.size) return { lines: new Map(), linked: [] };
    const { current, states } = await this.upsertLines(manager, store, touched);
    if (links.size) await this.linkSessions(manager, store, byKey(links), current, sessions);
    if (changed.size)
      await this.copyOutcomes(
        manager,
        store,
        [...changed].sort().map((key) => current.get(key) as LineOutcomes),
      );
    if (links.size) await this.moveFirstPurchases(manager, store, [...links.values()]);
    return { lines: states, linked: [...links.values()] };
  }

  /** 1: the touched lines upserted, each with its outcome times and state as they stand now, under its lock. */
  private async upsertLines(
    manager: EntityManager,
    store: Store,
    touched: Map<string, LineOutcomes>,
  ): Promise<{ current: Map<string, LineOutcomes>; states: Map<string, OrderLineState> }> {
    const lines = byKey(touched);
    const upserted = await run(manager, UPSERT_ORDER_LINES, [
      store.id,
      lines.map((l) => l.orderId),
      lines.map((l) => l.lineItemId),
      lines.map((l) => isoOrNull(l.sizeReturnedAt)),
      lines.map((l) => isoOrNull(l.keptAt)),
      lines.map((l) => isoOrNull(l.sizeExchangedAt)),
      lines.map((l) => l.purchase?.variantId ?? null),
    ]);
    const current = new Map<string, LineOutcomes>();
    const states = new Map<string, OrderLineState>();
    for (const row of upserted) {
      const [orderId, lineItemId] = [row.order_id, row.line_item_id];
      const key = lineKey(orderId, lineItemId);
      current.set(key, {
        orderId,
        lineItemId,
        sizeReturnedAt: row.size_returned_at,
        keptAt: row.kept_at,
        sizeExchangedAt: row.size_exchanged_at,
        purchase: null,
      });
      states.set(key, { orderId, lineItemId, purchasedVariantId: row.purchased_variant_id, lessonWaiting: row.lesson_waiting });
    }
    return { current, states };
  }

  /** 2 and 3: lines linked to the sessions their purchases name, and the links of lines with several marked shared. */
  private async linkSessions(
    manager: EntityManager,
    store: Store,
    rows: readonly Link[],
    current: ReadonlyMap<string, LineOutcomes>,
    sessions: ReadonlyMap<string, LinkedSession>,
  ): Promise<void> {
    const outcomes = rows.map((link) => current.get(lineKey(link.orderId, link.lineItemId)) as LineOutcomes);
    const session = (id: string) => sessions.get(id) as LinkedSession;
    await run(manager, LINK_SESSIONS, [
      store.id,
      rows.map((r) => r.sessionId),
      rows.map((r) => r.orderId),
      rows.map((r) => r.lineItemId),
      rows.map((r) => session(r.sessionId).createdAt.toISOString()),
      rows.map((r) => session(r.sessionId).recommended),
      rows.map((r) => r.purchasedAt.toISOString()),
      outcomes.map((o) => isoOrNull(o.sizeReturnedAt)),
      outcomes.map((o) => isoOrNull(o.keptAt)),
      outcomes.map((o) => isoOrNull(o.sizeExchangedAt)),
    ]);
    const linked = [...new Set(rows.map((r) => lineKey(r.orderId, r.lineItemId)))].map((key) => current.get(key) as LineOutcomes);
    await run(manager, MARK_SHARED, [store.id, linked.map((l) => l.orderId), linked.map((l) => l.lineItemId)]);
  }

  /** 4: changed outcome times copied to every session link of their lines. */
  private async copyOutcomes(manager: EntityManager, store: Store, rows: readonly LineOutcomes[]): Promise<void> {
    await run(manager, COPY_OUTCOMES, [
      store.id,
      rows.map((r) => r.orderId),
      rows.map((r) => r.lineItemId),
      rows.map((r) => isoOrNull(r.sizeReturnedAt)),
      rows.map((r) => isoOrNull(r.keptAt)),
      rows.map((r) => isoOrNull(r.sizeExchangedAt)),
    ]);
  }

  /** 5: each linked session's first purchase moved to the earliest, sessions in the order of their ids. */
  private async moveFirstPurchases(manager: EntityManager, store: Store, links: readonly Link[]): Promise<void> {
    const firstPurchases = new Map<string, Date>();
    for (const link of links) {
      const known = firstPurchases.get(link.sessionId);
      if (!known || link.purchasedAt < known) firstPurchases.set(link.sessionId, link.purchasedAt);
    }
    const bySession = [...firstPurchases].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await run(manager, FIRST_PURCHASES, [store.id, bySession.map(([id]) => id), bySession.map(([, at]) => at.toISOString())]);
  }

  /** The lines locked `FOR UPDATE`, as a transaction that sums events up would find them. */
  async lockLines(
    manager: EntityManager,
    storeId: string,
    lines: readonly { orderId: string; lineItemId: string }[],
  ): Promise<Map<string, OrderLineState>> {
    const rows = await run(manager, LOCK_LINES, [storeId, lines.map((l) => l.orderId), lines.map((l) => l.lineItemId)]);
    return new Map(
      rows.map((row) => [
        lineKey(row.order_id, row.line_item_id),
        {
          orderId: row.order_id,
          lineItemId: row.line_item_id,
          purchasedVariantId: row.purchased_variant_id,
          lessonWaiting: row.lesson_waiting,
        },
      ]),
    );
  }

  /** Marks lines whose outcome waits for their purchase, or no longer does, in the transaction holding their rows. */
  async setWaiting(manager: EntityManager, storeId: string, lines: readonly WaitingChange[]): Promise<void> {
    if (!lines.length) return;
    await run(manager, SET_WAITING, [storeId, lines.map((l) => l.orderId), lines.map((l) => l.lineItemId), lines.map((l) => l.waiting)]);
  }

  /**
   * A session's first recommendation: its links to purchased lines start counting. Called by the session change in
   * its transaction, with the session row locked `FOR UPDATE`; ingestion locks a session it links `FOR KEY SHARE`, so
   * the two never interleave and a link never misses the mark.
   */
  async markSessionRecommended(manager: EntityManager, storeId: string, sessionId: string): Promise<void> {
    await run(manager, MARK_RECOMMENDED, [storeId, sessionId]);
  }
}
