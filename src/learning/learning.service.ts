import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  addLinkSums,
  type AnswerLink,
  fitLink,
  LINK,
  LINK_KINDS,
  type LinkKind,
  type LinkSums,
  linkSumsOf,
  noLinkSums,
} from '../sizing/answer-link.js';
import { addSums, type Evidence, type EvidenceSums, negatedSums, NO_EVIDENCE, sumsOf } from '../sizing/learning.js';
import type { Store } from '../stores/store.entity.js';
import {
  addVerdictSums,
  itemRates,
  levelsOf,
  NO_VERDICTS,
  placeKeys,
  productKey,
  type Triple,
  typeKey,
  verdictOf,
  type VerdictSums,
  verdictSumsOf,
} from '../sizing/verdicts.js';
import { evidenceOf, overrideEvidence, teachesFit } from './evidence-rules.js';
import { EvidenceRepository, type OutcomeSizesRow } from './evidence.repository.js';
import { AnswerLinksRepository } from './answer-links.repository.js';
import { type LessonLink, type LessonVerdict, type LineLesson, LineLessonsRepository } from './line-lessons.repository.js';
import { VerdictsRepository } from './verdicts.repository.js';
import { type LinkedLine, lineKey, type OrderLineState, type OutcomeEvent, type WaitingChange } from './order-lines.js';

/** An outcome as lessons compare them: the latest of a line, by when it happened, then by id (UUIDv7: by arrival). */
interface Dated {
  readonly id: string;
  readonly occurredAt: Date;
}

const isLater = (a: Dated, b: Dated): boolean =>
  a.occurredAt.getTime() > b.occurredAt.getTime() || (a.occurredAt.getTime() === b.occurredAt.getTime() && a.id > b.id);

/**
 * An imported outcome as lessons compare them: its id is the empty string, so at the same instant it comes before any
 * event (an event replaces it, it replaces no event), and an import of the same outcome again replaces nothing.
 */
const IMPORTED_ID = '';

/** The outcome a lesson teaches through, as lessons compare them; null: none (a decision, nothing, or no lesson). */
function outcomeOf(lesson: LineLesson | undefined): Dated | null {
  if (lesson?.eventId) return { id: lesson.eventId, occurredAt: lesson.occurredAt };
  return lesson?.source === 'history' ? { id: IMPORTED_ID, occurredAt: lesson.occurredAt } : null;
}

/**
 * The variant a line was bought in: its first purchase reported as an event, else the variant of the counted outcome
 * it teaches through (an imported line is its own purchase, and a later outcome counted for it was of that variant).
 */
export function boughtOf(line: OrderLineState, lesson: LineLesson | undefined): string | null {
  return line.purchasedVariantId ?? (lesson?.counted ? lesson.variantId : null);
}

/** An outcome of a past order, as an import tells it: its evidence already read against its product's chart. */
export interface ImportedOutcome {
  readonly productId: string;
  /** The product's type now: the level its evidence is added to. */
  readonly productTypeId: string;
  readonly variantId: string;
  readonly occurredAt: Date;
  /** What it says (null: nothing, e.g. a chart of one size). */
  readonly evidence: Evidence | null;
  /** The store's digest of the shopper the import names, if any. */
  readonly shopperDigest: Buffer | null;
}

/** What changes lines' lessons: new outcomes (the latest per line), decisions of sessions, imported outcomes. */
interface Changes {
  readonly latest: ReadonlyMap<string, OutcomeEvent>;
  readonly decisions: ReadonlyMap<string, string>;
  readonly imported: ReadonlyMap<string, ImportedOutcome>;
}

/** What lines taught before and teach now (a line absent from `taught` keeps what it had), and their waiting marks. */
interface Learned {
  readonly waiting: WaitingChange[];
  readonly before: ReadonlyMap<string, LineLesson>;
  readonly taught: ReadonlyMap<string, LineLesson>;
}

/** What a line is to teach from now on, decided under its row's lock. */
type Plan =
  /** Its latest outcome, whose purchase is not stored yet: kept aside, counted when the purchase comes. */
  | { readonly kind: 'wait'; readonly line: OrderLineState; readonly outcome: OutcomeEvent }
  /** Its latest outcome, of the variant bought: what it teaches replaces what the line taught before. */
  | { readonly kind: 'teach'; readonly line: OrderLineState; readonly eventId: string; readonly variantId: string | null }
  /** The decision of the session it was bought after, the line having no outcome yet. */
  | { readonly kind: 'decision'; readonly line: OrderLineState; readonly sessionId: string }
  /** An outcome that waited for a purchase of another variant: it teaches nothing. */
  | { readonly kind: 'nothing'; readonly line: OrderLineState; readonly previous: LineLesson }
  /** An outcome of a past order, later than what the line taught: it replaces it. */
  | { readonly kind: 'history'; readonly line: OrderLineState; readonly outcome: ImportedOutcome };

/** Sums to add, per product (with its type now), per product type and per shopper (hex digest). */
class SumsDelta {
  readonly products = new Map<string, { productTypeId: string; sums: EvidenceSums }>();
  readonly types = new Map<string, EvidenceSums>();
  readonly shoppers = new Map<string, EvidenceSums>();
  /** Per kind of answer, the sums to add to the store's answer link. */
  readonly links = new Map<LinkKind, LinkSums>();
  /** Per key, the sums to add to the store's verdict odds. */
  readonly verdicts = new Map<string, VerdictSums>();

  add(product: { id: string; typeNow: string; countedType: string }, sums: EvidenceSums): void {
    const known = this.products.get(product.id);
    this.products.set(product.id, { productTypeId: product.typeNow, sums: addSums(known?.sums ?? NO_EVIDENCE, sums) });
    this.types.set(product.countedType, addSums(this.types.get(product.countedType) ?? NO_EVIDENCE, sums));
  }

  addShopper(digest: Buffer, sums: EvidenceSums): void {
    const key = digest.toString('hex');
    this.shoppers.set(key, addSums(this.shoppers.get(key) ?? NO_EVIDENCE, sums));
  }

  addLink({ kind, sums }: LessonLink, sign: 1 | -1): void {
    this.links.set(kind, addLinkSums(this.links.get(kind) ?? noLinkSums(kind), sums, sign));
  }

  addVerdict(product: { id: string; typeId: string | null }, { verdict, at, places, expected }: LessonVerdict, sign: 1 | -1): void {
    const placed = places !== null && expected !== null ? { keys: places, expected } : null;
    for (const { key, sums } of verdictSumsOf(product, verdict, new Date(at), placed)) {
      this.verdicts.set(key, addVerdictSums(this.verdicts.get(key) ?? NO_VERDICTS, sums, sign));
    }
  }

  /** What a line taught before (`before`, if counted) taken back, and what it teaches now (`lesson`) added. */
  replace(before: LineLesson | undefined, lesson: LineLesson): void {
    if (before?.counted && before.answerLink) this.addLink(before.answerLink, -1);
    if (lesson.answerLink) this.addLink(lesson.answerLink, 1);
    if (before?.counted && before.verdict) this.addVerdict({ id: before.productId, typeId: before.productTypeId }, before.verdict, -1);
    if (lesson.verdict) this.addVerdict({ id: lesson.productId, typeId: lesson.productTypeId }, lesson.verdict, 1);
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
  /** The verdict rates of each product an outcome after a fit session names, before this transaction's lessons. */
  readonly rates: ReadonlyMap<string, Triple>;
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
    private readonly answerLinks: AnswerLinksRepository,
    private readonly verdicts: VerdictsRepository,
  ) {}

  /**
   * The odds of each verdict for a size of the product a shopper takes (sizing/verdicts.ts), as the store's outcomes
   * have taught them at `now`: the item's rates, and the store's places.
   */
  async verdictOdds(manager: EntityManager, storeId: string, productId: string, productTypeId: string, now: Date) {
    const sums = await this.verdicts.read(manager, storeId, [productKey(productId), typeKey(productTypeId)]);
    return { item: itemRates(levelsOf(sums, productId, productTypeId), now), places: sums };
  }

  /**
   * How the store's answers should read its shoppers, per kind of answer, as its outcomes have taught it at `now`
   * (sizing/answer-link.ts): only the kinds that rest on enough outcomes. `outcomes`: the store's outcomes counted
   * anywhere, when the caller knows them: fewer than any link needs, and nothing is read.
   */
  async links(manager: EntityManager, storeId: string, now: Date, outcomes = Infinity): Promise<Partial<Record<LinkKind, AnswerLink>>> {
    if (outcomes < LINK.minimum) return {};
    const sums = await this.answerLinks.read(manager, storeId);
    const links: Partial<Record<LinkKind, AnswerLink>> = {};
    for (const kind of LINK_KINDS) {
      const fitted = sums.has(kind) ? fitLink(kind, sums.get(kind) as LinkSums, now) : null;
      if (fitted) links[kind] = fitted;
    }
    return links;
  }

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
    return (await this.learn(manager, store, lines.lines, { latest, decisions, imported: new Map() }, now)).waiting;
  }

  /**
   * Outcomes waiting for purchases now stored, counted in the caller's transaction, which holds the lines' rows (a
   * purchase stored on its own, in one statement, found one waiting). Returns the lines whose waiting mark changes.
   */
  async countWaiting(
    manager: EntityManager,
    store: Store,
    lines: ReadonlyMap<string, OrderLineState>,
    now: Date,
  ): Promise<WaitingChange[]> {
    return (await this.learn(manager, store, lines, NO_CHANGES, now)).waiting;
  }

  /**
   * What outcomes of a store's past orders teach (`OrderHistoryService`), in the import's transaction: what the same
   * outcome would teach as an event, in the one lesson per line the line's events share. `lines`: each imported line,
   * with the variant its first purchase bought if one was reported as an event (the import stands as the purchase of
   * a line without). Returns what each line taught before and teaches now.
   */
  async learnFromHistory(
    manager: EntityManager,
    store: Store,
    lines: ReadonlyMap<string, OrderLineState>,
    outcomes: ReadonlyMap<string, ImportedOutcome>,
    now: Date,
  ): Promise<Pick<Learned, 'before' | 'taught'>> {
    const { before, taught } = await this.learn(manager, store, lines, { ...NO_CHANGES, imported: outcomes }, now);
    return { before, taught };
  }

  /** How many of the product's counted outcomes came from imports of past orders. */
  importedOutcomes(storeId: string, productId: string): Promise<number> {
    return this.lessons.importedOutcomes(storeId, productId);
  }

  /** `importedOutcomes` of each product of the store that has any. */
  storeImportedOutcomes(storeId: string): Promise<Map<string, number>> {
    return this.lessons.storeImportedOutcomes(storeId);
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

  /**
   * The lines' lessons read (and locked), planned, and the plans' lessons written with their sums. A line is planned on
   * the lesson read first; were one written meanwhile for a line read without, the write fails and all runs again.
   */
  private async learn(
    manager: EntityManager,
    store: Store,
    lines: ReadonlyMap<string, OrderLineState>,
    changes: Changes,
    now: Date,
  ): Promise<Learned> {
    const keys = new Set([...changes.latest.keys(), ...changes.decisions.keys(), ...changes.imported.keys()]);
    for (const [key, line] of lines) if (line.lessonWaiting && line.purchasedVariantId !== null) keys.add(key);
    const touched = [...keys].flatMap((key) => lines.get(key) ?? []);
    const read = await this.readLessons(manager, store, touched);
    const plans = touched.flatMap((line) => planOf(line, read.get(keyOf(line)), changes));
    const waiting = settledWaits(touched, plans, read);
    if (!plans.length) return { waiting, before: read, taught: new Map() };

    const taught = await this.readTaught(manager, store, plans, read, now);
    const delta = new SumsDelta();
    const writes: Array<{ lesson: LineLesson; replaces: boolean }> = [];
    for (const plan of plans) {
      const before = taught.previous.get(keyOf(plan.line));
      const lesson = lessonOf(plan, before, taught);
      if (lesson === null) continue;
      if (lesson.counted) delta.replace(before, lesson);
      writes.push({ lesson, replaces: read.has(keyOf(plan.line)) });
      if ((plan.kind === 'wait') !== plan.line.lessonWaiting) waiting.push({ ...plan.line, waiting: plan.kind === 'wait' });
    }
    await this.evidence.add(manager, store, delta, now);
    await this.answerLinks.add(manager, store, delta.links, now);
    await this.verdicts.add(manager, store, delta.verdicts, now);
    await this.lessons.write(manager, store, writes, now);
    return { waiting, before: taught.previous, taught: new Map(writes.map(({ lesson }) => [keyOf(lesson), lesson])) };
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
    const imported = plans.flatMap((plan) => (plan.kind === 'history' ? [plan.outcome] : []));
    const readOutcomes = async () => new Map((await this.evidence.outcomeSizes(manager, store.id, taught)).map((row) => [row.id, row]));
    let outcomes = await readOutcomes();
    const digests = [
      ...[...outcomes.values()].map((row) => row.shopper_digest),
      ...imported.map((outcome) => outcome.shopperDigest),
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
    for (const outcome of imported) if (outcome.shopperDigest) shopperProducts.set(outcome.productId, outcome.productTypeId);
    const offsets = shopperProducts.size ? await this.evidence.productOffsets(manager, store.id, shopperProducts, now) : new Map();
    const answered = new Map(
      [...outcomes.values()].filter((row) => row.features !== null).map((row) => [row.product_id, row.product_type_id]),
    );
    const keys = [...new Set([...answered].flatMap(([id, type]) => [productKey(id), typeKey(type)]))];
    const sums = answered.size ? await this.verdicts.read(manager, store.id, keys) : new Map<string, VerdictSums>();
    const rates = new Map([...answered].map(([id, type]) => [id, itemRates(levelsOf(sums, id, type), now)]));
    return { previous, outcomes, decisions, offsets, rates };
  }
}

/** The lesson a plan leaves on its line (null: the line keeps what it had). */
function lessonOf(plan: Plan, before: LineLesson | undefined, taught: Taught): LineLesson | null {
  const { orderId, lineItemId } = plan.line;
  switch (plan.kind) {
    case 'wait': {
      const { outcome } = plan;
      const base = { orderId, lineItemId, productId: outcome.productId as string, variantId: outcome.variantId };
      return { ...base, eventId: outcome.id, occurredAt: outcome.occurredAt, counted: false, source: 'event', ...NOTHING_COUNTED };
    }
    case 'teach': {
      const row = taught.outcomes.get(plan.eventId);
      return row === undefined ? null : outcomeLesson(plan, row, taught);
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
        source: 'event',
        answerLink: null,
        verdict: null,
      };
    }
    case 'nothing':
      return { ...plan.previous, eventId: null, counted: true, source: 'event', ...NOTHING_COUNTED };
    case 'history':
      return importedLesson(plan, taught.offsets);
  }
}

/** An imported outcome's lesson: what it says, and, when the import names her, its shopper's share of it. */
function importedLesson(plan: Plan & { kind: 'history' }, offsets: ReadonlyMap<string, number>): LineLesson {
  const { outcome } = plan;
  const offset = outcome.shopperDigest && outcome.evidence ? (offsets.get(outcome.productId) ?? 0) : null;
  return {
    orderId: plan.line.orderId,
    lineItemId: plan.line.lineItemId,
    productId: outcome.productId,
    variantId: outcome.variantId,
    eventId: null,
    occurredAt: outcome.occurredAt,
    counted: true,
    productTypeId: outcome.productTypeId,
    evidence: outcome.evidence,
    shopperDigest: offset === null ? null : outcome.shopperDigest,
    shopperOffset: offset,
    source: 'history',
    answerLink: null,
    verdict: outcome.evidence === null ? null : verdictLesson(outcome.evidence, null),
  };
}

/** An outcome's lesson: what it says, and, when its line was bought by a returning shopper, her share of it. */
function outcomeLesson(plan: Plan & { kind: 'teach' }, row: OutcomeSizesRow, { offsets, rates }: Taught): LineLesson {
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
    source: 'event',
    answerLink: evidence === null ? null : answerLinkOf(row, evidence),
    verdict: evidence === null ? null : verdictLesson(evidence, placeOf(row, evidence, rates)),
  };
}

/** What an outcome gives the store's verdict odds: its verdict, and its place against the answer when it had one. */
function verdictLesson(evidence: Evidence, place: { keys: string[]; expected: Triple } | null): LessonVerdict | null {
  const verdict = verdictOf(evidence);
  if (verdict === null) return null;
  return { verdict, at: evidence.at.toISOString(), places: place?.keys ?? null, expected: place?.expected ?? null };
}

/** The place of the size bought against the answer of the session it was bought after, with the item's rates then. */
function placeOf(
  row: OutcomeSizesRow,
  evidence: Evidence,
  rates: ReadonlyMap<string, Triple>,
): { keys: string[]; expected: Triple } | null {
  const expected = rates.get(row.product_id);
  if (row.recommended === null || row.features === null || expected === undefined) return null;
  const { place, usual } = placeKeys(row.recommended - 1 + evidence.bought, row.features);
  return { keys: [place, usual], expected };
}

/**
 * What an outcome teaches the store's answer link: where her size lay (the chart position of the reference plus the
 * evidence's steps) against what the answer of the session her line was bought after read of her. Only an outcome
 * that says where her size lay: a bound (the largest size kept) or a problem with no direction says nothing exact.
 */
function answerLinkOf(row: OutcomeSizesRow, evidence: Evidence): LessonLink | null {
  if (row.recommended === null || row.features === null || evidence.steps === null || evidence.bound !== undefined) return null;
  return linkSumsOf(row.features, row.recommended - 1 + evidence.steps, evidence.at);
}

const NOTHING_COUNTED = {
  productTypeId: null,
  evidence: null,
  shopperDigest: null,
  shopperOffset: null,
  answerLink: null,
  verdict: null,
} as const;

const NO_CHANGES: Changes = { latest: new Map(), decisions: new Map(), imported: new Map() };

/**
 * What a line is to teach, given what it teaches now (`before`) and what changes it: its latest outcome stored now, its
 * purchase after an overriding session, or an outcome of it imported. An outcome of another variant than the one
 * bought teaches nothing; one no later than the line's own outcome changes nothing; a decision counts only while the
 * line has no outcome.
 */
function planOf(line: OrderLineState, before: LineLesson | undefined, changes: Changes): Plan[] {
  const key = keyOf(line);
  const bought = boughtOf(line, before);
  const imported = changes.imported.get(key);
  if (imported) return historyPlan(line, before, bought ?? imported.variantId, imported);
  const outcome = changes.latest.get(key);
  const current = outcomeOf(before);
  if (outcome && (bought === null || outcome.variantId === bought) && (current === null || isLater(outcome, current))) {
    return [bought === null ? { kind: 'wait', line, outcome } : { kind: 'teach', line, eventId: outcome.id, variantId: outcome.variantId }];
  }
  if (before && !before.counted && bought !== null) {
    return [
      before.variantId === bought
        ? { kind: 'teach', line, eventId: before.eventId as string, variantId: before.variantId }
        : { kind: 'nothing', line, previous: before },
    ];
  }
  const sessionId = changes.decisions.get(key);
  if (sessionId !== undefined && bought !== null && current === null && !before?.counted) {
    return [{ kind: 'decision', line, sessionId }];
  }
  return [];
}

/**
 * An imported outcome of a line bought in `bought`: it replaces what the line teaches when it is later. Else the
 * line's own outcome stands, and one that waited for its purchase counts now, the import being that purchase.
 */
function historyPlan(line: OrderLineState, before: LineLesson | undefined, bought: string, outcome: ImportedOutcome): Plan[] {
  if (outcome.variantId !== bought) return [];
  const current = outcomeOf(before);
  if (current === null || isLater({ id: IMPORTED_ID, occurredAt: outcome.occurredAt }, current))
    return [{ kind: 'history', line, outcome }];
  if (before && !before.counted && before.variantId === bought) {
    return [{ kind: 'teach', line, eventId: before.eventId as string, variantId: before.variantId }];
  }
  return [];
}

/** Lines marked as waiting whose lesson was counted since, by an import of past orders: no longer waiting. */
function settledWaits(
  touched: readonly OrderLineState[],
  plans: readonly Plan[],
  lessons: ReadonlyMap<string, LineLesson>,
): WaitingChange[] {
  const planned = new Set(plans.map((plan) => keyOf(plan.line)));
  return touched
    .filter((line) => line.lessonWaiting && !planned.has(keyOf(line)) && lessons.get(keyOf(line))?.counted === true)
    .map((line) => ({ ...line, waiting: false }));
}
