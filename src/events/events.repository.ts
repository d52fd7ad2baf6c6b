import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page } from '../common/http/pagination.js';
import { queryInStore } from '../common/tenancy/store-scope.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import type { EventListQuery } from './dto/event.dto.js';
import { FitEvent } from './event.entity.js';
import { deliveryKey, type EventDraft } from './event-rules.js';
import { BUYING_TYPES, sqlTypes } from './event-types.js';
import type { LinkedSession } from './line-summaries.repository.js';

/** The store's rows that events name, read (and locked against deletion) in one query. */
export interface References {
  readonly products: ReadonlySet<string>;
  readonly variants: ReadonlyMap<string, string>;
  readonly sessions: ReadonlyMap<string, LinkedSession & { productId: string }>;
}

const EVENT_COLUMNS = `id, merchant_id, store_id, source, external_id, type, product_id, variant_id, session_id, order_id,
  line_item_id, reason, quantity, occurred_at, received_at, payload_sha256, fit_feedback, new_variant_id, shopper_digest`;

/** A row's values in the order of EVENT_COLUMNS ($1 to $19). */
const columnValues = (row: FitEvent) => [
  row.id,
  row.merchantId,
  row.storeId,
  row.source,
  row.externalId,
  row.type,
  row.productId,
  row.variantId,
  row.sessionId,
  row.orderId,
  row.lineItemId,
  row.reason,
  row.quantity,
  row.occurredAt.toISOString(),
  row.receivedAt.toISOString(),
  row.payloadSha256,
  row.fitFeedback,
  row.newVariantId,
  row.shopperDigest,
];

/** The products, variants and sessions of the store that events name, locked `FOR KEY SHARE` (see `loadReferences`). */
const LOAD_REFERENCES = prepared<{
  kind: 'product' | 'variant' | 'session';
  id: string;
  product_id: string | null;
  created_at: Date | null;
  recommended: boolean | null;
  overridden: boolean | null;
}>(
  'events.load-references',
  `WITH p AS (SELECT id FROM catalog_products WHERE store_id = (SELECT $1::uuid) AND id = ANY($2::uuid[]) FOR KEY SHARE),
          v AS (SELECT id, product_id FROM catalog_variants WHERE store_id = (SELECT $1::uuid) AND id = ANY($3::uuid[]) FOR KEY SHARE),
          s AS (SELECT id, product_id, created_at, recommended_at IS NOT NULL AS recommended,
                       outcome IS NOT DISTINCT FROM 'overridden' AS overridden
                  FROM fit_sessions WHERE store_id = (SELECT $1::uuid) AND id = ANY($4::uuid[]) FOR KEY SHARE)
     SELECT 'product' AS kind, id, NULL::uuid AS product_id, NULL::timestamptz AS created_at, NULL::boolean AS recommended,
            NULL::boolean AS overridden
       FROM p
     UNION ALL SELECT 'variant', id, product_id, NULL, NULL, NULL FROM v
     UNION ALL SELECT 'session', id, product_id, created_at, recommended, overridden FROM s`,
);

/** One event checked, inserted and summed up in one statement (see `insertAlone`). */
const INSERT_ALONE = prepared<{
  inserted: boolean;
  product: boolean;
  variant_product: string | null;
  session_product: string | null;
  session_created_at: Date | null;
  session_recommended: boolean | null;
  session_overridden: boolean | null;
  lesson_waiting: boolean;
}>(
  'events.insert-alone',
  `WITH p AS (SELECT id FROM catalog_products WHERE store_id = (SELECT $3::uuid) AND id = $7::uuid FOR KEY SHARE),
          v AS (SELECT product_id FROM catalog_variants WHERE store_id = (SELECT $3::uuid) AND id = $8::uuid FOR KEY SHARE),
          s AS (SELECT product_id, created_at, recommended_at IS NOT NULL AS recommended,
                       outcome IS NOT DISTINCT FROM 'overridden' AS overridden
                  FROM fit_sessions WHERE store_id = (SELECT $3::uuid) AND id = $9::uuid FOR KEY SHARE),
          e AS (INSERT INTO events (${EVENT_COLUMNS})
                SELECT $1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid, $9::uuid, $10, $11, $12, $13, $14::timestamptz, $15, $16,
                       $17, $18::uuid, $19::bytea
                 WHERE $20::boolean AND $18::uuid IS NULL
                   AND ($7::uuid IS NULL OR EXISTS (SELECT FROM p))
                   AND ($8::uuid IS NULL OR EXISTS (SELECT FROM v WHERE $7::uuid IS NULL OR v.product_id = $7::uuid))
                   AND ($9::uuid IS NULL OR EXISTS (SELECT FROM s WHERE s.product_id = coalesce($7::uuid, (SELECT product_id FROM v), s.product_id)
                                                       AND date_trunc('milliseconds', s.created_at) <= $14::timestamptz))
                ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
                RETURNING order_id, line_item_id, variant_id),
          l AS (INSERT INTO order_lines AS l (store_id, order_id, line_item_id, purchased_variant_id)
                SELECT $3, order_id, line_item_id, variant_id FROM e WHERE $6::text IN (${sqlTypes(BUYING_TYPES)})
                ON CONFLICT (store_id, order_id, line_item_id) DO UPDATE
                  SET purchased_variant_id = coalesce(l.purchased_variant_id, EXCLUDED.purchased_variant_id)
                RETURNING lesson_waiting)
     SELECT EXISTS (SELECT FROM e) AS inserted, EXISTS (SELECT FROM p) AS product,
            (SELECT product_id FROM v) AS variant_product, (SELECT product_id FROM s) AS session_product,
            (SELECT created_at FROM s) AS session_created_at, (SELECT recommended FROM s) AS session_recommended,
            (SELECT overridden FROM s) AS session_overridden, coalesce((SELECT lesson_waiting FROM l), false) AS lesson_waiting`,
);

/**
 * Rows of one store, received at one moment, as arrays of their columns: `$1` to `$3` the merchant, the store and
 * the moment, `$4` to `$19` one array per other column (`unnestValues`).
 */
const UNNEST_ROWS = `SELECT t.id, $1, $2, t.source, t.external_id, t.type, t.product_id, t.variant_id, t.session_id, t.order_id,
            t.line_item_id, t.reason, t.quantity, t.occurred_at, $3, decode(t.sha256, 'hex'), t.fit_feedback, t.new_variant_id,
            decode(t.shopper, 'hex')
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::text[],
                   $12::text[], $13::text[], $14::int[], $15::timestamptz[], $16::text[], $17::text[], $18::uuid[], $19::text[])
         AS t(id, source, external_id, type, product_id, variant_id, session_id, order_id, line_item_id, reason,
              quantity, occurred_at, sha256, fit_feedback, new_variant_id, shopper)`;

/** The values of `UNNEST_ROWS` for rows that share their merchant, store and moment of arrival. */
function unnestValues(rows: readonly FitEvent[]): unknown[] {
  const [first] = rows;
  if (rows.some((r) => r.storeId !== first.storeId || r.receivedAt.getTime() !== first.receivedAt.getTime())) {
    throw new Error('rows inserted together share their store and their moment of arrival');
  }
  const column = <T>(pick: (row: FitEvent) => T) => rows.map(pick);
  return [
    first.merchantId,
    first.storeId,
    first.receivedAt.toISOString(),
    column((r) => r.id),
    column((r) => r.source),
    column((r) => r.externalId),
    column((r) => r.type),
    column((r) => r.productId),
    column((r) => r.variantId),
    column((r) => r.sessionId),
    column((r) => r.orderId),
    column((r) => r.lineItemId),
    column((r) => r.reason),
    column((r) => r.quantity),
    column((r) => r.occurredAt.toISOString()),
    column((r) => r.payloadSha256?.toString('hex') ?? null),
    column((r) => r.fitFeedback),
    column((r) => r.newVariantId),
    column((r) => r.shopperDigest?.toString('hex') ?? null),
  ];
}

/** Rows whose delivery key is free. */
const INSERT_MANY = prepared<{ id: string }>(
  'events.insert-many',
  `INSERT INTO events (${EVENT_COLUMNS}) ${UNNEST_ROWS}
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
);

/** Rows as they are (the service's own events); a taken delivery key fails the statement. */
const INSERT_ALL = prepared<never>('events.insert-all', `INSERT INTO events (${EVENT_COLUMNS}) ${UNNEST_ROWS}`);

/** The store's events holding the given delivery keys, with their digests (`findStored`). */
const FIND_STORED = prepared<{
  id: string;
  merchant_id: string;
  store_id: string;
  source: string;
  external_id: string;
  type: FitEvent['type'];
  product_id: string | null;
  variant_id: string | null;
  session_id: string | null;
  order_id: string | null;
  line_item_id: string | null;
  reason: FitEvent['reason'];
  quantity: number | null;
  occurred_at: Date;
  received_at: Date;
  payload_sha256: Buffer | null;
  fit_feedback: FitEvent['fitFeedback'];
  new_variant_id: string | null;
  shopper_digest: Buffer | null;
}>(
  'events.find-stored',
  `SELECT ${EVENT_COLUMNS} FROM events
    WHERE merchant_id = (SELECT $1::uuid) AND store_id = (SELECT $2::uuid)
      AND (source, external_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
);

/** One row, if its delivery key is free. */
const INSERT_ONE = prepared<{ id: string }>(
  'events.insert-one',
  `INSERT INTO events (${EVENT_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
);

/** The `events` table, and the rows of the store that events name. */
@Injectable()
export class EventsRepository {
  constructor(@InjectRepository(FitEvent) private readonly stored: Repository<FitEvent>) {}

  /**
   * For each type: when the store's latest event of it arrived (since `since`, else null) and how many arrived from
   * `today` on. Ids are UUIDv7, so a time is an id bound and each read walks the `(store_id, id)` index from the newest.
   */
  async activity(
    store: Store,
    types: readonly string[],
    today: Date,
    since: Date,
  ): Promise<{ type: string; last_at: Date | null; today: number }[]> {
    const rows: { type: string; last_at: Date | string | null; today: string | number }[] = await this.stored.manager.query(
      `SELECT t.type,
              (SELECT e.received_at FROM events e WHERE e.store_id = $1 AND e.type = t.type AND e.id >= $3::uuid ORDER BY e.id DESC LIMIT 1) AS last_at,
              (SELECT count(*) FROM events e WHERE e.store_id = $1 AND e.type = t.type AND e.id >= $2::uuid) AS today
         FROM unnest($4::text[]) AS t(type)`,
      [store.id, idBound(today), idBound(since), types],
    );
    return rows.map((row) => ({ type: row.type, last_at: row.last_at === null ? null : new Date(row.last_at), today: Number(row.today) }));
  }

  /** A page of the store's events, newest first, filtered as the query asks. */
  list<T>(store: Store, query: EventListQuery, present: (event: FitEvent) => T): Promise<Page<T>> {
    const events = queryInStore(this.stored.manager, FitEvent, 'event', store);
    if (query.type) events.andWhere('event.type = :type', { type: query.type });
    if (query.source) events.andWhere('event.source = :source', { source: query.source });
    if (query.session_id) events.andWhere('event.session_id = :sessionId', { sessionId: query.session_id });
    if (query.order_id) events.andWhere('event.order_id = :orderId', { orderId: query.order_id });
    if (query.product_id) events.andWhere('event.product_id = :productId', { productId: query.product_id });
    return paginate(events, query, present);
  }

  /**
   * Reads the products, variants and sessions the drafts name, in one statement, locked `FOR KEY SHARE` until commit.
   * A concurrent delete of a product or variant either waits and then sees the new event (and archives instead), or
   * wins and the event is refused: never a broken foreign key. A session change (which locks the session `FOR
   * UPDATE`) either commits before, and its recommendation is seen here, or waits for this transaction's links.
   */
  async loadReferences(manager: EntityManager, store: Store, drafts: readonly EventDraft[]): Promise<References> {
    const ids = (pick: (d: EventDraft) => string | null) => [...new Set(drafts.map(pick).filter((id) => id !== null))];
    const productIds = ids((d) => d.productId);
    const variantIds = [...new Set([...ids((d) => d.variantId), ...ids((d) => d.newVariantId)])];
    const sessionIds = ids((d) => d.sessionId);
    const references = {
      products: new Set<string>(),
      variants: new Map<string, string>(),
      sessions: new Map<string, LinkedSession & { productId: string }>(),
    };
    if (!productIds.length && !variantIds.length && !sessionIds.length) return references;

    const rows = await run(manager, LOAD_REFERENCES, [store.id, productIds, variantIds, sessionIds]);
    for (const row of rows) {
      if (row.kind === 'product') references.products.add(row.id);
      else if (row.kind === 'variant') references.variants.set(row.id, row.product_id as string);
      else {
        references.sessions.set(row.id, {
          productId: row.product_id as string,
          createdAt: row.created_at as Date,
          recommended: row.recommended as boolean,
          overridden: row.overridden as boolean,
        });
      }
    }
    return references;
  }

  /**
   * One event whose only summary is its order line's row (see `touchesOnlyItsLine`), in one statement, atomic on its
   * own: the products, variants and sessions it names are read and locked `FOR KEY SHARE` as `loadReferences` locks
   * them for a transaction, the event is inserted only when `admissible` (the clock's rules hold), it names no
   * variant exchanged to (such events take the transaction's path) and what it names is the store's and agrees, and
   * a purchase's order line gets its row (as `recordLineOutcomes` gives it). No `BEGIN` and `COMMIT` round trips.
   * Returns whether it was inserted, and the references found, from which the caller words a refusal.
   */
  async insertAlone(
    store: Store,
    row: FitEvent,
    admissible: boolean,
  ): Promise<{ inserted: boolean; references: References; lessonWaiting: boolean }> {
    const [found] = await run(this.stored.manager, INSERT_ALONE, [...columnValues(row), admissible]);
    const references = {
      products: new Set<string>(found.product ? [row.productId as string] : []),
      variants: new Map<string, string>(found.variant_product ? [[row.variantId as string, found.variant_product]] : []),
      sessions: new Map<string, LinkedSession & { productId: string }>(
        found.session_product
          ? [
              [
                row.sessionId as string,
                {
                  productId: found.session_product,
                  createdAt: found.session_created_at as Date,
                  recommended: found.session_recommended as boolean,
                  overridden: found.session_overridden as boolean,
                },
              ],
            ]
          : [],
      ),
    };
    return { inserted: found.inserted, references, lessonWaiting: found.lesson_waiting };
  }

  /** Inserts the rows whose delivery key is free; returns the ids of those inserted. */
  async insertNew(manager: EntityManager, rows: readonly FitEvent[]): Promise<Set<string>> {
    if (!rows.length) return new Set();
    if (rows.length === 1) return this.insertOne(manager, rows[0]);
    const inserted = await run(manager, INSERT_MANY, unnestValues(rows));
    return new Set(inserted.map((row) => row.id));
  }

  /** One event: a plain VALUES row, which costs PostgreSQL less than the unnest form (a quarter of its CPU per event). */
  private async insertOne(manager: EntityManager, row: FitEvent): Promise<Set<string>> {
    const inserted = await run(manager, INSERT_ONE, columnValues(row));
    return new Set(inserted.map((r) => r.id));
  }

  /** The stored events holding the drafts' delivery keys, with their digests. */
  async findStored(
    manager: EntityManager,
    store: Store,
    drafts: readonly EventDraft[],
  ): Promise<Map<string, { event: FitEvent; sha256: Buffer | null }>> {
    const found = new Map<string, { event: FitEvent; sha256: Buffer | null }>();
    if (!drafts.length) return found;
    const rows = await run(manager, FIND_STORED, [
      store.merchantId,
      store.id,
      drafts.map((d) => d.source),
      drafts.map((d) => d.externalId),
    ]);
    for (const row of rows) {
      const event: FitEvent = {
        id: row.id,
        merchantId: row.merchant_id,
        storeId: row.store_id,
        source: row.source,
        externalId: row.external_id,
        type: row.type,
        productId: row.product_id,
        variantId: row.variant_id,
        sessionId: row.session_id,
        orderId: row.order_id,
        lineItemId: row.line_item_id,
        reason: row.reason,
        quantity: row.quantity,
        occurredAt: row.occurred_at,
        receivedAt: row.received_at,
        payloadSha256: row.payload_sha256,
        fitFeedback: row.fit_feedback,
        newVariantId: row.new_variant_id,
        shopperDigest: row.shopper_digest,
      };
      found.set(deliveryKey(event.source, event.externalId), { event, sha256: event.payloadSha256 });
    }
    return found;
  }

  /** Inserts events of one store and one moment as they are, in the caller's transaction; a taken key fails the statement. */
  async insert(manager: EntityManager, events: readonly FitEvent[]): Promise<void> {
    if (!events.length) return;
    await run(manager, INSERT_ALL, unnestValues(events));
  }

  /** The purchases naming a shopper's digest name `replacement` instead (her erasure). */
  async replaceShopper(manager: EntityManager, storeId: string, digest: Buffer, replacement: Buffer): Promise<void> {
    await manager.query(`UPDATE events SET shopper_digest = $3 WHERE store_id = $1 AND shopper_digest = $2`, [
      storeId,
      digest,
      replacement,
    ]);
  }

  /** Whether any event names the product (the catalog's delete-or-archive check, in its transaction). */
  namesProduct(manager: EntityManager, productId: string): Promise<boolean> {
    return manager.existsBy(FitEvent, { productId });
  }

  /** Whether any event names the variant, as its own or as the one exchanged to (the catalog's delete-or-archive check). */
  namesVariant(manager: EntityManager, variantId: string): Promise<boolean> {
    return manager.exists(FitEvent, { where: [{ variantId }, { newVariantId: variantId }] });
  }
}

/** The smallest UUIDv7 of the millisecond `at`: ids from then on sort at or after it. */
function idBound(at: Date): string {
  const hex = Math.max(0, at.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
