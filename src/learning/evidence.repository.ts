import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import { BUYING_TYPES, ORDER_OUTCOME_TYPES, sqlOutcome, sqlTypes } from '../events/event-types.js';
import { addSums, BOUND_STEPS, type EvidenceSums, learnedOffsets, NO_EVIDENCE } from '../sizing/learning.js';
import type { AnswerFeatures } from '../sizing/answer-link.js';
import type { Store } from '../stores/store.entity.js';
import { CHART_LABELS_OF_P, type SizeOutcomes } from './order-lines.js';

/** The evidence about one product and the levels it is shrunk towards (learning.ts). */
interface EvidenceLevels {
  readonly product: EvidenceSums;
  readonly productType: EvidenceSums;
  readonly store: EvidenceSums;
}

/** A product's own sums, with its type (the store's products, for ranking them). */
interface ProductEvidence {
  readonly productId: string;
  readonly productTypeId: string;
  readonly sums: EvidenceSums;
}

/** A store's evidence at every level, read in one statement: each product's own sums, each type's, and the store's. */
interface StoreEvidence {
  readonly products: readonly ProductEvidence[];
  readonly types: ReadonlyMap<string, EvidenceSums>;
  readonly store: EvidenceSums;
}

/** The sums' numbers and arrays (learning.ts), each with its column: the one list every statement and mapping below follows. */
const SCALAR_FIELDS = {
  weight: 'weight',
  weightedSteps: 'weighted_steps',
  weightedSquares: 'weighted_squares',
  undirected: 'undirected',
  undirectedAbove: 'undirected_above',
  undirectedBelow: 'undirected_below',
} as const satisfies Partial<Record<keyof EvidenceSums, string>>;
const ARRAY_FIELDS = { atLeast: 'at_least', atMost: 'at_most' } as const satisfies Partial<Record<keyof EvidenceSums, string>>;
type ScalarField = keyof typeof SCALAR_FIELDS;
type ArrayField = keyof typeof ARRAY_FIELDS;
const scalarFields = Object.keys(SCALAR_FIELDS) as ScalarField[];
const arrayFields = Object.keys(ARRAY_FIELDS) as ArrayField[];
/** A row of sums: the columns above, then the outcome count. */
type SumsRow = { [F in ScalarField as (typeof SCALAR_FIELDS)[F]]: number } & {
  [F in ArrayField as (typeof ARRAY_FIELDS)[F]]: number[];
} & { outcomes: number };

/** The sums' columns: numbers, then arrays of BOUND_STEPS.length numbers, then the outcome count. */
const SCALARS = scalarFields.map((f) => SCALAR_FIELDS[f]);
const ARRAYS = arrayFields.map((f) => ARRAY_FIELDS[f]);
const ELEMENTS = BOUND_STEPS.map((_, i) => i + 1);
const SUMS = [...SCALARS, ...ARRAYS, 'outcomes'].join(', ');
/**
 * An upsert's update of a row `f` of sums: the new outcomes' sums added to it (an outcome replaced by a later one of
 * its line comes as negative sums). A row left with no outcome is exactly empty, not a rounding error's worth of sums.
 */
const REMAINS = 'f.outcomes + EXCLUDED.outcomes <> 0';
const ADDED_TO_ROW = [
  ...SCALARS.map((c) => `${c} = CASE WHEN ${REMAINS} THEN f.${c} + EXCLUDED.${c} ELSE 0 END`),
  'outcomes = f.outcomes + EXCLUDED.outcomes',
  ...ARRAYS.map(
    (c) =>
      `${c} = CASE WHEN ${REMAINS} THEN ARRAY[${ELEMENTS.map((i) => `f.${c}[${i}] + EXCLUDED.${c}[${i}]`).join(', ')}] ` +
      `ELSE ARRAY[${ELEMENTS.map(() => '0').join(', ')}]::float8[] END`,
  ),
  'updated_at = EXCLUDED.updated_at',
].join(', ');
/** Each column of sums as the parameters of an `unnest` (`t`) from $first on: one array per number and per element. */
const SUM_PARAMETERS = SCALARS.length + ARRAYS.length * ELEMENTS.length + 1;
const unnestSums = (first: number) =>
  Array.from({ length: SUM_PARAMETERS }, (_, i) => `$${first + i}::${i === SUM_PARAMETERS - 1 ? 'int' : 'float8'}[]`).join(', ');
const UNNESTED = [...SCALARS, ...ARRAYS.flatMap((c) => ELEMENTS.map((i) => `${c}_${i}`)), 'outcomes'].join(', ');
/** The unnested columns `t` as the sums' columns, in SUMS order. */
const FROM_UNNESTED = [
  ...SCALARS.map((c) => `t.${c}`),
  ...ARRAYS.map((c) => `ARRAY[${ELEMENTS.map((i) => `t.${c}_${i}`).join(', ')}]`),
  't.outcomes',
].join(', ');

/** A set of sums as the parameters of `unnestSums`, one array per number. */
const sumColumns = (all: readonly EvidenceSums[]) => [
  ...scalarFields.map((f) => all.map((s) => s[f])),
  ...arrayFields.flatMap((f) => ELEMENTS.map((_, i) => all.map((s) => s[f][i]))),
  all.map((s) => s.count),
];

const toSums = (row: SumsRow | undefined): EvidenceSums => {
  if (row === undefined) return NO_EVIDENCE;
  const sums = { ...NO_EVIDENCE, count: row.outcomes };
  for (const f of scalarFields) sums[f] = row[SCALAR_FIELDS[f]];
  for (const f of arrayFields) sums[f] = row[ARRAY_FIELDS[f]].map(Number);
  return sums;
};

/** Entries in the order of their keys (ids, digests): the order rows are locked in, and levels added up in. */
const byKey = ([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sums added to the store's rows of a statement keyed by one column (`ADD_SHOPPERS`: a shopper's digest, `ADD_TYPES`:
 * a product type), in the order of their keys.
 */
function addToKeyedRows(
  manager: EntityManager,
  statement: typeof ADD_SHOPPERS,
  store: Store,
  now: Date,
  sums: ReadonlyMap<string, EvidenceSums>,
): Promise<unknown> {
  const sorted = [...sums].sort(byKey);
  return run(manager, statement, [
    store.merchantId,
    store.id,
    now.toISOString(),
    sorted.map(([key]) => key),
    ...sumColumns(sorted.map(([, entry]) => entry)),
  ]);
}

/**
 * The store's evidence from its rows: each product's own sums, each type's running sums, and the store's as the sum of
 * its types', added in the order of their ids so that every read gives the same level to the last bit.
 */
function storeEvidenceOf(rows: readonly EvidenceRow[]): StoreEvidence {
  const products: ProductEvidence[] = [];
  const types: Array<[string, EvidenceSums]> = [];
  for (const row of rows) {
    if (row.product_id === null) types.push([row.product_type_id, toSums(row)]);
    else products.push({ productId: row.product_id, productTypeId: row.product_type_id, sums: toSums(row) });
  }
  types.sort(byKey);
  return { products, types: new Map(types), store: types.map(([, sums]) => sums).reduce(addSums, NO_EVIDENCE) };
}

/** An outcome's sizes as positions in its product's current chart, and the shopper its line was bought by. */
export interface OutcomeSizesRow {
  readonly id: string;
  readonly type: string;
  readonly reason: string | null;
  readonly fit_feedback: string | null;
  readonly occurred_at: Date;
  readonly product_id: string;
  readonly product_type_id: string;
  readonly bought: number | null;
  readonly exchanged_to: number | null;
  readonly recommended: number | null;
  readonly sizes: number;
  readonly shopper_digest: Buffer | null;
  /** What that session's answer read of her (sizing/answer-link.ts), when it recorded it. */
  readonly features: AnswerFeatures | null;
}

/**
 * What each stored outcome says, as positions in its product's current chart: the size bought, the size exchanged to,
 * and the size recommended by the one session its line was bought after (a line linked to several sessions counts as
 * unassisted), with that session's shopper. Never a session the outcome names itself: only a purchase links a line to
 * a session, so an outcome cannot make any session's shopper learn from it.
 */
const OUTCOME_SIZES = prepared<OutcomeSizesRow>(
  'evidence.outcome-sizes',
  `SELECT e.id, e.type, e.reason, e.fit_feedback, e.occurred_at, e.product_id, p.product_type_id,
          array_position(c.labels, b.size_label) AS bought,
          array_position(c.labels, x.size_label) AS exchanged_to,
          array_position(c.labels, r.label) AS recommended, coalesce(array_length(c.labels, 1), 0) AS sizes,
          r.shopper_digest, r.features
     FROM events_order_events e
     JOIN catalog_products p ON p.store_id = e.store_id AND p.id = e.product_id
     ${CHART_LABELS_OF_P}
     LEFT JOIN catalog_variants b ON b.store_id = e.store_id AND b.id = e.variant_id
     LEFT JOIN catalog_variants x ON x.store_id = e.store_id AND x.id = e.new_variant_id
     LEFT JOIN LATERAL (
       SELECT coalesce(s.recommendation->'adjustment'->>'chart_size_label', s.recommendation->>'size_label') AS label,
              s.shopper_digest, s.recommendation->'features' AS features
         FROM events_session_lines l
         JOIN fit_sessions s ON s.store_id = l.store_id AND s.id = l.session_id
        WHERE l.store_id = e.store_id AND l.order_id = e.order_id AND l.line_item_id = e.line_item_id AND NOT l.shared
          AND s.product_id = e.product_id AND s.recommendation IS NOT NULL) r ON true
    WHERE e.store_id = (SELECT $1::uuid) AND e.id = ANY($2::uuid[])`,
);

/**
 * A shopper of a store as a transaction-scoped advisory lock: shared by the outcomes being counted for her, exclusive
 * for her erasure (`forgetShopper`). The erasure waits for those outcomes and then deletes their sums, or commits
 * first and the outcomes, read again, name her no more. A lock rather than a row: its queue is fair, so a stream of
 * outcomes cannot keep an erasure waiting, and taking it writes nothing.
 */
const SHOPPER_LOCK = `hashtextextended($1::text || encode(d, 'hex'), 0)`;

/** The shoppers the outcomes name, locked shared, in order. */
const LOCK_SHOPPERS = prepared<never>(
  'evidence.lock-shoppers',
  `SELECT pg_advisory_xact_lock_shared(${SHOPPER_LOCK}) FROM (SELECT DISTINCT d FROM unnest($2::bytea[]) AS d ORDER BY d) AS shoppers`,
);

/** One shopper, locked for her erasure. */
const LOCK_FOR_ERASURE = prepared<never>(
  'evidence.lock-for-erasure',
  `SELECT pg_advisory_xact_lock(${SHOPPER_LOCK}) FROM (SELECT $2::bytea AS d) AS shopper`,
);

/** Sums added to each product's row (sorted by product by the caller). */
const ADD = prepared<never>(
  'evidence.add',
  `INSERT INTO fit_evidence AS f (merchant_id, store_id, product_id, product_type_id, ${SUMS}, updated_at)
     SELECT $1, $2, t.product_id, t.product_type_id, ${FROM_UNNESTED}, $3
       FROM unnest($4::uuid[], $5::uuid[], ${unnestSums(6)}) AS t(product_id, product_type_id, ${UNNESTED})
     ON CONFLICT (store_id, product_id) DO UPDATE SET
       product_type_id = EXCLUDED.product_type_id,
       ${ADDED_TO_ROW}`,
);

/** Sums added to each shopper's row (sorted by digest by the caller). */
const ADD_SHOPPERS = prepared<never>(
  'evidence.add-shoppers',
  `INSERT INTO shopper_evidence AS f (merchant_id, store_id, shopper_digest, ${SUMS}, updated_at)
     SELECT $1, $2, decode(t.digest, 'hex'), ${FROM_UNNESTED}, $3
       FROM unnest($4::text[], ${unnestSums(5)}) AS t(digest, ${UNNESTED})
     ON CONFLICT (store_id, shopper_digest) DO UPDATE SET
       ${ADDED_TO_ROW}`,
);

/** One shopper's sums. */
const SHOPPER = prepared<SumsRow>('evidence.shopper', `SELECT ${SUMS} FROM shopper_evidence WHERE store_id = $1 AND shopper_digest = $2`);

/** A shopper's lessons, unlinked from her: what they taught stays the products'. */
const UNLINK_LESSONS = prepared<never>(
  'evidence.unlink-lessons',
  `UPDATE line_lessons SET shopper_digest = NULL, shopper_offset = NULL WHERE store_id = (SELECT $1::uuid) AND shopper_digest = $2`,
);

/** One shopper's sums, deleted. */
const FORGET_SHOPPER = prepared<never>(
  'evidence.forget-shopper',
  `DELETE FROM shopper_evidence WHERE store_id = $1 AND shopper_digest = $2`,
);

/** New sums added to their product types' running rows (`fit_evidence_types`), in the products' transaction. */
const ADD_TYPES = prepared<never>(
  'evidence.add-types',
  `INSERT INTO fit_evidence_types AS f (merchant_id, store_id, product_type_id, ${SUMS}, updated_at)
     SELECT $1, $2, t.product_type_id, ${FROM_UNNESTED}, $3
       FROM unnest($4::uuid[], ${unnestSums(5)}) AS t(product_type_id, ${UNNESTED})
     ON CONFLICT (store_id, product_type_id) DO UPDATE SET
       ${ADDED_TO_ROW}`,
);

/** Whether a product has sums: they refer to it (its foreign key), so the catalog archives it rather than deleting it. */
const NAMES_PRODUCT = prepared<{ named: boolean }>(
  'evidence.names-product',
  `SELECT EXISTS (SELECT FROM fit_evidence WHERE product_id = $1) AS named`,
);

/** A row of a store's evidence: a type's running sums (no product), or a product's. */
type EvidenceRow = SumsRow & { product_id: string | null; product_type_id: string };

/** The store's rows per type: a few, whatever the number of its products. */
const TYPE_ROWS = `SELECT NULL::uuid AS product_id, product_type_id, ${SUMS} FROM fit_evidence_types WHERE store_id = $1`;

/** Products' rows, each with its product's type as the catalog has it now (the level its offset is shrunk towards). */
const PRODUCT_ROWS = `SELECT f.product_id, p.product_type_id, ${SUMS.split(', ')
  .map((c) => `f.${c}`)
  .join(', ')}
    FROM fit_evidence f JOIN catalog_products p ON p.store_id = f.store_id AND p.id = f.product_id WHERE f.store_id = $1`;

/** The store's types, and every product row of the store. */
const STORE_EVIDENCE = prepared<EvidenceRow>('evidence.store', `${TYPE_ROWS} UNION ALL ${PRODUCT_ROWS}`);

/** The store's types, and the rows of the products named ($2). */
const NAMED_EVIDENCE = prepared<EvidenceRow>('evidence.named', `${TYPE_ROWS} UNION ALL ${PRODUCT_ROWS} AND f.product_id = ANY($2::uuid[])`);

/** What happened to each size of a product: its order lines bought, kept, returned and exchanged for size. */
const SIZE_OUTCOMES = prepared<SizeOutcomes>(
  'evidence.size-outcomes',
  `SELECT v.size_label,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.type IN (${sqlTypes(BUYING_TYPES)}))::int AS purchased,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE ${sqlOutcome('kept_at')})::int AS kept,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE ${sqlOutcome('size_returned_at')})::int AS size_returns,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE ${sqlOutcome('size_exchanged_at')})::int AS size_exchanges,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.fit_feedback = 'too_small')::int AS too_small,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.fit_feedback = 'too_large')::int AS too_large
     FROM events_order_events e
     JOIN catalog_variants v ON v.store_id = e.store_id AND v.id = e.variant_id
    WHERE e.store_id = (SELECT $1::uuid) AND e.product_id = $2 AND e.type IN (${sqlTypes(ORDER_OUTCOME_TYPES)})
    GROUP BY v.size_label`,
);

/**
 * `fit_evidence`: per product, the decaying sums of what its outcomes said about its fit (sizing/learning.ts).
 * Written in the transaction that stores the outcomes, so each stored outcome is counted exactly once; read by the
 * fit flow and the merchant's view of how products fit.
 */
@Injectable()
export class EvidenceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** What the stored outcomes say (`OUTCOME_SIZES`), in the caller's transaction. */
  outcomeSizes(manager: EntityManager, storeId: string, eventIds: readonly string[]): Promise<OutcomeSizesRow[]> {
    return eventIds.length ? run(manager, OUTCOME_SIZES, [storeId, eventIds]) : Promise.resolve([]);
  }

  /**
   * The shoppers locked shared (in order) until the caller's transaction ends: a shopper's erasure waits for the
   * outcomes being counted for her, which then read again which shoppers they name (`forgetShopper`).
   */
  async lockShoppers(manager: EntityManager, storeId: string, digests: readonly Buffer[]): Promise<void> {
    if (digests.length) await run(manager, LOCK_SHOPPERS, [storeId, digests]);
  }

  /** The learned offsets of the products named, as they stand in the caller's transaction (before what it adds). */
  async productOffsets(
    manager: EntityManager,
    storeId: string,
    named: ReadonlyMap<string, string>,
    now: Date,
  ): Promise<Map<string, number>> {
    const products = [...named];
    const evidence = storeEvidenceOf(await run(manager, NAMED_EVIDENCE, [storeId, products.map(([productId]) => productId)]));
    const own = new Map(evidence.products.map((p) => [p.productId, p.sums]));
    const offsets = learnedOffsets(
      evidence.store,
      evidence.types,
      products.map(([productId, productTypeId]) => ({ sums: own.get(productId) ?? NO_EVIDENCE, productTypeId })),
      now,
    );
    return new Map(products.map(([productId], i) => [productId, offsets[i].steps]));
  }

  /**
   * Adds sums (negative for what replaced lessons take back) to products' rows, then to product types' running rows,
   * then to shoppers' rows, each sorted by key, so that concurrent transactions lock them in one order. A product's row
   * takes the type the caller names (the product's type now).
   */
  async add(
    manager: EntityManager,
    store: Store,
    sums: {
      products: ReadonlyMap<string, { productTypeId: string; sums: EvidenceSums }>;
      types: ReadonlyMap<string, EvidenceSums>;
      shoppers: ReadonlyMap<string, EvidenceSums>;
    },
    now: Date,
  ): Promise<void> {
    if (sums.products.size) {
      const sorted = [...sums.products].sort(byKey);
      const column = <T>(pick: (entry: { productTypeId: string; sums: EvidenceSums }) => T) => sorted.map(([, entry]) => pick(entry));
      await run(manager, ADD, [
        store.merchantId,
        store.id,
        now.toISOString(),
        sorted.map(([id]) => id),
        column((e) => e.productTypeId),
        ...sumColumns(column((e) => e.sums)),
      ]);
    }
    if (sums.types.size) await addToKeyedRows(manager, ADD_TYPES, store, now, sums.types);
    if (sums.shoppers.size) await addToKeyedRows(manager, ADD_SHOPPERS, store, now, sums.shoppers);
  }

  /** Whether the product has sums (the catalog's delete-or-archive check), in the deleting transaction. */
  async namesProduct(manager: EntityManager, productId: string): Promise<boolean> {
    const [row] = await run(manager, NAMES_PRODUCT, [productId]);
    return row.named;
  }

  /** A returning shopper's sums (none when she has no outcome yet, or was erased). */
  async shopper(manager: EntityManager, storeId: string, digest: Buffer): Promise<EvidenceSums> {
    const [row] = await run(manager, SHOPPER, [storeId, digest]);
    return toSums(row);
  }

  /**
   * Forgets what a shopper's outcomes said (her erasure, after the link from her sessions is gone), once the outcomes
   * being counted for her have committed; later ones find her unlinked.
   */
  async forgetShopper(manager: EntityManager, storeId: string, digest: Buffer): Promise<void> {
    await run(manager, LOCK_FOR_ERASURE, [storeId, digest]);
    await run(manager, UNLINK_LESSONS, [storeId, digest]);
    await run(manager, FORGET_SHOPPER, [storeId, digest]);
  }

  /** The product's evidence with its type's and its store's: one statement over the product's row and the store's types. */
  async levels(manager: EntityManager, storeId: string, productId: string, productTypeId: string): Promise<EvidenceLevels> {
    const { products, types, store } = storeEvidenceOf(await run(manager, NAMED_EVIDENCE, [storeId, [productId]]));
    return { product: products[0]?.sums ?? NO_EVIDENCE, productType: types.get(productTypeId) ?? NO_EVIDENCE, store };
  }

  /** `levels`, read outside a transaction. */
  currentLevels(storeId: string, productId: string, productTypeId: string): Promise<EvidenceLevels> {
    return this.levels(this.dataSource.manager, storeId, productId, productTypeId);
  }

  /** Per size label, what happened to the product's order lines. */
  sizeOutcomes(storeId: string, productId: string): Promise<SizeOutcomes[]> {
    return run(this.dataSource, SIZE_OUTCOMES, [storeId, productId]);
  }

  /** Every product of the store that has evidence, with its types' sums and the store's. */
  async storeEvidence(storeId: string): Promise<StoreEvidence> {
    return storeEvidenceOf(await run(this.dataSource, STORE_EVIDENCE, [storeId]));
  }
}
