import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { Transactions } from '../database/transactions.js';
import type { Store } from '../stores/store.entity.js';
import type { OrderHistoryResponse } from './dto/order-history.dto.js';
import { boughtOf, type ImportedOutcome, LearningService } from './learning.service.js';
import type { LineLesson } from './line-lessons.repository.js';
import {
  BOUGHT_OTHER_VARIANT,
  checkAgainstCatalog,
  type HistoryLine,
  type Reading,
  readHistoryLines,
  readingOf,
} from './order-history-rules.js';
import { type HistoryCatalog, OrderHistoryRepository } from './order-history.repository.js';
import { lineKey, type OrderLineState } from './order-lines.js';
import { ShopperDigests } from './shopper-digests.js';

/** A line with what its outcome says. */
interface Read {
  readonly line: HistoryLine;
  readonly reading: Reading;
}

/** What became of one line of the request. */
type Verdict = 'learned' | 'replaced' | 'unchanged' | { readonly ignored: string };

const keyOf = (line: HistoryLine) => lineKey(line.orderId, line.lineItemId);
const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
/** The line a field error names (`lines[12].outcome.type`: 12), to list errors in request order. */
const lineOf = (error: FieldError) => Number(/^lines\[(\d+)\]/.exec(error.field)?.[1] ?? -1);

/**
 * An import of a store's past orders and their outcomes (docs/decisions/009-learning-from-outcomes.md, "Past orders"):
 * each line teaches what the same outcome would as an event, for a line bought without a fit session, at its own date,
 * in the one lesson per line that its events share. It teaches the learned state only: no event, no order line, no
 * summary is written, so the metrics and the events list never see it. One transaction per request: a request with
 * any invalid line writes nothing.
 */
@Injectable()
export class OrderHistoryService {
  constructor(
    private readonly transactions: Transactions,
    private readonly history: OrderHistoryRepository,
    private readonly learning: LearningService,
    private readonly digests: ShopperDigests,
  ) {}

  async import(store: Store, items: readonly unknown[]): Promise<OrderHistoryResponse> {
    const now = new Date();
    const { lines, errors } = await readHistoryLines(items, now);
    return this.transactions.run(async (manager) => {
      await this.history.lockStore(manager, store.id);
      const catalog = await this.history.catalog(
        manager,
        store.id,
        unique(lines.map((l) => l.productId)),
        unique(lines.flatMap((l) => [l.variantId, l.outcome.newVariantId ?? []].flat())),
      );
      const refused = [...errors, ...checkAgainstCatalog(lines, catalog)].sort((a, b) => lineOf(a) - lineOf(b));
      if (refused.length) throw invalid(refused, items.length);
      const verdicts = await this.teach(manager, store, lines, catalog, now);
      return summaryOf(verdicts);
    });
  }

  /** What each line teaches, taught: the latest outcome per order line of the request, as the events of one batch. */
  private async teach(manager: EntityManager, store: Store, lines: readonly HistoryLine[], catalog: HistoryCatalog, now: Date) {
    const read = lines.map((line) => ({ line, reading: readingOf(line, catalog) }));
    const latest = latestPerLine(read.filter(({ reading }) => reading.kind !== 'no_outcome'));
    const winners = [...latest.values()];
    const digests = await this.shopperDigests(manager, store, winners);
    const states = await this.lineStates(manager, store, winners);
    const outcomes = new Map(
      winners.map(({ line, reading }) => [keyOf(line), importedOutcomeOf(line, reading, digests.get(line.shopperRef ?? '') ?? null)]),
    );
    const { before, taught } = await this.learning.learnFromHistory(manager, store, states, outcomes, now);
    return read.map(({ line, reading }): Verdict => {
      const key = keyOf(line);
      if (reading.kind === 'no_outcome') return { ignored: reading.reason };
      if (latest.get(key)?.line !== line) return 'unchanged';
      if (reading.kind === 'nothing') return { ignored: reading.reason };
      return verdictOf(line, states.get(key) as OrderLineState, before.get(key), taught.get(key));
    });
  }

  /** The store's digest of each shopper the lines name, by her ref. */
  private async shopperDigests(manager: EntityManager, store: Store, read: readonly Read[]): Promise<Map<string, Buffer>> {
    const refs = unique(read.flatMap(({ line }) => line.shopperRef ?? []));
    const digests = await this.digests.of(manager, store.id, refs);
    return new Map(refs.map((ref, i) => [ref, digests[i]]));
  }

  /** Each line as lessons see it: bought in the variant its first purchase reported as an event bought, if any. */
  private async lineStates(manager: EntityManager, store: Store, read: readonly Read[]): Promise<Map<string, OrderLineState>> {
    const lines = read.map(({ line }) => line);
    const rows = await this.history.purchases(manager, store.id, lines);
    const purchased = new Map(rows.map((row) => [lineKey(row.order_id, row.line_item_id), row.purchased_variant_id]));
    const stateOf = (line: HistoryLine): OrderLineState => ({
      orderId: line.orderId,
      lineItemId: line.lineItemId,
      purchasedVariantId: purchased.get(keyOf(line)) ?? null,
      lessonWaiting: false,
    });
    return new Map(lines.map((line) => [keyOf(line), stateOf(line)]));
  }
}

/** Per order line, the line of the request with the latest outcome (the first of equals: a later one is no later). */
function latestPerLine(read: readonly Read[]): Map<string, Read> {
  const latest = new Map<string, Read>();
  for (const item of read) {
    const known = latest.get(keyOf(item.line));
    if (!known || item.line.outcome.occurredAt > known.line.outcome.occurredAt) latest.set(keyOf(item.line), item);
  }
  return latest;
}

function importedOutcomeOf(line: HistoryLine, reading: Reading, shopperDigest: Buffer | null): ImportedOutcome {
  return {
    productId: line.productId,
    productTypeId: reading.productTypeId,
    variantId: line.variantId,
    occurredAt: line.outcome.occurredAt,
    evidence: reading.kind === 'evidence' ? reading.evidence : null,
    shopperDigest,
  };
}

/** What became of a line whose outcome teaches, from what it taught before and what it teaches now. */
function verdictOf(line: HistoryLine, state: OrderLineState, before: LineLesson | undefined, now: LineLesson | undefined): Verdict {
  if ((boughtOf(state, before) ?? line.variantId) !== line.variantId) return { ignored: BOUGHT_OTHER_VARIANT };
  if (now === undefined || now.evidence === null) return 'unchanged';
  return before?.counted && before.evidence !== null ? 'replaced' : 'learned';
}

function summaryOf(verdicts: readonly Verdict[]): OrderHistoryResponse {
  const count = (verdict: Verdict) => verdicts.filter((v) => v === verdict).length;
  return {
    received: verdicts.length,
    learned: count('learned'),
    replaced: count('replaced'),
    unchanged: count('unchanged'),
    ignored: verdicts.flatMap((v, index) => (typeof v === 'object' ? [{ index, reason: v.ignored }] : [])),
  };
}

/** The 400 of a request with invalid lines: every error, and a detail that counts them rather than repeating them. */
function invalid(errors: readonly FieldError[], received: number): ProblemError {
  const lines = new Set(errors.map(lineOf)).size;
  const [first] = errors;
  return ProblemError.validation(
    errors,
    `Nothing was imported: ${lines} of the ${received} lines break a rule (${first.field}: ${first.message}); errors lists each`,
  );
}
