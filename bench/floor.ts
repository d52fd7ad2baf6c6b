/**
 * The floor of event ingestion: the least a server can do to store an event as the service does, with no framework
 * and no ORM. `node:http` + `pg`, one file. The bench (bench/run.ts) starts it as a child process on the same
 * database as the service and puts the same load on both; the service's figures are read against it.
 *
 * Per request, the same database work as `POST /v1/stores/{id}/events` (src/auth/api-keys.repository.ts,
 * src/events/events.repository.ts) for an event that names no product, variant, session or order line:
 *
 *   1. the bearer key looked up by its SHA-256 digest (active: not revoked, not expired), its scope and store checked
 *      (a store-bound key may only name its own store; the composite foreign key keeps that store in its merchant);
 *   2. the JSON body parsed, the fields checked, the canonical digest computed (the same canonical form as
 *      src/events/event-rules.ts, so a redelivery compares equal);
 *   3. `INSERT … ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING RETURNING id`, autocommitted;
 *   4. on conflict, the stored event read back by its delivery key and its digest compared: 200 with the stored
 *      event when equal, 409 when not.
 *
 * `POST …/events/batch` does the same for up to 500 events with one multi-row insert (unnest) and one read-back.
 * What it does not do: rate limiting, request ids, security headers, logs, `last_used_at`, references to products,
 * variants and sessions, and the metrics' line summaries (the bench's events name none of those).
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
const optional = (value: unknown, max: number, field: string): string | null =>
  value === undefined || value === null ? null : str(value, max, field).toLowerCase();

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
    productId: optional(b.product_id, 36, 'product_id'),
    variantId: optional(b.variant_id, 36, 'variant_id'),
    sessionId: optional(b.session_id, 36, 'session_id'),
    orderId: b.order_id == null ? null : str(b.order_id, 200, 'order_id'),
    lineItemId: b.line_item_id == null ? null : str(b.line_item_id, 200, 'line_item_id'),
    reason: b.reason == null ? null : str(b.reason, 10, 'reason'),
    quantity: quantity as number,
    occurredAt,
  };
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
  const { rows } = await pool.query(
    `SELECT merchant_id, store_id, scopes FROM api_keys
      WHERE secret_digest = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [createHash('sha256').update(secret, 'utf8').digest('hex')],
  );
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

/** Inserts the drafts whose key is free; the others are compared with the stored event. One result per draft. */
async function ingest(principal: Principal, drafts: Draft[], now: Date): Promise<Array<{ status: number; body: unknown }>> {
  const ids = drafts.map(() => uuidv7());
  const column = <T>(pick: (d: Draft) => T) => drafts.map(pick);
  const single = drafts[0];
  const inserted =
    drafts.length === 1
      ? await pool.query(
          `INSERT INTO events (${COLUMNS}, payload_sha256)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
         RETURNING id`,
          [
            ids[0],
            principal.merchantId,
            principal.storeId,
            single.source,
            single.externalId,
            single.type,
            single.productId,
            single.variantId,
            single.sessionId,
            single.orderId,
            single.lineItemId,
            single.reason,
            single.quantity,
            single.occurredAt.toISOString(),
            now.toISOString(),
            single.sha256,
          ],
        )
      : await pool.query(
          `INSERT INTO events (${COLUMNS}, payload_sha256)
     SELECT t.id, $1, $2, t.source, t.external_id, t.type, t.product_id, t.variant_id, t.session_id, t.order_id,
            t.line_item_id, t.reason, t.quantity, t.occurred_at, $3, decode(t.sha256, 'hex')
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::text[],
                   $12::text[], $13::text[], $14::int[], $15::timestamptz[], $16::text[])
         AS t(id, source, external_id, type, product_id, variant_id, session_id, order_id, line_item_id, reason,
              quantity, occurred_at, sha256)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
          [
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
        );
  const taken = new Set<string>(inserted.rows.map((row: { id: string }) => row.id));
  const results: Array<{ status: number; body: unknown } | null> = drafts.map((d, i) =>
    taken.has(ids[i])
      ? {
          status: 201,
          body: toJson({
            id: ids[i],
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
        }
      : null,
  );
  const conflicts = drafts.filter((_, i) => results[i] === null);
  if (conflicts.length) {
    const stored = await pool.query(
      `SELECT ${COLUMNS}, payload_sha256 FROM events
        WHERE merchant_id = $1 AND store_id = $2
          AND (source, external_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
      [principal.merchantId, principal.storeId, conflicts.map((d) => d.source), conflicts.map((d) => d.externalId)],
    );
    const byKey = new Map(stored.rows.map((row) => [`${row.source}\u0000${row.external_id}`, row]));
    drafts.forEach((d, i) => {
      if (results[i] !== null) return;
      const row = byKey.get(`${d.source}\u0000${d.externalId}`);
      // A key repeated within one batch: the first one was inserted in this statement, so it is read back here too.
      results[i] =
        row && (row.payload_sha256 as Buffer).equals(d.sha256)
          ? { status: 200, body: toJson(row) }
          : { status: 409, body: { code: 'event_conflict' } };
    });
  }
  return results as Array<{ status: number; body: unknown }>;
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
        drafts.push(draft(item, now.getTime()));
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refused.set(i, error.code);
      }
    });
    const stored = drafts.length ? await ingest(principal, drafts, now) : [];
    let next = 0;
    const results = events.map((_, i) => (refused.has(i) ? { status: 400, error: { code: refused.get(i) } } : toItem(stored[next++])));
    return send(response, 200, { results });
  }
  const [result] = await ingest(principal, [draft(body, now.getTime())], now);
  send(response, result.status, result.body);
}

const toItem = (r: { status: number; body: unknown }) =>
  r.status >= 400 ? { status: r.status, error: r.body } : { status: r.status, event: r.body };

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
