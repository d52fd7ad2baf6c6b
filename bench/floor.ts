/**
 * The floor of event ingestion: the least a server can do to store an event as the service does, with no framework
 * and no ORM. `node:http` + `pg`, one file. The bench (bench/run.ts) starts it as a child process on the same
 * database as the service and puts the same load on both; the service's figures are read against it.
 *
 * Per request, the same database work as `POST /v1/stores/{id}/events` (src/api-keys/api-keys.repository.ts,
 * src/events/events.service.ts, events.repository.ts, line-summaries.repository.ts), with the same statements, named
 * (prepared once per connection) as the service's are (src/database/statements.ts):
 *
 *   1. the bearer key looked up by its SHA-256 digest (active: not revoked, not expired), its scope and store checked
 *      (a store-bound key may only name its own store; the composite foreign key keeps that store in its merchant);
 *   2. the JSON body parsed, the fields checked, the canonical digest computed (the same canonical form as
 *      src/events/event-rules.ts, so a redelivery compares equal);
 *   3. then, by what the event names (the kinds of bench/lib/events.ts):
 *      - nothing in the store and no order line (fit_viewed, add_to_cart): `INSERT … ON CONFLICT ON CONSTRAINT
 *        events_delivery_key DO NOTHING RETURNING id`, autocommitted;
 *      - a product, variant and order line, no session (add_to_cart_product, purchase_line): the one autocommitted
 *        statement of `EventsRepository.insertAlone`: the product, variant (and session) read `FOR KEY SHARE`, the
 *        event inserted only if they are the store's and agree, a purchase's order line inserted into order_lines;
 *      - a purchase naming its session (purchase_session): a transaction on one client: BEGIN, product, variant and
 *        session read `FOR KEY SHARE` in one statement (`loadReferences`), the event inserted, then the statements
 *        `recordLineOutcomes` runs for it (order_lines upserted, session_lines upserted, shared links marked,
 *        sessions.first_purchased_at moved), COMMIT;
 *   4. an event not inserted: the stored event read back by its delivery key and its digest compared: 200 with the
 *      stored event when equal, else 400 when what it names is not the store's or disagrees, else 409.
 *
 * `POST …/events/batch` does the same for up to 500 events that name nothing, with one multi-row insert (unnest) and
 * one read-back. What it does not do: rate limiting, request ids, security headers, logs, `last_used_at`, retries on
 * deadlock, refusals worded as problems (a bare 400), batch items that name something and events that change an
 * order line's outcome (item_kept, size returns and exchanges): those it answers 400 `not_in_floor`.
 *
 *   PORT=3930 DATABASE_URL=postgres://… POOL=10 node dist/bench/floor.js
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';

const PORT = Number(process.env.PORT ?? 3930);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL ?? 10),
  // As the service (ormconfig.ts): JIT off for every statement.
  options: '-c jit=off',
});

const TYPES = new Set(['fit_viewed', 'add_to_cart', 'checkout_started', 'purchase', 'return_requested', 'size_exchange', 'item_kept']);
/** The types about one order line (src/events/event.entity.ts): product, variant, order and line item required. */
const ORDER_OUTCOME_TYPES = new Set(['purchase', 'return_requested', 'size_exchange', 'item_kept']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ROUTE = /^\/v1\/stores\/([0-9a-f-]{36})\/events(\/batch)?$/;
const KEY = /^sfk_[0-9A-Za-z]{46}$/;
const MAX_BODY = 1 << 20;
const YEAR_MS = 366 * 86_400_000;

interface Principal {
  merchantId: string;
  storeId: string;
}

interface Draft {
  source: string;
  externalId: string;
  type: string;
  productId: string | null;
  variantId: string | null;
  sessionId: string | null;
  orderId: string | null;
  lineItemId: string | null;
  reason: string | null;
  quantity: number;
  occurredAt: Date;
  sha256: Buffer;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const str = (value: unknown, max: number, field: string): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new Refusal(400, `invalid ${field}`);
  return value;
};
const optionalId = (value: unknown, field: string): string | null => {
  if (value === undefined || value === null) return null;
  const id = str(value, 36, field).toLowerCase();
  if (!UUID.test(id)) throw new Refusal(400, `invalid ${field}`);
  return id;
};

function draft(body: unknown, now: number): Draft {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Refusal(400, 'not an object');
  const b = body as Record<string, unknown>;
  const type = str(b.type, 40, 'type');
  if (!TYPES.has(type)) throw new Refusal(400, 'invalid type');
  const occurredAt = new Date(str(b.occurred_at, 40, 'occurred_at'));
  const at = occurredAt.getTime();
  if (Number.isNaN(at) || at < now - YEAR_MS || at > now + 300_000) throw new Refusal(400, 'invalid occurred_at');
  const quantity = b.quantity === undefined || b.quantity === null ? 1 : b.quantity;
  if (!Number.isInteger(quantity) || (quantity as number) < 1) throw new Refusal(400, 'invalid quantity');
  const fields = {
    source: str(b.source, 100, 'source'),
    externalId: str(b.external_id, 200, 'external_id'),
    type,
    productId: optionalId(b.product_id, 'product_id'),
    variantId: optionalId(b.variant_id, 'variant_id'),
    sessionId: optionalId(b.session_id, 'session_id'),
    orderId: b.order_id == null ? null : str(b.order_id, 200, 'order_id'),
    lineItemId: b.line_item_id == null ? null : str(b.line_item_id, 200, 'line_item_id'),
    reason: b.reason == null ? null : str(b.reason, 10, 'reason'),
    quantity: quantity as number,
    occurredAt,
  };
  if (ORDER_OUTCOME_TYPES.has(type)) {
    for (const field of ['productId', 'variantId', 'orderId', 'lineItemId'] as const) {
      if (fields[field] === null) throw new Refusal(400, `${field} required`);
    }
  } else if (fields.productId === null && (fields.variantId !== null || fields.sessionId !== null)) {
    throw new Refusal(400, 'productId required');
  }
  // The canonical form of src/events/event-rules.ts (version 1).
  const canonical = JSON.stringify([
    1,
    fields.source,
    fields.externalId,
    fields.type,
    fields.productId,
    fields.variantId,
    fields.sessionId,
    fields.orderId,
    fields.lineItemId,
    fields.reason,
    fields.quantity,
    fields.occurredAt.toISOString(),
  ]);
  return { ...fields, sha256: createHash('sha256').update(canonical).digest() };
}

async function authenticate(request: IncomingMessage, storeId: string): Promise<Principal> {
  const header = request.headers.authorization ?? '';
  const secret = header.startsWith('Bearer ') ? header.slice(7) : '';
  if (!KEY.test(secret)) throw new Refusal(401, 'unauthenticated');
  const { rows } = await pool.query({
    name: 'floor.authenticate',
    text: `SELECT merchant_id, store_id, scopes FROM api_keys
      WHERE secret_digest = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    values: [createHash('sha256').update(secret, 'utf8').digest('hex')],
  });
  const key = rows[0];
  if (!key) throw new Refusal(401, 'unauthenticated');
  if (!key.scopes.includes('events') && !key.scopes.includes('admin')) throw new Refusal(403, 'insufficient_scope');
  // The bench's keys are store-bound; an unrestricted key would need one more lookup of the store's merchant.
  if (key.store_id !== storeId) throw new Refusal(403, 'store_forbidden');
  return { merchantId: key.merchant_id, storeId: key.store_id };
}

const COLUMNS = `id, merchant_id, store_id, source, external_id, type, product_id, variant_id, session_id, order_id,
                 line_item_id, reason, quantity, occurred_at, received_at`;

function toJson(row: Record<string, unknown>) {
  return {
    id: row.id,
    store_id: row.store_id,
    source: row.source,
    external_id: row.external_id,
    type: row.type,
    product_id: row.product_id,
    variant_id: row.variant_id,
    session_id: row.session_id,
    order_id: row.order_id,
    line_item_id: row.line_item_id,
    reason: row.reason,
    quantity: row.quantity,
    occurred_at: (row.occurred_at as Date).toISOString(),
    received_at: (row.received_at as Date).toISOString(),
  };
}

/** What a request gets for one event. */
interface Result {
  status: number;
  body: unknown;
}

/** A stored event as `SELECT ${COLUMNS}, payload_sha256` reads it. */
type StoredRow = Record<string, unknown> & { payload_sha256: Buffer };

/** Anything that runs a statement: the pool (autocommitted) or a client in a transaction. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/** What an event names, as the store holds it (read `FOR KEY SHARE`): the service's `References` for one event. */
interface Found {
  product: boolean;
  variantProduct: string | null;
  sessionProduct: string | null;
  sessionCreatedAt: Date | null;
  sessionRecommended: boolean | null;
}

const deliveryKey = (source: string, externalId: string) => `${source}\u0000${externalId}`;

/** Whether the event names nothing in the store and no order line: a plain INSERT, alone or in a batch. */
const namesNothing = (d: Draft) =>
  d.productId === null && d.variantId === null && d.sessionId === null && d.orderId === null && d.lineItemId === null;

/** Whether storing the event changes an order line's outcome times (src/events/line-summaries.repository.ts). */
const changesOutcome = (d: Draft) =>
  d.type === 'item_kept' || (d.reason === 'size' && (d.type === 'return_requested' || d.type === 'size_exchange'));

/** Whether what the event names is missing from the store or disagrees (the service's checkAgainstStore, clock aside). */
function refusedBy(d: Draft, found: Found): boolean {
  if (d.productId !== null && !found.product) return true;
  if (d.variantId !== null && found.variantProduct !== d.productId) return true;
  return d.sessionId !== null && (found.sessionProduct !== d.productId || (found.sessionCreatedAt as Date) > d.occurredAt);
}

/** The parameters $1…$16 of one event's row, in COLUMNS order, then its digest. */
const rowValues = (principal: Principal, d: Draft, id: string, now: Date) => [
  id,
  principal.merchantId,
  principal.storeId,
  d.source,
  d.externalId,
  d.type,
  d.productId,
  d.variantId,
  d.sessionId,
  d.orderId,
  d.lineItemId,
  d.reason,
  d.quantity,
  d.occurredAt.toISOString(),
  now.toISOString(),
  d.sha256,
];

/** The 201 of an event just inserted, from the draft. */
const created = (principal: Principal, d: Draft, id: string, now: Date): Result => ({
  status: 201,
  body: toJson({
    id,
    store_id: principal.storeId,
    source: d.source,
    external_id: d.externalId,
    type: d.type,
    product_id: d.productId,
    variant_id: d.variantId,
    session_id: d.sessionId,
    order_id: d.orderId,
    line_item_id: d.lineItemId,
    reason: d.reason,
    quantity: d.quantity,
    occurred_at: d.occurredAt,
    received_at: now,
  }),
});

/** The answer for an event that was not inserted, from what its key holds: 200 if identical, else 400 or 409. */
function settle(d: Draft, row: StoredRow | undefined, refused: boolean): Result {
  if (row && row.payload_sha256.equals(d.sha256)) return { status: 200, body: toJson(row) };
  if (refused) return { status: 400, body: { code: 'validation_failed' } };
  if (row) return { status: 409, body: { code: 'event_conflict' } };
  // ON CONFLICT skipped the row, yet no event holds its key: events are never deleted.
  throw new Error('event insert skipped without a stored event for its key');
}

/** The stored events holding the drafts' delivery keys, with their digests, by key. */
async function findStored(db: Queryable, principal: Principal, drafts: readonly Draft[]): Promise<Map<string, StoredRow>> {
  const { rows } = await db.query<StoredRow>({
    name: 'floor.find-stored',
    text: `SELECT ${COLUMNS}, payload_sha256 FROM events
      WHERE merchant_id = (SELECT $1::uuid) AND store_id = (SELECT $2::uuid)
        AND (source, external_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
    values: [principal.merchantId, principal.storeId, drafts.map((d) => d.source), drafts.map((d) => d.externalId)],
  });
  return new Map(rows.map((row) => [deliveryKey(row.source as string, row.external_id as string), row]));
}

const INSERT_ONE = `INSERT INTO events (${COLUMNS}, payload_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`;

/**
 * Events that name nothing: inserted where their key is free (one VALUES row, or one multi-row insert for a batch),
 * the others compared with the stored event. One result per draft.
 */
async function ingestNamingNothing(principal: Principal, drafts: readonly Draft[], now: Date): Promise<Result[]> {
  const ids = drafts.map(() => uuidv7());
  const column = <T>(pick: (d: Draft) => T) => drafts.map(pick);
  const inserted =
    drafts.length === 1
      ? await pool.query<{ id: string }>({
          name: 'floor.insert-one',
          text: INSERT_ONE,
          values: rowValues(principal, drafts[0], ids[0], now),
        })
      : await pool.query<{ id: string }>({
          name: 'floor.insert-many',
          text: `INSERT INTO events (${COLUMNS}, payload_sha256)
     SELECT t.id, $1, $2, t.source, t.external_id, t.type, t.product_id, t.variant_id, t.session_id, t.order_id,
            t.line_item_id, t.reason, t.quantity, t.occurred_at, $3, decode(t.sha256, 'hex')
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::text[],
                   $12::text[], $13::text[], $14::int[], $15::timestamptz[], $16::text[])
         AS t(id, source, external_id, type, product_id, variant_id, session_id, order_id, line_item_id, reason,
              quantity, occurred_at, sha256)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
          values: [
            principal.merchantId,
            principal.storeId,
            now.toISOString(),
            ids,
            column((d) => d.source),
            column((d) => d.externalId),
            column((d) => d.type),
            column((d) => d.productId),
            column((d) => d.variantId),
            column((d) => d.sessionId),
            column((d) => d.orderId),
            column((d) => d.lineItemId),
            column((d) => d.reason),
            column((d) => d.quantity),
            column((d) => d.occurredAt.toISOString()),
            column((d) => d.sha256.toString('hex')),
          ],
        });
  const taken = new Set(inserted.rows.map((row) => row.id));
  const conflicts = drafts.filter((_, i) => !taken.has(ids[i]));
  // A key repeated within one batch: the first one was inserted in this statement, so it is read back here too.
  const stored = conflicts.length ? await findStored(pool, principal, conflicts) : new Map<string, StoredRow>();
  return drafts.map((d, i) =>
    taken.has(ids[i]) ? created(principal, d, ids[i], now) : settle(d, stored.get(deliveryKey(d.source, d.externalId)), false),
  );
}

/**
 * An event that names a product (and a variant, an order line) but no session: the one autocommitted statement of
 * `EventsRepository.insertAlone`, copied: what it names read `FOR KEY SHARE`, the event inserted only if that is the
 * store's and agrees (and `$17`, the clock's rules, which `draft` has already checked), a purchase's order line
 * given its row.
 */
async function ingestAlone(principal: Principal, d: Draft, now: Date): Promise<Result> {
  const id = uuidv7();
  const { rows } = await pool.query<{
    inserted: boolean;
    product: boolean;
    variant_product: string | null;
    session_product: string | null;
    session_created_at: Date | null;
    session_recommended: boolean | null;
  }>({
    name: 'floor.insert-alone',
    text: `WITH p AS (SELECT id FROM products WHERE store_id = (SELECT $3::uuid) AND id = $7::uuid FOR KEY SHARE),
          v AS (SELECT product_id FROM variants WHERE store_id = (SELECT $3::uuid) AND id = $8::uuid FOR KEY SHARE),
          s AS (SELECT product_id, created_at, recommended_at IS NOT NULL AS recommended
                  FROM sessions WHERE store_id = (SELECT $3::uuid) AND id = $9::uuid FOR KEY SHARE),
          e AS (INSERT INTO events (${COLUMNS}, payload_sha256)
                SELECT $1, $2, $3, $4, $5, $6, $7::uuid, $8::uuid, $9::uuid, $10, $11, $12, $13, $14::timestamptz, $15, $16
                 WHERE $17::boolean
                   AND ($7::uuid IS NULL OR EXISTS (SELECT FROM p))
                   AND ($8::uuid IS NULL OR EXISTS (SELECT FROM v WHERE v.product_id = $7::uuid))
                   AND ($9::uuid IS NULL OR EXISTS (SELECT FROM s WHERE s.product_id = $7::uuid
                                                       AND date_trunc('milliseconds', s.created_at) <= $14::timestamptz))
                ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
                RETURNING order_id, line_item_id, variant_id),
          l AS (INSERT INTO order_lines AS l (store_id, order_id, line_item_id, purchased_variant_id)
                SELECT $3, order_id, line_item_id, variant_id FROM e WHERE $6::text = 'purchase'
                ON CONFLICT (store_id, order_id, line_item_id) DO UPDATE
                  SET purchased_variant_id = coalesce(l.purchased_variant_id, EXCLUDED.purchased_variant_id)
                RETURNING lesson_waiting)
     SELECT EXISTS (SELECT FROM e) AS inserted, EXISTS (SELECT FROM p) AS product,
            (SELECT product_id FROM v) AS variant_product, (SELECT product_id FROM s) AS session_product,
            (SELECT created_at FROM s) AS session_created_at, (SELECT recommended FROM s) AS session_recommended,
            coalesce((SELECT lesson_waiting FROM l), false) AS lesson_waiting`,
    values: [...rowValues(principal, d, id, now), true],
  });
  const [row] = rows;
  if (row.inserted) return created(principal, d, id, now);
  const found: Found = {
    product: row.product,
    variantProduct: row.variant_product,
    sessionProduct: row.session_product,
    sessionCreatedAt: row.session_created_at,
    sessionRecommended: row.session_recommended,
  };
  const stored = await findStored(pool, principal, [d]);
  return settle(d, stored.get(deliveryKey(d.source, d.externalId)), refusedBy(d, found));
}

/** The product, variant and session the event names, read `FOR KEY SHARE` in one statement (`loadReferences`). */
async function loadReferences(db: Queryable, principal: Principal, d: Draft): Promise<Found> {
  const { rows } = await db.query<{
    kind: 'product' | 'variant' | 'session';
    id: string;
    product_id: string | null;
    created_at: Date | null;
    recommended: boolean | null;
  }>({
    name: 'floor.load-references',
    text: `WITH p AS (SELECT id FROM products WHERE store_id = (SELECT $1::uuid) AND id = ANY($2::uuid[]) FOR KEY SHARE),
          v AS (SELECT id, product_id FROM variants WHERE store_id = (SELECT $1::uuid) AND id = ANY($3::uuid[]) FOR KEY SHARE),
          s AS (SELECT id, product_id, created_at, recommended_at IS NOT NULL AS recommended,
                       outcome IS NOT DISTINCT FROM 'overridden' AS overridden
                  FROM sessions WHERE store_id = (SELECT $1::uuid) AND id = ANY($4::uuid[]) FOR KEY SHARE)
     SELECT 'product' AS kind, id, NULL::uuid AS product_id, NULL::timestamptz AS created_at, NULL::boolean AS recommended,
            NULL::boolean AS overridden
       FROM p
     UNION ALL SELECT 'variant', id, product_id, NULL, NULL, NULL FROM v
     UNION ALL SELECT 'session', id, product_id, created_at, recommended, overridden FROM s`,
    values: [principal.storeId, [d.productId], [d.variantId], [d.sessionId]],
  });
  const found: Found = { product: false, variantProduct: null, sessionProduct: null, sessionCreatedAt: null, sessionRecommended: null };
  for (const row of rows) {
    if (row.kind === 'product') found.product = true;
    else if (row.kind === 'variant') found.variantProduct = row.product_id;
    else {
      found.sessionProduct = row.product_id;
      found.sessionCreatedAt = row.created_at;
      found.sessionRecommended = row.recommended;
    }
  }
  return found;
}

/**
 * The statements `LineSummariesRepository.recordLineOutcomes` runs for one stored purchase naming its session (no
 * outcome to copy): the order line upserted, the session linked to it, links of a line with several sessions marked
 * shared, the session's first purchase moved. The same SQL, with arrays of one.
 */
async function recordPurchaseLine(db: Queryable, principal: Principal, d: Draft, session: Found): Promise<void> {
  const { rows } = await db.query<{ size_returned_at: Date | null; kept_at: Date | null; size_exchanged_at: Date | null }>({
    name: 'floor.upsert-order-lines',
    text: `INSERT INTO order_lines AS l (store_id, order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at,
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
    values: [principal.storeId, [d.orderId], [d.lineItemId], [null], [null], [null], [d.variantId]],
  });
  const [line] = rows;
  const iso = (at: Date | null) => at?.toISOString() ?? null;
  await db.query({
    name: 'floor.link-sessions',
    text: `INSERT INTO session_lines AS s (store_id, session_id, order_id, line_item_id, session_created_at,
                                       session_recommended, purchased_at, size_returned_at, kept_at, size_exchanged_at)
       SELECT $1, t.* FROM unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::boolean[],
                                  $7::timestamptz[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])
         AS t(session_id, order_id, line_item_id, session_created_at, session_recommended, purchased_at,
              size_returned_at, kept_at, size_exchanged_at)
       ON CONFLICT (store_id, session_id, order_id, line_item_id) DO UPDATE SET
         purchased_at = LEAST(s.purchased_at, EXCLUDED.purchased_at)`,
    values: [
      principal.storeId,
      [d.sessionId],
      [d.orderId],
      [d.lineItemId],
      [iso(session.sessionCreatedAt)],
      [session.sessionRecommended],
      [d.occurredAt.toISOString()],
      [iso(line.size_returned_at)],
      [iso(line.kept_at)],
      [iso(line.size_exchanged_at)],
    ],
  });
  await db.query({
    name: 'floor.mark-shared',
    text: `UPDATE session_lines AS s SET shared = true
         FROM (SELECT l.order_id, l.line_item_id
                 FROM session_lines l
                 JOIN unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
                   ON l.order_id = t.order_id AND l.line_item_id = t.line_item_id
                WHERE l.store_id = (SELECT $1::uuid)
                GROUP BY l.order_id, l.line_item_id
               HAVING count(*) > 1) AS m
        WHERE s.store_id = (SELECT $1::uuid) AND s.order_id = m.order_id AND s.line_item_id = m.line_item_id AND NOT s.shared`,
    values: [principal.storeId, [d.orderId], [d.lineItemId]],
  });
  await db.query({
    name: 'floor.first-purchases',
    text: `UPDATE sessions AS s SET first_purchased_at = t.at
         FROM unnest($2::uuid[], $3::timestamptz[]) AS t(id, at)
        WHERE s.store_id = (SELECT $1::uuid) AND s.id = t.id AND (s.first_purchased_at IS NULL OR s.first_purchased_at > t.at)`,
    values: [principal.storeId, [d.sessionId], [d.occurredAt.toISOString()]],
  });
}

/**
 * A purchase naming its session, in a transaction on one client: what it names read and locked, the event inserted
 * (when that agrees), its line summaries written, or else the stored event read back; then COMMIT.
 */
async function ingestWithSession(principal: Principal, d: Draft, now: Date): Promise<Result> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const found = await loadReferences(client, principal, d);
    const refused = refusedBy(d, found);
    const id = uuidv7();
    const inserted =
      !refused &&
      (await client.query({ name: 'floor.insert-one', text: INSERT_ONE, values: rowValues(principal, d, id, now) })).rowCount === 1;
    let result: Result;
    if (inserted) {
      await recordPurchaseLine(client, principal, d, found);
      result = created(principal, d, id, now);
    } else {
      const stored = await findStored(client, principal, [d]);
      result = settle(d, stored.get(deliveryKey(d.source, d.externalId)), refused);
    }
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: Error) => {
      broken = rollback;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** One event, by what it names (see the top of this file). */
async function ingestOne(principal: Principal, d: Draft, now: Date): Promise<Result> {
  if (namesNothing(d)) return (await ingestNamingNothing(principal, [d], now))[0];
  if (changesOutcome(d)) throw new Refusal(400, 'not_in_floor');
  if (d.type === 'purchase' && d.sessionId !== null) return ingestWithSession(principal, d, now);
  return ingestAlone(principal, d, now);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new Refusal(413, 'payload_too_large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method === 'GET' && request.url === '/readyz') return send(response, 200, { status: 'ok' });
  const route = request.method === 'POST' ? ROUTE.exec(request.url ?? '') : null;
  if (!route) throw new Refusal(404, 'not_found');
  const principal = await authenticate(request, route[1]);
  let body: unknown;
  try {
    body = JSON.parse(await readBody(request));
  } catch (error) {
    throw error instanceof Refusal ? error : new Refusal(400, 'invalid_json');
  }
  const now = new Date();
  if (route[2]) {
    const events = (body as { events?: unknown }).events;
    if (!Array.isArray(events) || events.length < 1 || events.length > 500) throw new Refusal(400, 'invalid events');
    const drafts: Draft[] = [];
    const refused = new Map<number, string>();
    events.forEach((item, i) => {
      try {
        const d = draft(item, now.getTime());
        if (!namesNothing(d)) throw new Refusal(400, 'not_in_floor');
        drafts.push(d);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refused.set(i, error.code);
      }
    });
    const stored = drafts.length ? await ingestNamingNothing(principal, drafts, now) : [];
    let next = 0;
    const results = events.map((_, i) => (refused.has(i) ? { status: 400, error: { code: refused.get(i) } } : toItem(stored[next++])));
    return send(response, 200, { results });
  }
  const result = await ingestOne(principal, draft(body, now.getTime()), now);
  send(response, result.status, result.body);
}

const toItem = (r: Result) => (r.status >= 400 ? { status: r.status, error: r.body } : { status: r.status, event: r.body });

createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    if (error instanceof Refusal) return send(response, error.status, { code: error.code });
    process.stderr.write(`[floor] ${(error as Error)?.stack ?? error}\n`);
    send(response, 500, { code: 'internal' });
  });
}).listen(PORT, '127.0.0.1');

const close = () => void pool.end().finally(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
