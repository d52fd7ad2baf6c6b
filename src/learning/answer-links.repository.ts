import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import { LINK_KINDS, type LinkKind, type LinkSums } from '../sizing/answer-link.js';
import type { Store } from '../stores/store.entity.js';

interface LinkRow {
  readonly kind: LinkKind;
  readonly xx: number[];
  readonly xy: number[];
  readonly yy: number;
  readonly vv: number;
  readonly weight: number;
  readonly outcomes: number;
}

const READ = prepared<LinkRow>(
  'answer_links_read',
  `SELECT kind, xx, xy, yy, vv, weight, outcomes FROM fit_answer_links WHERE store_id = $1 ORDER BY kind`,
);

/** Element by element, a row's array plus the new one's (the same length: one kind's regressors). */
const plus = (column: string) =>
  `ARRAY(SELECT t.a + t.b FROM unnest(l.${column}, EXCLUDED.${column}) WITH ORDINALITY AS t(a, b, i) ORDER BY t.i)`;
const zeros = (column: string) => `array_fill(0::float8, ARRAY[cardinality(l.${column})])`;
/** A row left with no outcome is exactly empty, not a rounding error's worth of sums. */
const REMAINS = 'l.outcomes + EXCLUDED.outcomes <> 0';

const ADD = prepared(
  'answer_links_add',
  `INSERT INTO fit_answer_links AS l (merchant_id, store_id, kind, xx, xy, yy, vv, weight, outcomes, updated_at)
   SELECT $1, $2, t.kind, t.xx::float8[], t.xy::float8[], t.yy, t.vv, t.weight, t.outcomes, $3
     FROM unnest($4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[], $9::float8[], $10::int[])
       AS t(kind, xx, xy, yy, vv, weight, outcomes)
   ON CONFLICT (store_id, kind) DO UPDATE SET
     xx = CASE WHEN ${REMAINS} THEN ${plus('xx')} ELSE ${zeros('xx')} END,
     xy = CASE WHEN ${REMAINS} THEN ${plus('xy')} ELSE ${zeros('xy')} END,
     yy = CASE WHEN ${REMAINS} THEN l.yy + EXCLUDED.yy ELSE 0 END,
     vv = CASE WHEN ${REMAINS} THEN l.vv + EXCLUDED.vv ELSE 0 END,
     weight = CASE WHEN ${REMAINS} THEN l.weight + EXCLUDED.weight ELSE 0 END,
     outcomes = l.outcomes + EXCLUDED.outcomes,
     updated_at = EXCLUDED.updated_at`,
);

/** A float array as PostgreSQL's text form, every digit kept (a text[] parameter carries arrays of any length). */
const arrayText = (values: readonly number[]) => `{${values.map((v) => String(v)).join(',')}}`;

/**
 * The store's answer links' sums (sizing/answer-link.ts), one row per kind of answer: read when a session is answered,
 * added to in the transaction that records an outcome (a replaced lesson comes as negative sums), kinds in order.
 */
@Injectable()
export class AnswerLinksRepository {
  async read(manager: EntityManager, storeId: string): Promise<Map<LinkKind, LinkSums>> {
    const rows = await run(manager, READ, [storeId]);
    return new Map(
      rows.map((row) => [
        row.kind,
        {
          xx: row.xx.map(Number),
          xy: row.xy.map(Number),
          yy: Number(row.yy),
          vv: Number(row.vv),
          weight: Number(row.weight),
          count: row.outcomes,
        },
      ]),
    );
  }

  async add(manager: EntityManager, store: Store, sums: ReadonlyMap<LinkKind, LinkSums>, now: Date): Promise<void> {
    const kinds = LINK_KINDS.filter((kind) => sums.has(kind));
    if (!kinds.length) return;
    const each = kinds.map((kind) => sums.get(kind) as LinkSums);
    await run(manager, ADD, [
      store.merchantId,
      store.id,
      now.toISOString(),
      kinds,
      each.map((s) => arrayText(s.xx)),
      each.map((s) => arrayText(s.xy)),
      each.map((s) => s.yy),
      each.map((s) => s.vv),
      each.map((s) => s.weight),
      each.map((s) => s.count),
    ]);
  }
}
