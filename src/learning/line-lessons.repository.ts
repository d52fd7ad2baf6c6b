import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import type { Evidence } from '../sizing/learning.js';
import type { Store } from '../stores/store.entity.js';
import { CHART_LABELS_OF_P } from './order-lines.js';

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
}

/** The evidence as stored: its date as text. */
type StoredEvidence = Omit<Evidence, 'at'> & { at: string };

const LESSON_COLUMNS = `order_id, line_item_id, product_id, variant_id, event_id, occurred_at, counted, product_type_id, evidence,
  shopper_digest, shopper_offset`;

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
}>(
  'line-lessons.read',
  `SELECT l.* FROM unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
     CROSS JOIN LATERAL (SELECT ${LESSON_COLUMNS} FROM line_lessons
                          WHERE store_id = (SELECT $1::uuid) AND order_id = t.order_id AND line_item_id = t.line_item_id) AS l`,
);

const WRITE = prepared<never>(
  'line-lessons.write',
  `INSERT INTO line_lessons AS l (merchant_id, store_id, ${LESSON_COLUMNS}, updated_at)
     SELECT $1, $2, t.order_id, t.line_item_id, t.product_id, t.variant_id, t.event_id, t.occurred_at, t.counted,
            t.product_type_id, t.evidence, decode(t.shopper_digest, 'hex'), t.shopper_offset, $3
       FROM unnest($4::text[], $5::text[], $6::uuid[], $7::uuid[], $8::uuid[], $9::timestamptz[], $10::boolean[],
                   $11::uuid[], $12::jsonb[], $13::text[], $14::float8[])
         AS t(order_id, line_item_id, product_id, variant_id, event_id, occurred_at, counted, product_type_id, evidence,
              shopper_digest, shopper_offset)
     ON CONFLICT (store_id, order_id, line_item_id) DO UPDATE SET
       product_id = EXCLUDED.product_id, variant_id = EXCLUDED.variant_id, event_id = EXCLUDED.event_id,
       occurred_at = EXCLUDED.occurred_at, counted = EXCLUDED.counted, product_type_id = EXCLUDED.product_type_id,
       evidence = EXCLUDED.evidence, shopper_digest = EXCLUDED.shopper_digest, shopper_offset = EXCLUDED.shopper_offset,
       updated_at = EXCLUDED.updated_at`,
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

/** `line_lessons`: per order line, what it teaches now and what that added to the sums (`LearningService`). */
@Injectable()
export class LineLessonsRepository {
  /** The lessons of the lines, read in the transaction that holds the lines' rows (so no other changes them meanwhile). */
  async read(manager: EntityManager, storeId: string, lines: readonly { orderId: string; lineItemId: string }[]): Promise<LineLesson[]> {
    if (!lines.length) return [];
    const rows = await run(manager, READ, [storeId, lines.map((l) => l.orderId), lines.map((l) => l.lineItemId)]);
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
    }));
  }

  /** The lessons written, replacing what the lines taught before. */
  async write(manager: EntityManager, store: Store, lessons: readonly LineLesson[], now: Date): Promise<void> {
    if (!lessons.length) return;
    const column = <T>(pick: (lesson: LineLesson) => T) => lessons.map(pick);
    await run(manager, WRITE, [
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
    ]);
  }

  /** What the decisions of the sessions newly linked to lines teach (see DECISIONS). */
  decisions(manager: EntityManager, storeId: string, links: readonly { sessionId: string; orderId: string; lineItemId: string }[]) {
    return run(manager, DECISIONS, [storeId, links.map((l) => l.sessionId), links.map((l) => l.orderId), links.map((l) => l.lineItemId)]);
  }
}
