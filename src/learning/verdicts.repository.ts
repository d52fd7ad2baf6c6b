import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import { STORE_KEY, type Triple, type VerdictSums } from '../sizing/verdicts.js';
import type { Store } from '../stores/store.entity.js';

interface VerdictRow {
  readonly key: string;
  readonly observed: number[];
  readonly expected: number[];
  readonly outcomes: number;
}

/** The store's row, its places' rows (`place:` and `usual:`) and the rows of the keys named (products', types'). */
const READ = prepared<VerdictRow>(
  'verdicts_read',
  `SELECT key, observed, expected, outcomes FROM fit_verdicts
    WHERE store_id = $1 AND (key = '${STORE_KEY}' OR key LIKE 'place:%' OR key LIKE 'usual:%' OR key = ANY($2::text[]))`,
);

/** Element by element, a row's array plus the new one's; a row left with no outcome is exactly empty. */
const plus = (column: string) =>
  `CASE WHEN v.outcomes + EXCLUDED.outcomes <> 0
        THEN ARRAY[v.${column}[1] + EXCLUDED.${column}[1], v.${column}[2] + EXCLUDED.${column}[2], v.${column}[3] + EXCLUDED.${column}[3]]
        ELSE ARRAY[0, 0, 0]::float8[] END`;

const ADD = prepared(
  'verdicts_add',
  `INSERT INTO fit_verdicts AS v (merchant_id, store_id, key, observed, expected, outcomes, updated_at)
   SELECT $1, $2, t.key, ARRAY[t.o1, t.o2, t.o3], ARRAY[t.e1, t.e2, t.e3], t.outcomes, $3
     FROM unnest($4::text[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::int[])
       AS t(key, o1, o2, o3, e1, e2, e3, outcomes)
    ORDER BY t.key
   ON CONFLICT (store_id, key) DO UPDATE SET
     observed = ${plus('observed')},
     expected = ${plus('expected')},
     outcomes = v.outcomes + EXCLUDED.outcomes,
     updated_at = EXCLUDED.updated_at`,
);

const triple = (values: readonly (number | string)[]): Triple => [Number(values[0]), Number(values[1]), Number(values[2])];

/**
 * The store's verdict odds' sums (sizing/verdicts.ts), one row per key: read when a session is answered and when an
 * outcome is counted, added to in the transaction that records an outcome (a replaced lesson comes as negative sums),
 * keys in order, so that two transactions take their rows' locks in the same order.
 */
@Injectable()
export class VerdictsRepository {
  /** The store's row, every place's, and the rows of `keys` (products', types'), by key. */
  async read(manager: EntityManager, storeId: string, keys: readonly string[]): Promise<Map<string, VerdictSums>> {
    const rows = await run(manager, READ, [storeId, keys]);
    return new Map(rows.map((row) => [row.key, { observed: triple(row.observed), expected: triple(row.expected), count: row.outcomes }]));
  }

  async add(manager: EntityManager, store: Store, sums: ReadonlyMap<string, VerdictSums>, now: Date): Promise<void> {
    if (!sums.size) return;
    const keys = [...sums.keys()].sort();
    const each = keys.map((key) => sums.get(key) as VerdictSums);
    await run(manager, ADD, [
      store.merchantId,
      store.id,
      now.toISOString(),
      keys,
      ...[0, 1, 2].map((i) => each.map((s) => s.observed[i])),
      ...[0, 1, 2].map((i) => each.map((s) => s.expected[i])),
      each.map((s) => s.count),
    ]);
  }
}
