import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { paginate, type Page } from '../common/http/pagination.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { queryInStore } from '../common/tenancy/store-scope.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { retried, transaction } from '../database/transactions.js';
import type { Store } from '../stores/store.entity.js';
import { EventRequest, type EventListQuery, EventResponse } from './dto/event.dto.js';
import { readWellFormedEvent } from './dto/event-fast-path.js';
import { FitEvent } from './event.entity.js';
import { checkOccurredAt, draftEvent, type EventDraft } from './event-rules.js';
import { type LinkedSession, recordLineOutcomes } from './line-summaries.js';

/** What one event gets: stored now (201), stored before (200), refused (400) or in conflict (409). */
export type EventResult =
  { readonly status: 201 | 200; readonly event: EventResponse } | { readonly status: 400 | 409; readonly error: ProblemError };

/** An event waiting for its result, at `index` in the request. */
interface Pending {
  readonly index: number;
  readonly draft: EventDraft;
  readonly key: string;
  /** Why the store's data or the clock refuse it; an identical stored event still answers 200. */
  readonly problem: ProblemError | null;
}

/** The store's rows that events name, read (and locked against deletion) in one query. */
interface References {
  readonly products: ReadonlySet<string>;
  readonly variants: ReadonlyMap<string, string>;
  readonly sessions: ReadonlyMap<string, LinkedSession & { productId: string }>;
}

const deliveryKey = (source: string, externalId: string) => JSON.stringify([source, externalId]);

/**
 * Ingestion without double counting. The delivery key (merchant, store, source, external_id) is a unique index and
 * events are written with `INSERT … ON CONFLICT DO NOTHING`: of any number of concurrent deliveries exactly one
 * inserts; the others find the stored event and compare canonical digests (200 when identical, 409 when not).
 * A batch is judged item by item as if sent one by one, in a fixed handful of statements whatever its size.
 */
@Injectable()
export class EventsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async record(store: Store, request: EventRequest): Promise<{ status: 201 | 200; event: EventResponse }> {
    const [result] = await this.ingest(store, [draftOrProblem(request)]);
    if ('error' in result) throw result.error;
    return result;
  }

  async recordBatch(store: Store, items: readonly unknown[]): Promise<EventResult[]> {
    const prepared = await Promise.all(
      items.map(async (item) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) {
          return new ProblemError('invalid_json', 'Each event must be a JSON object');
        }
        const fast = readWellFormedEvent(item);
        if (fast) return draftOrProblem(fast);
        const read = await validateObject(EventRequest, item);
        return read.ok ? draftOrProblem(read.value) : ProblemError.validation(read.errors);
      }),
    );
    return this.ingest(store, prepared);
  }

  list(store: Store, query: EventListQuery): Promise<Page<EventResponse>> {
    const events = queryInStore(this.dataSource.manager, FitEvent, 'event', store);
    if (query.type) events.andWhere('event.type = :type', { type: query.type });
    if (query.source) events.andWhere('event.source = :source', { source: query.source });
    if (query.session_id) events.andWhere('event.session_id = :sessionId', { sessionId: query.session_id });
    if (query.order_id) events.andWhere('event.order_id = :orderId', { orderId: query.order_id });
    if (query.product_id) events.andWhere('event.product_id = :productId', { productId: query.product_id });
    return paginate(events, query, EventResponse.from);
  }

  private async ingest(store: Store, prepared: ReadonlyArray<EventDraft | ProblemError>): Promise<EventResult[]> {
    const now = new Date();
    const refused: EventResult[] = [];
    const drafts: Array<{ index: number; draft: EventDraft }> = [];
    prepared.forEach((item, index) => {
      if (item instanceof ProblemError) refused[index] = { status: 400, error: item };
      else drafts.push({ index, draft: item });
    });
    if (!drafts.length) return refused;

    // Events that name nothing in the store and no order line, each key sent once: the work is one INSERT (and, for
    // keys already taken, one read of committed rows), which is atomic on its own. No transaction, so no BEGIN and
    // COMMIT round trips. Anything else runs in a transaction, as below.
    const alone = (d: EventDraft) =>
      d.productId === null && d.variantId === null && d.sessionId === null && d.orderId === null && d.lineItemId === null;
    const keys = new Set(drafts.map(({ draft }) => deliveryKey(draft.source, draft.externalId)));
    const oneStatement = keys.size === drafts.length && drafts.every(({ draft }) => alone(draft));
    const run = <T>(work: (manager: EntityManager) => Promise<T>) =>
      oneStatement ? retried(() => work(this.dataSource.manager)) : transaction(this.dataSource, work);

    return run(async (manager) => {
      const results = [...refused];
      const references = await loadReferences(
        manager,
        store,
        drafts.map((d) => d.draft),
      );
      let round: Pending[] = drafts.map(({ index, draft }) => ({
        index,
        draft,
        key: deliveryKey(draft.source, draft.externalId),
        problem: checkAgainstStore(draft, references, now),
      }));
      const stored: FitEvent[] = [];
      // A key repeated within the request waits for the next round, so it meets the first one's outcome.
      while (round.length) {
        const seen = new Set<string>();
        const first: Pending[] = [];
        const later: Pending[] = [];
        for (const item of round) {
          (seen.has(item.key) ? later : first).push(item);
          seen.add(item.key);
        }

        const rows = first
          .filter((item) => item.problem === null)
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          .map((item) => ({ item, row: toRow(item.draft, store, now) }));
        const inserted = await insertNew(
          manager,
          rows.map((r) => r.row),
        );
        for (const { item, row } of rows) {
          if (!inserted.has(row.id)) continue;
          results[item.index] = { status: 201, event: EventResponse.from(row) };
          stored.push(row);
        }

        const unsettled = first.filter((item) => results[item.index] === undefined);
        const existing = await findStored(
          manager,
          store,
          unsettled.map((item) => item.draft),
        );
        for (const item of unsettled) {
          const found = existing.get(item.key);
          if (found && found.sha256?.equals(item.draft.sha256)) {
            results[item.index] = { status: 200, event: EventResponse.from(found.event) };
          } else if (item.problem) {
            results[item.index] = { status: 400, error: item.problem };
          } else if (found) {
            results[item.index] = {
              status: 409,
              error: new ProblemError(
                'event_conflict',
                `An event with source ${item.draft.source} and external_id ${item.draft.externalId} was recorded with a different payload`,
              ),
            };
          } else {
            // ON CONFLICT skipped the row, yet no event holds its key: events are never deleted, so this is a bug.
            throw new Error('event insert skipped without a stored event for its key');
          }
        }
        round = later;
      }

      await recordLineOutcomes(manager, store, stored, references.sessions);
      return results;
    });
  }
}

function draftOrProblem(request: EventRequest): EventDraft | ProblemError {
  try {
    return draftEvent(request);
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
}

function toRow(draft: EventDraft, store: Store, now: Date): FitEvent {
  return {
    id: newId(),
    merchantId: store.merchantId,
    storeId: store.id,
    source: draft.source,
    externalId: draft.externalId,
    type: draft.type,
    productId: draft.productId,
    variantId: draft.variantId,
    sessionId: draft.sessionId,
    orderId: draft.orderId,
    lineItemId: draft.lineItemId,
    reason: draft.reason,
    quantity: draft.quantity,
    occurredAt: draft.occurredAt,
    receivedAt: now,
    payloadSha256: draft.sha256,
  };
}

/** The rules that read the clock and the store's rows: the references exist and agree, the session came first. */
function checkAgainstStore(draft: EventDraft, references: References, now: Date): ProblemError | null {
  const errors: FieldError[] = [];
  const mismatches: FieldError[] = [];
  const clock = checkOccurredAt(draft.occurredAt, now);
  if (clock) errors.push(clock);
  const missing = (field: string) => errors.push({ field, code: 'not_found', message: `${field} names nothing in this store` });
  if (draft.productId !== null && !references.products.has(draft.productId)) missing('product_id');
  if (draft.variantId !== null) {
    const productId = references.variants.get(draft.variantId);
    if (productId === undefined) missing('variant_id');
    else if (productId !== draft.productId && references.products.has(draft.productId as string)) {
      errors.push({ field: 'variant_id', code: 'not_of_product', message: 'variant_id is a variant of another product' });
    }
  }
  if (draft.sessionId !== null) {
    const session = references.sessions.get(draft.sessionId);
    if (session === undefined) missing('session_id');
    else {
      if (session.productId !== draft.productId) {
        mismatches.push({ field: 'session_id', code: 'other_product', message: 'the session is for another product' });
      }
      if (session.createdAt > draft.occurredAt) {
        mismatches.push({
          field: 'session_id',
          code: 'created_after_event',
          message: 'the session was created after occurred_at',
        });
      }
    }
  }
  if (errors.length) return ProblemError.validation([...errors, ...mismatches]);
  if (mismatches.length) {
    return new ProblemError('session_mismatch', mismatches.map((m) => m.message).join('; '), mismatches);
  }
  return null;
}

/**
 * Reads the products, variants and sessions the drafts name, in one statement, locked `FOR KEY SHARE` until commit.
 * A concurrent delete of a product or variant either waits and then sees the new event (and archives instead), or
 * wins and the event is refused: never a broken foreign key. A session change (which locks the session `FOR
 * UPDATE`) either commits before, and its recommendation is seen here, or waits for this transaction's links.
 */
async function loadReferences(manager: EntityManager, store: Store, drafts: readonly EventDraft[]): Promise<References> {
  const ids = (pick: (d: EventDraft) => string | null) => [...new Set(drafts.map(pick).filter((id) => id !== null))];
  const productIds = ids((d) => d.productId);
  const variantIds = ids((d) => d.variantId);
  const sessionIds = ids((d) => d.sessionId);
  const references = {
    products: new Set<string>(),
    variants: new Map<string, string>(),
    sessions: new Map<string, LinkedSession & { productId: string }>(),
  };
  if (!productIds.length && !variantIds.length && !sessionIds.length) return references;

  const rows: Array<{
    kind: 'product' | 'variant' | 'session';
    id: string;
    product_id: string | null;
    created_at: Date | null;
    recommended: boolean | null;
  }> = await manager.query(
    `WITH p AS (SELECT id FROM products WHERE store_id = $1 AND id = ANY($2::uuid[]) FOR KEY SHARE),
          v AS (SELECT id, product_id FROM variants WHERE store_id = $1 AND id = ANY($3::uuid[]) FOR KEY SHARE),
          s AS (SELECT id, product_id, created_at, recommended_at IS NOT NULL AS recommended
                  FROM sessions WHERE store_id = $1 AND id = ANY($4::uuid[]) FOR KEY SHARE)
     SELECT 'product' AS kind, id, NULL::uuid AS product_id, NULL::timestamptz AS created_at, NULL::boolean AS recommended
       FROM p
     UNION ALL SELECT 'variant', id, product_id, NULL, NULL FROM v
     UNION ALL SELECT 'session', id, product_id, created_at, recommended FROM s`,
    [store.id, productIds, variantIds, sessionIds],
  );
  for (const row of rows) {
    if (row.kind === 'product') references.products.add(row.id);
    else if (row.kind === 'variant') references.variants.set(row.id, row.product_id as string);
    else {
      references.sessions.set(row.id, {
        productId: row.product_id as string,
        createdAt: row.created_at as Date,
        recommended: row.recommended as boolean,
      });
    }
  }
  return references;
}

const EVENT_COLUMNS = `id, merchant_id, store_id, source, external_id, type, product_id, variant_id, session_id, order_id,
  line_item_id, reason, quantity, occurred_at, received_at, payload_sha256`;

/** Inserts the rows whose delivery key is free; returns the ids of those inserted. */
async function insertNew(manager: EntityManager, rows: readonly FitEvent[]): Promise<Set<string>> {
  if (!rows.length) return new Set();
  if (rows.length === 1) return insertOne(manager, rows[0]);
  const column = <T>(pick: (row: FitEvent) => T) => rows.map(pick);
  const inserted: Array<{ id: string }> = await manager.query(
    `INSERT INTO events (${EVENT_COLUMNS})
     SELECT t.id, $1, $2, t.source, t.external_id, t.type, t.product_id, t.variant_id, t.session_id, t.order_id,
            t.line_item_id, t.reason, t.quantity, t.occurred_at, $3, decode(t.sha256, 'hex')
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::text[],
                   $12::text[], $13::text[], $14::int[], $15::timestamptz[], $16::text[])
         AS t(id, source, external_id, type, product_id, variant_id, session_id, order_id, line_item_id, reason,
              quantity, occurred_at, sha256)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
    [
      rows[0].merchantId,
      rows[0].storeId,
      rows[0].receivedAt.toISOString(),
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
      column((r) => (r.payloadSha256 as Buffer).toString('hex')),
    ],
  );
  return new Set(inserted.map((row) => row.id));
}

/** One event: a plain VALUES row, which costs PostgreSQL less than the unnest form (a quarter of its CPU per event). */
async function insertOne(manager: EntityManager, row: FitEvent): Promise<Set<string>> {
  const inserted: Array<{ id: string }> = await manager.query(
    `INSERT INTO events (${EVENT_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT ON CONSTRAINT events_delivery_key DO NOTHING
     RETURNING id`,
    [
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
    ],
  );
  return new Set(inserted.map((r) => r.id));
}

/** The stored events holding the drafts' delivery keys, with their digests. */
async function findStored(
  manager: EntityManager,
  store: Store,
  drafts: readonly EventDraft[],
): Promise<Map<string, { event: FitEvent; sha256: Buffer | null }>> {
  const found = new Map<string, { event: FitEvent; sha256: Buffer | null }>();
  if (!drafts.length) return found;
  const events = await manager
    .createQueryBuilder(FitEvent, 'event')
    .addSelect('event.payloadSha256')
    .where('event.merchant_id = :merchantId AND event.store_id = :storeId', {
      merchantId: store.merchantId,
      storeId: store.id,
    })
    .andWhere('(event.source, event.external_id) IN (SELECT * FROM unnest(CAST(:sources AS text[]), CAST(:ids AS text[])))', {
      sources: drafts.map((d) => d.source),
      ids: drafts.map((d) => d.externalId),
    })
    .getMany();
  for (const event of events) {
    found.set(deliveryKey(event.source, event.externalId), { event, sha256: event.payloadSha256 });
  }
  return found;
}
