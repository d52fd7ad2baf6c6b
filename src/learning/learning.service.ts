import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { addSums, type Evidence, type EvidenceSums, negatedSums, NO_EVIDENCE, sumsOf } from '../sizing/learning.js';
import type { Store } from '../stores/store.entity.js';
import { evidenceOf, overrideEvidence, teachesFit } from './evidence-rules.js';
import { EvidenceRepository, type OutcomeSizesRow } from './evidence.repository.js';
import { type LineLesson, LineLessonsRepository } from './line-lessons.repository.js';
import { type LinkedLine, lineKey, type OrderLineState, type OutcomeEvent, type WaitingChange } from './order-lines.js';

/** An outcome as lessons compare them: the latest of a line, by when it happened, then by id (UUIDv7: by arrival). */
interface Dated {
  readonly id: string;
  readonly occurredAt: Date;
}

const isLater = (a: Dated, b: Dated): boolean =>
  a.occurredAt.getTime() > b.occurredAt.getTime() || (a.occurredAt.getTime() === b.occurredAt.getTime() && a.id > b.id);

/** What a line is to teach from now on, decided under its row's lock. */
type Plan =
  /** Its latest outcome, whose purchase is not stored yet: kept aside, counted when the purchase comes. */
  | { readonly kind: 'wait'; readonly line: OrderLineState; readonly outcome: OutcomeEvent }
  /** Its latest outcome, of the variant bought: what it teaches replaces what the line taught before. */
  | { readonly kind: 'teach'; readonly line: OrderLineState; readonly eventId: string; readonly variantId: string | null }
  /** The decision of the session it was bought after, the line having no outcome yet. */
  | { readonly kind: 'decision'; readonly line: OrderLineState; readonly sessionId: string }
  /** An outcome that waited for a purchase of another variant: it teaches nothing. */
  | { readonly kind: 'nothing'; readonly line: OrderLineState; readonly previous: LineLesson };

/** Sums to add, per product (with its type now), per product type and per shopper (hex digest). */
class SumsDelta {
  readonly products = new Map<string, { productTypeId: string; sums: EvidenceSums }>();
  readonly types = new Map<string, EvidenceSums>();
  readonly shoppers = new Map<string, EvidenceSums>();

  add(product: { id: string; typeNow: string; countedType: string }, sums: EvidenceSums): void {
    const known = this.products.get(product.id);
    this.products.set(product.id, { productTypeId: product.typeNow, sums: addSums(known?.sums ?? NO_EVIDENCE, sums) });
    this.types.set(product.countedType, addSums(this.types.get(product.countedType) ?? NO_EVIDENCE, sums));
  }

  addShopper(digest: Buffer, sums: EvidenceSums): void {
    const key = digest.toString('hex');
    this.shoppers.set(key, addSums(this.shoppers.get(key) ?? NO_EVIDENCE, sums));
  }

  /** What a line taught before (`before`, if counted) taken back, and what it teaches now (`lesson`) added. */
  replace(before: LineLesson | undefined, lesson: LineLesson): void {
    const typeNow = lesson.productTypeId as string;
    if (before?.counted && before.evidence) {
      this.add({ id: before.productId, typeNow, countedType: before.productTypeId as string }, negatedSums(sumsOf(before.evidence)));
      if (before.shopperDigest && before.shopperOffset !== null) {
        this.addShopper(before.shopperDigest, negatedSums(sumsOf(beyondProduct(before.evidence, before.shopperOffset))));
      }
    }
    if (lesson.evidence) {
      this.add({ id: lesson.productId, typeNow, countedType: typeNow }, sumsOf(lesson.evidence));
      if (lesson.shopperDigest && lesson.shopperOffset !== null) {
        this.addShopper(lesson.shopperDigest, sumsOf(beyondProduct(lesson.evidence, lesson.shopperOffset)));
      }
    }
  }
}

/** What the planned lessons are read from, once the shoppers they name are locked. */
interface Taught {
  /** What each line taught before. */
  readonly previous: ReadonlyMap<string, LineLesson>;
  /** What the outcomes to teach say, by event id. */
  readonly outcomes: ReadonlyMap<string, OutcomeSizesRow>;
  /** What the decisions to teach say, by line. */
  readonly decisions: ReadonlyMap<string, DecisionRow>;
  /** The learned offset of each product a returning shopper's outcome names, before this transaction's lessons. */
  readonly offsets: ReadonlyMap<string, number>;
}

type DecisionRow = Awaited<ReturnType<LineLessonsRepository['decisions']>>[number];

const keyOf = (line: { orderId: string; lineItemId: string }) => lineKey(line.orderId, line.lineItemId);

/** A shopper's share of an outcome: its evidence less the product's learned offset when it was counted. */
const beyondProduct = (evidence: Evidence, offset: number): Evidence => ({
  ...evidence,
  steps: evidence.steps === null ? null : evidence.steps - offset,
  bought: evidence.bought - offset,
});

/**
 * Learning how products fit from outcomes (docs/decisions/009-learning-from-outcomes.md), the one service other
 * modules call: ingestion tells it what it stored, the fit flow and the merchant's views read what it learned.
 *
 * One lesson per order line: a line teaches through its latest outcome only, and only once its purchase of that
 * variant is stored; before any outcome, through the decision of the session it was bought after, as a direction.
 * Each change takes back what the line taught before and adds what it teaches now, to its product's, its type's and
 * its shopper's sums, in the transaction that stores the events and holds the line's row, so concurrent deliveries
 * and retries of one line are applied one after the other. Events that teach nothing, and purchases of lines with no
 * outcome waiting, cost no statement here.
 */
@Injectable()
export class LearningService {
  constructor(
    private readonly evidence: EvidenceRepository,
    private readonly lessons: LineLessonsRepository,
  ) {}

  /**
   * What newly stored events change in their lines' lessons, in the transaction that stored them and summed them up
   * (locking their lines and linking them to sessions). `overridden`: whether a session's decision was for another
   * size than recommended. Returns the lines whose waiting mark changes.
   */
  async recordOutcomes(
    manager: EntityManager,
    store: Store,
    stored: readonly OutcomeEvent[],
    lines: { readonly lines: ReadonlyMap<string, OrderLineState>; readonly linked: readonly LinkedLine[] },
    overridden: (sessionId: string) => boolean,
    now: Date,
  ): Promise<WaitingChange[]> {
    const latest = new Map<string, OutcomeEvent>();
    for (const event of stored) {
      if (!teachesFit(event) || event.productId === null || event.orderId === null || event.lineItemId === null) continue;
      const key = lineKey(event.orderId, event.lineItemId);
      const known = latest.get(key);
      if (!known || isLater(event, known)) latest.set(key, event);
    }
    const decisions = new Map(
      lines.linked.filter((link) => overridden(link.sessionId)).map((link) => [lineKey(link.orderId, link.lineItemId), link.sessionId]),
    );
    const waiting = [...lines.lines.values()].some((line) => line.lessonWaiting && line.purchasedVariantId !== null);
    if (!latest.size && !decisions.size && !waiting) return [];
    return this.learn(manager, store, lines.lines, latest, decisions, now);
  }

  /**
   * Outcomes waiting for purchases now stored, counted in the caller's transaction, which holds the lines' rows (a
   * purchase stored on its own, in one statement, found one waiting). Returns the lines whose waiting mark changes.
   */
  countWaiting(manager: EntityManager, store: Store, lines: ReadonlyMap<string, OrderLineState>, now: Date): Promise<WaitingChange[]> {
    return this.learn(manager, store, lines, new Map(), new Map(), now);
  }

  /** The product's evidence with its type's and its store's, in the caller's transaction. */
  levels(manager: EntityManager, storeId: string, productId: string, productTypeId: string) {
    return this.evidence.levels(manager, storeId, productId, productTypeId);
  }

  /** `levels`, read outside a transaction. */
  currentLevels(storeId: string, productId: string, productTypeId: string) {
    return this.evidence.currentLevels(storeId, productId, productTypeId);
  }

  /** A returning shopper's sums (none when she has no outcome yet, or was erased). */
  shopper(manager: EntityManager, storeId: string, digest: Buffer) {
    return this.evidence.shopper(manager, storeId, digest);
  }

  /** Forgets what a shopper's outcomes said, in her erasure's transaction (after her sessions are unlinked). */
  forgetShopper(manager: EntityManager, storeId: string, digest: Buffer): Promise<void> {
    return this.evidence.forgetShopper(manager, storeId, digest);
  }

  /** Per size label, what happened to the product's order lines. */
  sizeOutcomes(storeId: string, productId: string) {
    return this.evidence.sizeOutcomes(storeId, productId);
  }

  /** Every product of the store that has evidence, with its types' sums and the store's. */
  storeEvidence(storeId: string) {
    return this.evidence.storeEvidence(storeId);
  }

  private async learn(
    manager: EntityManager,
    store: Store,
    lines: ReadonlyMap<string, OrderLineState>,
    latest: ReadonlyMap<string, OutcomeEvent>,
    decisions: ReadonlyMap<string, string>,
    now: Date,
  ): Promise<WaitingChange[]> {
    const keys = new Set([...latest.keys(), ...decisions.keys()]);
    for (const [key, line] of lines) if (line.lessonWaiting && line.purchasedVariantId !== null) keys.add(key);
    const touched = [...keys].flatMap((key) => lines.get(key) ?? []);
    const previous = await this.readLessons(manager, store, touched);
    const plans = touched.flatMap((line) => planOf(line, previous.get(keyOf(line)), latest, decisions));
    if (!plans.length) return [];

    const taught = await this.readTaught(manager, store, plans, previous, now);
    const delta = new SumsDelta();
    const written: LineLesson[] = [];
    const waiting: WaitingChange[] = [];
    for (const plan of plans) {
      const before = taught.previous.get(keyOf(plan.line));
      const lesson = lessonOf(plan, before, taught);
      if (lesson === null) continue;
      if (lesson.counted) delta.replace(before, lesson);
      written.push(lesson);
      if ((plan.kind === 'wait') !== plan.line.lessonWaiting) waiting.push({ ...plan.line, waiting: plan.kind === 'wait' });
    }
    await this.evidence.add(manager, store, delta, now);
    await this.lessons.write(manager, store, written, now);
    return waiting;
  }

  private async readLessons(manager: EntityManager, store: Store, lines: readonly OrderLineState[]): Promise<Map<string, LineLesson>> {
    return new Map((await this.lessons.read(manager, store.id, lines)).map((lesson) => [keyOf(lesson), lesson]));
  }

  /**
   * What the plans teach from: the outcomes and decisions they count, and the offsets a returning shopper's share is
   * measured against. A shopper named by an outcome, or by what a line taught before, may have been erased since they
   * were read: she is locked out first, then they are read again.
   */
  private async readTaught(
    manager: EntityManager,
    store: Store,
    plans: readonly Plan[],
    previous: ReadonlyMap<string, LineLesson>,
    now: Date,
  ): Promise<Taught> {
    const taught = plans.flatMap((plan) => (plan.kind === 'teach' ? [plan.eventId] : []));
    const readOutcomes = async () => new Map((await this.evidence.outcomeSizes(manager, store.id, taught)).map((row) => [row.id, row]));
    let outcomes = await readOutcomes();
    const digests = [
      ...[...outcomes.values()].map((row) => row.shopper_digest),
      ...plans.map((plan) => previous.get(keyOf(plan.line))?.shopperDigest ?? null),
    ].filter((digest) => digest !== null);
    if (digests.length) {
      await this.evidence.lockShoppers(manager, store.id, digests);
      [previous, outcomes] = [
        await this.readLessons(
          manager,
          store,
          plans.map((plan) => plan.line),
        ),
        await readOutcomes(),
      ];
    }
    const decided = plans.flatMap((plan) => (plan.kind === 'decision' ? [{ sessionId: plan.sessionId, ...plan.line }] : []));
    const decisions = decided.length
      ? new Map((await this.lessons.decisions(manager, store.id, decided)).map((row) => [lineKey(row.order_id, row.line_item_id), row]))
      : new Map<string, DecisionRow>();
    const shopperProducts = new Map<string, string>();
    for (const row of outcomes.values()) if (row.shopper_digest) shopperProducts.set(row.product_id, row.product_type_id);
    const offsets = shopperProducts.size ? await this.evidence.productOffsets(manager, store.id, shopperProducts, now) : new Map();
    return { previous, outcomes, decisions, offsets };
  }
}

/** The lesson a plan leaves on its line (null: the line keeps what it had). */
function lessonOf(plan: Plan, before: LineLesson | undefined, taught: Taught): LineLesson | null {
  const { orderId, lineItemId } = plan.line;
  switch (plan.kind) {
    case 'wait': {
      const { outcome } = plan;
      const base = { orderId, lineItemId, productId: outcome.productId as string, variantId: outcome.variantId };
      return { ...base, eventId: outcome.id, occurredAt: outcome.occurredAt, counted: false, ...NOTHING_COUNTED };
    }
    case 'teach': {
      const row = taught.outcomes.get(plan.eventId);
      return row === undefined ? null : outcomeLesson(plan, row, taught.offsets);
    }
    case 'decision': {
      const row = taught.decisions.get(lineKey(orderId, lineItemId));
      if (row === undefined) return null;
      const evidence = overrideEvidence({ chosen: row.chosen, reference: row.reference }, row.decided_at);
      if (evidence === null && before === undefined) return null;
      const base = { orderId, lineItemId, productId: row.product_id, variantId: plan.line.purchasedVariantId };
      return {
        ...base,
        eventId: null,
        occurredAt: row.decided_at,
        counted: true,
        productTypeId: row.product_type_id,
        evidence,
        shopperDigest: null,
        shopperOffset: null,
      };
    }
    case 'nothing':
      return { ...plan.previous, eventId: null, counted: true, ...NOTHING_COUNTED };
  }
}

/** An outcome's lesson: what it says, and, when its line was bought by a returning shopper, her share of it. */
function outcomeLesson(plan: Plan & { kind: 'teach' }, row: OutcomeSizesRow, offsets: ReadonlyMap<string, number>): LineLesson {
  const evidence = evidenceOf(
    { type: row.type, reason: row.reason, fitFeedback: row.fit_feedback, occurredAt: row.occurred_at },
    { bought: row.bought, exchangedTo: row.exchanged_to, recommended: row.recommended, count: row.sizes },
  );
  const offset = row.shopper_digest && evidence ? (offsets.get(row.product_id) ?? 0) : null;
  return {
    orderId: plan.line.orderId,
    lineItemId: plan.line.lineItemId,
    productId: row.product_id,
    variantId: plan.variantId,
    eventId: row.id,
    occurredAt: row.occurred_at,
    counted: true,
    productTypeId: row.product_type_id,
    evidence,
    shopperDigest: offset === null ? null : row.shopper_digest,
    shopperOffset: offset,
  };
}

const NOTHING_COUNTED = { productTypeId: null, evidence: null, shopperDigest: null, shopperOffset: null } as const;

/**
 * What a line is to teach, given what it teaches now (`before`), its latest outcome stored now and whether it was just
 * bought after an overriding session. An outcome of another variant than the one bought teaches nothing; one no later
 * than the line's own outcome changes nothing; a decision counts only while the line has no outcome.
 */
function planOf(
  line: OrderLineState,
  before: LineLesson | undefined,
  latest: ReadonlyMap<string, OutcomeEvent>,
  decisions: ReadonlyMap<string, string>,
): Plan[] {
  const key = lineKey(line.orderId, line.lineItemId);
  const bought = line.purchasedVariantId;
  const outcome = latest.get(key);
  const beforeOutcome = before?.eventId ? { id: before.eventId, occurredAt: before.occurredAt } : null;
  if (outcome && (bought === null || outcome.variantId === bought) && (beforeOutcome === null || isLater(outcome, beforeOutcome))) {
    return [bought === null ? { kind: 'wait', line, outcome } : { kind: 'teach', line, eventId: outcome.id, variantId: outcome.variantId }];
  }
  if (before && !before.counted && bought !== null) {
    return [
      before.variantId === bought
        ? { kind: 'teach', line, eventId: before.eventId as string, variantId: before.variantId }
        : { kind: 'nothing', line, previous: before },
    ];
  }
  const sessionId = decisions.get(key);
  if (sessionId !== undefined && bought !== null && beforeOutcome === null && !before?.counted) {
    return [{ kind: 'decision', line, sessionId }];
  }
  return [];
}
