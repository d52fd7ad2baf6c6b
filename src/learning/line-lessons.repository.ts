import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import type { Evidence } from '../sizing/learning.js';
import type { LinkKind, LinkSums } from '../sizing/answer-link.js';
import type { Triple, Verdict } from '../sizing/verdicts.js';
import type { Store } from '../stores/store.entity.js';
import { CHART_LABELS_OF_P } from './order-lines.js';

/** Who told the outcome a lesson teaches through: an event (or a session's decision), or an import of past orders. */
export type LessonSource = 'event' | 'history';

/**
 * What an order line teaches now (`line_lessons`): its latest outcome, or, before any, the decision of the session it
 * was bought after; and exactly what that added to the sums, so that a later outcome takes it back first.
 */
export interface LineLesson {
  readonly orderId: string;
  readonly lineItemId: string;
  readonly productId: string;
  /** The outcome's variant (whether it is the variant bought decides whether it teaches). */
  readonly variantId: string | null;
  /** The outcome behind the lesson; null for a session's decision, or for nothing at all. */
  readonly eventId: string | null;
  readonly occurredAt: Date;
  /** False while the outcome waits for its line's purchase: nothing of it is in the sums yet. */
  readonly counted: boolean;
  /** The product type its evidence was added to (a product may move to another type since). */
  readonly productTypeId: string | null;
  /** The evidence added to the product's and its type's sums; null when the lesson added nothing. */
  readonly evidence: Evidence | null;
  /** The shopper whose sums it was added to, with the product's offset taken off it then (null: none, or erased). */
  readonly shopperDigest: Buffer | null;
  readonly shopperOffset: number | null;
  readonly source: LessonSource;
  /** What it added to its store's answer link (sizing/answer-link.ts); null when nothing. */
  readonly answerLink: LessonLink | null;
  /** What it added to its store's verdict odds (sizing/verdicts.ts); null when nothing. */
  readonly verdict: LessonVerdict | null;
}

/**
 * A lesson's share of its store's verdict odds: the verdict given, when (ISO 8601), and the places of the size bought
 * against the answer of the session it was bought after, with what the item's rates expected there then (null: none).
 */
export interface LessonVerdict {
  readonly verdict: Verdict;
  readonly at: string;
  readonly places: readonly string[] | null;
  readonly expected: Triple | null;
}

/** A lesson's share of its store's answer link: the kind of answer it taught, and the sums it added. */
export interface LessonLink {
  readonly kind: LinkKind;
  readonly sums: LinkSums;
}

/** A lesson to write, and whether its line had one when read (under the lock that row then took). */
interface LessonWrite {
  readonly lesson: LineLesson;
  readonly replaces: boolean;
}

/**
 * A lesson written meanwhile, by another transaction, for a line this one read without one: its work is run again
 * (SQLSTATE 40001, which `Transactions` retries), and then reads that lesson. Only an import of past orders and an event
 * of the same new line can meet so: events of one line are applied one after the other under the line's row.
 */
class LessonWrittenMeanwhile extends Error {
  readonly code = '40001';
}

/** The evidence as stored: its date as text. */
type StoredEvidence = Omit<Evidence, 'at'> & { at: string };

const LESSON_COLUMNS = `order_id, line_item_id, product_id, variant_id, event_id, occurred_at, counted, product_type_id, evidence,
  shopper_digest, shopper_offset, source, answer_link, verdict`;

const READ = prepared<{
  order_id: string;
  line_item_id: string;
  product_id: string;
  variant_id: string | null;
  event_id: string | null;
  occurred_at: Date;
  counted: boolean;
  product_type_id: string | null;
  evidence: StoredEvidence | null;
  shopper_digest: Buffer | null;
  shopper_offset: number | null;
  source: LessonSource;
  answer_link: LessonLink | null;
  verdict: LessonVerdict | null;
}>(
  'line-lessons.read',
  `SELECT l.* FROM unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
     CROSS JOIN LATERAL (SELECT ${LESSON_COLUMNS} FROM line_lessons
                          WHERE store_id = (SELECT $1::uuid) AND order_id = t.order_id AND line_item_id = t.line_item_id
                            FOR UPDATE) AS l`,
);

/**
 * The lessons written: a line's row read (and locked) is updated, a new line's row inserted. A new line's row that
 * another transaction inserted meanwhile is left as it is and not counted in `written` (see LessonWrittenMeanwhile).
 */
const WRITE = prepared<{ written: number }>(
  'line-lessons.write',
  `WITH t AS (
     SELECT * FROM unnest($4::text[], $5::text[], $6::uuid[], $7::uuid[], $8::uuid[], $9::timestamptz[], $10::boolean[],
                          $11::uuid[], $12::jsonb[], $13::text[], $14::float8[], $15::text[], $16::boolean[], $17::jsonb[],
                          $18::jsonb[])
       AS t(order_id, line_item_id, product_id, variant_id, event_id, occurred_at, counted, product_type_id, evidence,
            shopper_digest, shopper_offset, source, replaces, answer_link, verdict)),
   updated AS (
     UPDATE line_lessons AS l SET
       product_id = t.product_id, variant_id = t.variant_id, event_id = t.event_id, occurred_at = t.occurred_at,
       counted = t.counted, product_type_id = t.product_type_id, evidence = t.evidence,
       shopper_digest = decode(t.shopper_digest, 'hex'), shopper_offset = t.shopper_offset, source = t.source,
       answer_link = t.answer_link, verdict = t.verdict, updated_at = $3
       FROM t
      WHERE t.replaces AND l.store_id = (SELECT $2::uuid) AND l.order_id = t.order_id AND l.line_item_id = t.line_item_id
     RETURNING 1),
   inserted AS (
     INSERT INTO line_lessons (merchant_id, store_id, ${LESSON_COLUMNS}, updated_at)
     SELECT $1, $2, t.order_id, t.line_item_id, t.product_id, t.variant_id, t.event_id, t.occurred_at, t.counted,
            t.product_type_id, t.evidence, decode(t.shopper_digest, 'hex'), t.shopper_offset, t.source, t.answer_link,
            t.verdict, $3
       FROM t WHERE NOT t.replaces
     ON CONFLICT (store_id, order_id, line_item_id) DO NOTHING
     RETURNING 1)
   SELECT (SELECT count(*) FROM updated)::int + (SELECT count(*) FROM inserted)::int AS written`,
);

/** How many of a product's lessons that taught something an import of past orders told. */
const IMPORTED = prepared<{ imported: number }>(
  'line-lessons.imported',
  `SELECT count(*)::int AS imported FROM line_lessons
    WHERE store_id = $1 AND product_id = $2 AND source = 'history' AND evidence IS NOT NULL`,
);

/** The same for every product of the store that has any (its ranking). */
const STORE_IMPORTED = prepared<{ product_id: string; imported: number }>(
  'line-lessons.store-imported',
  `SELECT product_id, count(*)::int AS imported FROM line_lessons
    WHERE store_id = $1 AND source = 'history' AND evidence IS NOT NULL
    GROUP BY product_id`,
);

/**
 * The decisions that lines newly bought after an overriding session teach: the size chosen and the stated chart's
 * answer, as positions in the product's chart. Only when the line was bought in the size chosen, is the session's only
 * line (one session teaches once) and the line's only session.
 */
const DECISIONS = prepared<{
  order_id: string;
  line_item_id: string;
  product_id: string;
  product_type_id: string;
  chosen: number | null;
  reference: number | null;
  decided_at: Date;
}>(
  'line-lessons.decisions',
  `SELECT l.order_id, l.line_item_id, s.product_id, p.product_type_id,
          array_position(c.labels, s.decision->>'size_label') AS chosen,
          array_position(c.labels, coalesce(s.recommendation->'adjustment'->>'chart_size_label',
                                            s.recommendation->>'size_label')) AS reference,
          s.completed_at AS decided_at
     FROM events_session_lines l
     JOIN unnest($2::uuid[], $3::text[], $4::text[]) AS t(session_id, order_id, line_item_id)
       ON l.session_id = t.session_id AND l.order_id = t.order_id AND l.line_item_id = t.line_item_id
     JOIN events_order_lines o ON o.store_id = l.store_id AND o.order_id = l.order_id AND o.line_item_id = l.line_item_id
     JOIN catalog_variants v ON v.store_id = o.store_id AND v.id = o.purchased_variant_id
     JOIN fit_sessions s ON s.store_id = l.store_id AND s.id = l.session_id
     JOIN catalog_products p ON p.store_id = s.store_id AND p.id = s.product_id
     ${CHART_LABELS_OF_P}
    WHERE l.store_id = (SELECT $1::uuid) AND NOT l.shared AND s.outcome = 'overridden'
      AND v.product_id = s.product_id AND v.size_label = s.decision->>'size_label'
      AND NOT EXISTS (SELECT FROM events_session_lines x
                       WHERE x.store_id = l.store_id AND x.session_id = l.session_id
                         AND (x.order_id, x.line_item_id) <> (l.order_id, l.line_item_id))`,
);

const toEvidence = (stored: StoredEvidence | null): Evidence | null => (stored === null ? null : { ...stored, at: new Date(stored.at) });

/** Lines in the order their lessons are locked in, the same in every transaction. */
const byLine = (a: { orderId: string; lineItemId: string }, b: { orderId: string; lineItemId: string }): number =>
  a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : a.lineItemId < b.lineItemId ? -1 : a.lineItemId > b.lineItemId ? 1 : 0;

/** `line_lessons`: per order line, what it teaches now and what that added to the sums (`LearningService`). */
@Injectable()
export class LineLessonsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The lessons of the lines, locked until the caller's transaction ends (in the lines' order, so that two transactions
   * never wait for each other's): events hold their lines' rows too, an import of past orders only these.
   */
  async read(manager: EntityManager, storeId: string, lines: readonly { orderId: string; lineItemId: string }[]): Promise<LineLesson[]> {
    if (!lines.length) return [];
    const sorted = [...lines].sort(byLine);
    const rows = await run(manager, READ, [storeId, sorted.map((l) => l.orderId), sorted.map((l) => l.lineItemId)]);
    return rows.map((row) => ({
      orderId: row.order_id,
      lineItemId: row.line_item_id,
      productId: row.product_id,
      variantId: row.variant_id,
      eventId: row.event_id,
      occurredAt: row.occurred_at,
      counted: row.counted,
      productTypeId: row.product_type_id,
      evidence: toEvidence(row.evidence),
      shopperDigest: row.shopper_digest,
      shopperOffset: row.shopper_offset,
      source: row.source,
      answerLink: row.answer_link,
      verdict: row.verdict,
    }));
  }

  /**
   * The lessons written, replacing what the lines taught before (`replaces`: the line had a lesson, read and locked by
   * this transaction). Throws a retryable error when another transaction wrote a line's first lesson meanwhile.
   */
  async write(manager: EntityManager, store: Store, writes: readonly LessonWrite[], now: Date): Promise<void> {
    if (!writes.length) return;
    const lessons = writes.map((w) => w.lesson);
    const column = <T>(pick: (lesson: LineLesson) => T) => lessons.map(pick);
    const [{ written }] = await run(manager, WRITE, [
      store.merchantId,
      store.id,
      now.toISOString(),
      column((l) => l.orderId),
      column((l) => l.lineItemId),
      column((l) => l.productId),
      column((l) => l.variantId),
      column((l) => l.eventId),
      column((l) => l.occurredAt.toISOString()),
      column((l) => l.counted),
      column((l) => l.productTypeId),
      column((l) => (l.evidence === null ? null : JSON.stringify({ ...l.evidence, at: l.evidence.at.toISOString() }))),
      column((l) => l.shopperDigest?.toString('hex') ?? null),
      column((l) => l.shopperOffset),
      column((l) => l.source),
      writes.map((w) => w.replaces),
      column((l) => (l.answerLink === null ? null : JSON.stringify(l.answerLink))),
      column((l) => (l.verdict === null ? null : JSON.stringify(l.verdict))),
    ]);
    if (written !== writes.length) throw new LessonWrittenMeanwhile('a lesson of a new line was written meanwhile');
  }

  /** How many of the product's lessons that taught something came from imports of past orders. */
  async importedOutcomes(storeId: string, productId: string): Promise<number> {
    const [row] = await run(this.dataSource, IMPORTED, [storeId, productId]);
    return row.imported;
  }

  /** `importedOutcomes` of each product of the store that has any. */
  async storeImportedOutcomes(storeId: string): Promise<Map<string, number>> {
    return new Map((await run(this.dataSource, STORE_IMPORTED, [storeId])).map((row) => [row.product_id, row.imported]));
  }

  /** What the decisions of the sessions newly linked to lines teach (see DECISIONS). */
  decisions(manager: EntityManager, storeId: string, links: readonly { sessionId: string; orderId: string; lineItemId: string }[]) {
    return run(manager, DECISIONS, [storeId, links.map((l) => l.sessionId), links.map((l) => l.orderId), links.map((l) => l.lineItemId)]);
  }
}
