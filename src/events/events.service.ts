import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import type { Page } from '../common/http/pagination.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { LearningService } from '../learning/learning.service.js';
import { ShopperDigests } from '../learning/shopper-digests.js';
import { retried, Transactions } from '../database/transactions.js';
import type { Store } from '../stores/store.entity.js';
import { EventRequest, type EventListQuery, EventResponse } from './dto/event.dto.js';
import { readWellFormedEvent } from './dto/event-fast-path.js';
import type { FitEvent } from './event.entity.js';
import { checkOccurredAt, deliveryKey, draftEvent, type EventDraft } from './event-rules.js';
import { EventsRepository, type References } from './events.repository.js';
import { LineSummariesRepository, touchesOnlyItsLine } from './line-summaries.repository.js';
import { EVENT_TYPES } from './event-types.js';

/** What one event gets: stored now (201), stored before (200), refused (400) or in conflict (409). */
type EventResult =
  { readonly status: 201 | 200; readonly event: EventResponse } | { readonly status: 400 | 409; readonly error: ProblemError };

/** An event waiting for its result, at `index` in the request. */
interface Pending {
  readonly index: number;
  readonly draft: EventDraft;
  readonly key: string;
  /** Why the store's data or the clock refuse it; an identical stored event still answers 200. */
  readonly problem: ProblemError | null;
}

/**
 * Ingestion without double counting. The delivery key (merchant, store, source, external_id) is a unique index and
 * events are written with `INSERT … ON CONFLICT DO NOTHING`: of any number of concurrent deliveries exactly one
 * inserts; the others find the stored event and compare canonical digests (200 when identical, 409 when not).
 * A batch is judged item by item as if sent one by one, in a fixed handful of statements whatever its size.
 */
@Injectable()
export class EventsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly events: EventsRepository,
    private readonly lineSummaries: LineSummariesRepository,
    private readonly learning: LearningService,
    private readonly shopperDigests: ShopperDigests,
  ) {}

  onModuleInit(): void {
    this.shopperDigests.onErasure((manager, storeId, digest, replacement) =>
      this.events.replaceShopper(manager, storeId, digest, replacement),
    );
  }

  /** One event, as the body of a request: refused as a whole (400) if it is not a well-formed event. */
  async record(store: Store, body: unknown): Promise<{ status: 201 | 200; event: EventResponse }> {
    const [result] = await this.ingest(store, [await prepare(body, 'The request body must be a JSON object')]);
    if ('error' in result) throw result.error;
    return result;
  }

  async recordBatch(store: Store, items: readonly unknown[]): Promise<EventResult[]> {
    const prepared = await Promise.all(items.map((item) => prepare(item, 'Each event must be a JSON object')));
    return this.ingest(store, prepared);
  }

  /** For each event type: when the store's latest arrived (since `since`), and how many arrived from `today` on. */
  activity(store: Store, today: Date, since: Date): Promise<{ type: string; last_at: Date | null; today: number }[]> {
    return this.events.activity(store, EVENT_TYPES, today, since);
  }

  list(store: Store, query: EventListQuery): Promise<Page<EventResponse>> {
    return this.events.list(store, query, EventResponse.from);
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
    const shoppers = await this.digestShoppers(store, drafts);
    const toRow = (draft: EventDraft) => rowOf(draft, store, now, shoppers);

    // Events that name nothing in the store and no order line, each key sent once: the work is one INSERT (and, for
    // keys already taken, one read of committed rows), which is atomic on its own. No transaction, so no BEGIN and
    // COMMIT round trips.
    // One event that names something, with no summary but its order line's row (most of them): one statement too.
    // Anything else runs in a transaction, as below.
    const [first] = drafts;
    const oneStatementWithReferences = (d: EventDraft) => !namesNothing(d) && touchesOnlyItsLine(d) && d.newVariantId === null;
    if (drafts.length === 1 && (namesNothing(first.draft) || oneStatementWithReferences(first.draft))) {
      return this.ingestAlone(store, first, refused, toRow(first.draft), now);
    }
    const keys = new Set(drafts.map(({ draft }) => deliveryKey(draft.source, draft.externalId)));
    const oneStatement = keys.size === drafts.length && drafts.every(({ draft }) => namesNothing(draft));
    const run = <T>(work: (manager: EntityManager) => Promise<T>) =>
      oneStatement ? this.transactions.alone(work) : this.transactions.run(work);

    return run(async (manager) => {
      const results = [...refused];
      const references = await this.events.loadReferences(
        manager,
        store,
        drafts.map((d) => d.draft),
      );
      const pending = drafts.map(({ index, draft }) => ({
        index,
        draft,
        key: deliveryKey(draft.source, draft.externalId),
        problem: checkAgainstStore(draft, references, now),
      }));
      const stored: FitEvent[] = [];
      // A key repeated within the request waits for the next round, so it meets the first one's outcome.
      for (const round of roundsOf(pending)) stored.push(...(await this.storeRound(manager, store, round, results, toRow)));
      await this.summarise(manager, store, stored, references, now);
      return results;
    });
  }

  /**
   * One round of a request's events, each key once: the admissible ones inserted (ids in the request's order, rows in
   * the keys' order, so that concurrent batches lock in one order), the others settled against what their keys hold.
   * Results go into `results`; returns the events stored.
   */
  private async storeRound(
    manager: EntityManager,
    store: Store,
    round: readonly Pending[],
    results: EventResult[],
    toRow: (draft: EventDraft) => FitEvent,
  ): Promise<FitEvent[]> {
    const rows = round
      .filter((item) => item.problem === null)
      .map((item) => ({ item, row: toRow(item.draft) }))
      .sort((a, b) => (a.item.key < b.item.key ? -1 : a.item.key > b.item.key ? 1 : 0));
    const inserted = await this.events.insertNew(
      manager,
      rows.map((r) => r.row),
    );
    const stored: FitEvent[] = [];
    for (const { item, row } of rows) {
      if (!inserted.has(row.id)) continue;
      results[item.index] = { status: 201, event: EventResponse.from(row) };
      stored.push(row);
    }
    const unsettled = round.filter((item) => results[item.index] === undefined);
    const existing = await this.events.findStored(
      manager,
      store,
      unsettled.map((item) => item.draft),
    );
    for (const item of unsettled) results[item.index] = settle(item, existing.get(item.key));
    return stored;
  }

  /**
   * The store's digests of the shoppers purchases name, in a transaction of their own before the events' (the store's
   * shopper key is made on first use): a purchase is stored with its shopper's digest, never her id.
   */
  private async digestShoppers(store: Store, drafts: ReadonlyArray<{ draft: EventDraft }>): Promise<ReadonlyMap<string, Buffer>> {
    const refs = [...new Set(drafts.flatMap(({ draft }) => (draft.shopperRef === null ? [] : [draft.shopperRef])))];
    if (!refs.length) return NO_SHOPPERS;
    const digests = await this.transactions.run((manager) => this.shopperDigests.of(manager, store.id, refs));
    return new Map(refs.map((ref, i) => [ref, digests[i]]));
  }

  /** What the stored events change beyond themselves: their lines' summaries, then what they teach. */
  private async summarise(manager: EntityManager, store: Store, stored: readonly FitEvent[], references: References, now: Date) {
    const summed = await this.lineSummaries.recordLineOutcomes(manager, store, stored, references.sessions);
    const overridden = (id: string) => references.sessions.get(id)?.overridden === true;
    const waiting = await this.learning.recordOutcomes(manager, store, stored, summed, overridden, now);
    await this.lineSummaries.setWaiting(manager, store.id, waiting);
  }

  /**
   * A single event with no summary beyond its order line: checked, inserted and summed up in one statement (one that
   * names nothing: the plain insert, with nothing of the store to check); a refused or already stored one is then
   * compared with what its key holds (a second statement, for retries only).
   */
  private async ingestAlone(
    store: Store,
    { index, draft }: { index: number; draft: EventDraft },
    refused: EventResult[],
    row: FitEvent,
    now: Date,
  ): Promise<EventResult[]> {
    const results = [...refused];
    const clock = checkOccurredAt(draft.occurredAt, now);
    const { inserted, references, lessonWaiting } = namesNothing(draft)
      ? {
          inserted: clock === null && (await this.transactions.alone((manager) => this.events.insertNew(manager, [row]))).has(row.id),
          references: NO_REFERENCES,
          lessonWaiting: false,
        }
      : await retried(() => this.events.insertAlone(store, row, clock === null));
    if (inserted && lessonWaiting && row.orderId !== null && row.lineItemId !== null) {
      // a purchase whose line has an outcome waiting for it: the outcome is counted now (were the process to stop
      // before, the next event of the line that runs in a transaction counts it)
      const line = { orderId: row.orderId, lineItemId: row.lineItemId };
      await this.transactions.run(async (manager) => {
        const lines = await this.lineSummaries.lockLines(manager, store.id, [line]);
        await this.lineSummaries.setWaiting(manager, store.id, await this.learning.countWaiting(manager, store, lines, now));
      });
    }
    if (inserted) {
      results[index] = { status: 201, event: EventResponse.from(row) };
      return results;
    }
    const item = { index, draft, key: deliveryKey(draft.source, draft.externalId), problem: checkAgainstStore(draft, references, now) };
    const existing = await this.transactions.alone((manager) => this.events.findStored(manager, store, [draft]));
    results[index] = settle(item, existing.get(item.key));
    return results;
  }
}

/** The items in rounds in which each key appears once: a key repeated waits for the next round. */
function roundsOf(items: readonly Pending[]): Pending[][] {
  const rounds: Pending[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const round = seen.get(item.key) ?? 0;
    seen.set(item.key, round + 1);
    (rounds[round] ??= []).push(item);
  }
  return rounds;
}

/** Whether the event names nothing in the store and no order line: no reference to check, no summary to keep. */
const namesNothing = (d: EventDraft): boolean =>
  d.productId === null &&
  d.variantId === null &&
  d.newVariantId === null &&
  d.sessionId === null &&
  d.orderId === null &&
  d.lineItemId === null;

const NO_SHOPPERS: ReadonlyMap<string, Buffer> = new Map();

const NO_REFERENCES: References = { products: new Set(), variants: new Map(), sessions: new Map() };

/** The result of an event that was not inserted, from what its key holds: 200 if identical, else 400 or 409. */
function settle(item: Pending, found: { event: FitEvent; sha256: Buffer | null } | undefined): EventResult {
  if (found && found.sha256?.equals(item.draft.sha256)) return { status: 200, event: EventResponse.from(found.event) };
  if (item.problem) return { status: 400, error: item.problem };
  if (found) {
    const differences = differingFields(item.draft, found.event);
    const named = differences.length
      ? `: ${differences.map((d) => d.field).join(', ')} ${differences.length > 1 ? 'differ' : 'differs'}`
      : '';
    return {
      status: 409,
      error: new ProblemError(
        'event_conflict',
        `An event with source ${item.draft.source} and external_id ${item.draft.externalId} was recorded with a different payload${named}`,
        differences,
      ),
    };
  }
  // ON CONFLICT skipped the row, yet no event holds its key: events are never deleted, so this is a bug.
  throw new Error('event insert skipped without a stored event for its key');
}

/** The fields of the stored form that the delivery compares, as the API names them. */
const COMPARED = [
  ['type', (e) => e.type],
  ['product_id', (e) => e.productId],
  ['variant_id', (e) => e.variantId],
  ['session_id', (e) => e.sessionId],
  ['order_id', (e) => e.orderId],
  ['line_item_id', (e) => e.lineItemId],
  ['reason', (e) => e.reason],
  ['quantity', (e) => e.quantity],
  ['fit_feedback', (e) => e.fitFeedback],
  ['new_variant_id', (e) => e.newVariantId],
  ['occurred_at', (e) => e.occurredAt.toISOString()],
] as const satisfies readonly (readonly [string, (event: Omit<EventDraft, 'sha256'> | FitEvent) => unknown])[];

/**
 * One `differs` error per field whose stored form differs from the stored event's (absent and null alike), each
 * saying what is stored, so that the sender sees what changed between two deliveries of one key.
 */
function differingFields(draft: EventDraft, stored: FitEvent): FieldError[] {
  return COMPARED.filter(([, read]) => read(draft) !== read(stored)).map(([field, read]) => ({
    field,
    code: 'differs',
    message: `${field} differs from the event recorded with this key, which has ${JSON.stringify(read(stored))}`,
  }));
}

/**
 * An event as sent, read under EventRequest's rules: the same codes and messages as the validation pipe, with
 * well-formed events (nearly all of them) read without class-validator (dto/event-fast-path.ts).
 */
async function prepare(value: unknown, notAnObject: string): Promise<EventDraft | ProblemError> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return new ProblemError('invalid_json', notAnObject);
  const fast = readWellFormedEvent(value);
  if (fast) return draftOrProblem(fast);
  const read = await validateObject(EventRequest, value);
  return read.ok ? draftOrProblem(read.value) : ProblemError.validation(read.errors);
}

function draftOrProblem(request: EventRequest): EventDraft | ProblemError {
  try {
    return draftEvent(request);
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
}

function rowOf(draft: EventDraft, store: Store, now: Date, shoppers: ReadonlyMap<string, Buffer>): FitEvent {
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
    fitFeedback: draft.fitFeedback,
    newVariantId: draft.newVariantId,
    quantity: draft.quantity,
    occurredAt: draft.occurredAt,
    receivedAt: now,
    payloadSha256: draft.sha256,
    shopperDigest: draft.shopperRef === null ? null : (shoppers.get(draft.shopperRef) ?? null),
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
  if (draft.newVariantId !== null) {
    const productId = references.variants.get(draft.newVariantId);
    if (productId === undefined) missing('new_variant_id');
    else if (productId !== draft.productId && references.products.has(draft.productId as string)) {
      errors.push({ field: 'new_variant_id', code: 'not_of_product', message: 'new_variant_id is a variant of another product' });
    }
  }
  if (draft.sessionId !== null) {
    const session = references.sessions.get(draft.sessionId);
    // the product the event is about: the one it names, else its variant's (a storefront event may name neither)
    const product = draft.productId ?? (draft.variantId === null ? null : (references.variants.get(draft.variantId) ?? null));
    if (session === undefined) missing('session_id');
    else {
      if (product !== null && session.productId !== product) {
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
