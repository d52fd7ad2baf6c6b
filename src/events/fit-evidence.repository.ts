import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import { addSums, type Evidence, type EvidenceSums, learnedOffset, NO_EVIDENCE, sumsOf } from '../fit/engine/learning.js';
import type { Store } from '../stores/store.entity.js';
import type { FitEvent } from './event.entity.js';
import { evidenceOf, teachesFit } from './fit-evidence.js';

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

type SumsRow = { weight: number; weighted_steps: number; weighted_squares: number; undirected: number; outcomes: number };
const SUMS = `weight, weighted_steps, weighted_squares, undirected, outcomes`;
const ADDED_SUMS = `coalesce(sum(weight), 0) AS weight, coalesce(sum(weighted_steps), 0) AS weighted_steps,
       coalesce(sum(weighted_squares), 0) AS weighted_squares, coalesce(sum(undirected), 0) AS undirected,
       coalesce(sum(outcomes), 0)::int AS outcomes`;

/** An upsert's update of a row `f` of sums: the new outcomes' sums added to it. */
const ADDED_TO_ROW = `weight = f.weight + EXCLUDED.weight, weighted_steps = f.weighted_steps + EXCLUDED.weighted_steps,
       weighted_squares = f.weighted_squares + EXCLUDED.weighted_squares, undirected = f.undirected + EXCLUDED.undirected,
       outcomes = f.outcomes + EXCLUDED.outcomes, updated_at = EXCLUDED.updated_at`;

const toSums = (row: SumsRow | undefined): EvidenceSums =>
  row === undefined
    ? NO_EVIDENCE
    : {
        weight: row.weight,
        weightedSteps: row.weighted_steps,
        weightedSquares: row.weighted_squares,
        undirected: row.undirected,
        count: row.outcomes,
      };

/**
 * What each stored outcome says, as positions in its product's current chart: the size bought, the size exchanged to,
 * and the size recommended by the session the event names or, failing that, the one session its line was bought after
 * (a line linked to several sessions counts as unassisted).
 */
const OUTCOME_SIZES = prepared<{
  id: string;
  product_id: string;
  product_type_id: string;
  bought: number | null;
  exchanged_to: number | null;
  recommended: number | null;
  shopper_digest: Buffer | null;
}>(
  'fit-evidence.outcome-sizes',
  `SELECT e.id, e.product_id, p.product_type_id,
          array_position(c.labels, b.size_label) AS bought,
          array_position(c.labels, x.size_label) AS exchanged_to,
          array_position(c.labels, r.label) AS recommended, r.shopper_digest
     FROM events e
     JOIN products p ON p.store_id = e.store_id AND p.id = e.product_id
     CROSS JOIN LATERAL (SELECT array_agg(s.size->>'label' ORDER BY s.n) AS labels
                           FROM size_charts sc, jsonb_array_elements(sc.sizes) WITH ORDINALITY AS s(size, n)
                          WHERE sc.store_id = p.store_id AND sc.id = p.size_chart_id) c
     LEFT JOIN variants b ON b.store_id = e.store_id AND b.id = e.variant_id
     LEFT JOIN variants x ON x.store_id = e.store_id AND x.id = e.new_variant_id
     LEFT JOIN LATERAL (
       SELECT coalesce(s.recommendation->'adjustment'->>'chart_size_label', s.recommendation->>'size_label') AS label,
              s.shopper_digest
         FROM sessions s
        WHERE s.store_id = e.store_id AND s.product_id = e.product_id AND s.recommendation IS NOT NULL
          AND s.id = coalesce(e.session_id,
                              (SELECT l.session_id FROM session_lines l
                                WHERE l.store_id = e.store_id AND l.order_id = e.order_id
                                  AND l.line_item_id = e.line_item_id AND NOT l.shared))) r ON true
    WHERE e.store_id = $1 AND e.id = ANY($2::uuid[])`,
);

/** Sums added to each product's row (sorted by product by the caller). */
const ADD = prepared<never>(
  'fit-evidence.add',
  `INSERT INTO fit_evidence AS f (merchant_id, store_id, product_id, product_type_id, ${SUMS}, updated_at)
     SELECT $1, $2, t.* , $3
       FROM unnest($4::uuid[], $5::uuid[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::int[])
         AS t(product_id, product_type_id, weight, weighted_steps, weighted_squares, undirected, outcomes)
     ON CONFLICT (store_id, product_id) DO UPDATE SET
       product_type_id = EXCLUDED.product_type_id,
       ${ADDED_TO_ROW}`,
);

/** Sums added to each shopper's row (sorted by digest by the caller). */
const ADD_SHOPPERS = prepared<never>(
  'fit-evidence.add-shoppers',
  `INSERT INTO shopper_evidence AS f (merchant_id, store_id, shopper_digest, ${SUMS}, updated_at)
     SELECT $1, $2, decode(t.digest, 'hex'), t.weight, t.weighted_steps, t.weighted_squares, t.undirected, t.outcomes, $3
       FROM unnest($4::text[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::int[])
         AS t(digest, weight, weighted_steps, weighted_squares, undirected, outcomes)
     ON CONFLICT (store_id, shopper_digest) DO UPDATE SET
       ${ADDED_TO_ROW}`,
);

/** One shopper's sums. */
const SHOPPER = prepared<SumsRow>(
  'fit-evidence.shopper',
  `SELECT ${SUMS} FROM shopper_evidence WHERE store_id = $1 AND shopper_digest = $2`,
);

/** One shopper's sums, deleted. */
const FORGET_SHOPPER = prepared<never>(
  'fit-evidence.forget-shopper',
  `DELETE FROM shopper_evidence WHERE store_id = $1 AND shopper_digest = $2`,
);

/** A product's sums, its type's and the store's (the sums of their products' rows). */
const LEVELS = prepared<SumsRow & { level: 'product' | 'product_type' | 'store' }>(
  'fit-evidence.levels',
  `SELECT 'product' AS level, ${SUMS} FROM fit_evidence WHERE store_id = $1 AND product_id = $2
    UNION ALL SELECT 'product_type', ${ADDED_SUMS} FROM fit_evidence WHERE store_id = $1 AND product_type_id = $3
    UNION ALL SELECT 'store', ${ADDED_SUMS} FROM fit_evidence WHERE store_id = $1`,
);

/** Every product row of the store. */
const STORE_PRODUCTS = prepared<SumsRow & { product_id: string; product_type_id: string }>(
  'fit-evidence.store-products',
  `SELECT product_id, product_type_id, ${SUMS} FROM fit_evidence WHERE store_id = $1`,
);

/** What happened to each size of a product: its order lines bought, kept, returned and exchanged for size. */
const SIZE_OUTCOMES = prepared<SizeOutcomes>(
  'fit-evidence.size-outcomes',
  `SELECT v.size_label,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.type = 'purchase')::int AS purchased,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.type = 'item_kept')::int AS kept,
          count(DISTINCT (e.order_id, e.line_item_id))
            FILTER (WHERE e.type = 'return_requested' AND e.reason = 'size')::int AS size_returns,
          count(DISTINCT (e.order_id, e.line_item_id))
            FILTER (WHERE e.type = 'size_exchange' AND e.reason = 'size')::int AS size_exchanges,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.fit_feedback = 'too_small')::int AS too_small,
          count(DISTINCT (e.order_id, e.line_item_id)) FILTER (WHERE e.fit_feedback = 'too_large')::int AS too_large
     FROM events e
     JOIN variants v ON v.store_id = e.store_id AND v.id = e.variant_id
    WHERE e.store_id = $1 AND e.product_id = $2
      AND e.type IN ('purchase', 'item_kept', 'return_requested', 'size_exchange')
    GROUP BY v.size_label`,
);

/** Order lines of one size of a product, by what happened to them (distinct lines, never units). */
export interface SizeOutcomes {
  readonly size_label: string;
  readonly purchased: number;
  readonly kept: number;
  readonly size_returns: number;
  readonly size_exchanges: number;
  readonly too_small: number;
  readonly too_large: number;
}

/**
 * `fit_evidence`: per product, the decaying sums of what its outcomes said about its fit (fit/engine/learning.ts).
 * Written in the transaction that stores the outcomes, so each stored outcome is counted exactly once; read by the
 * fit flow and the merchant's view of how products fit.
 */
@Injectable()
export class FitEvidenceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Adds what the newly stored events teach to their products' rows, in the caller's transaction (after the order
   * lines' summaries, which link lines to sessions). Two statements, and none when no event teaches anything.
   */
  async recordOutcomes(manager: EntityManager, store: Store, events: readonly FitEvent[], now: Date): Promise<void> {
    const teaching = events.filter((e) => e.productId !== null && teachesFit(e));
    if (!teaching.length) return;
    const byId = new Map(teaching.map((e) => [e.id, e]));
    const rows = await run(manager, OUTCOME_SIZES, [store.id, [...byId.keys()]]);
    const products = new Map<string, { productTypeId: string; sums: EvidenceSums }>();
    const shoppers: { digest: Buffer; productId: string; productTypeId: string; evidence: Evidence }[] = [];
    for (const row of rows) {
      const evidence = evidenceOf(byId.get(row.id) as FitEvent, {
        bought: row.bought,
        exchangedTo: row.exchanged_to,
        recommended: row.recommended,
      });
      if (evidence === null) continue;
      const known = products.get(row.product_id) ?? { productTypeId: row.product_type_id, sums: NO_EVIDENCE };
      products.set(row.product_id, { productTypeId: known.productTypeId, sums: addSums(known.sums, sumsOf(evidence)) });
      if (row.shopper_digest) {
        shoppers.push({ digest: row.shopper_digest, productId: row.product_id, productTypeId: row.product_type_id, evidence });
      }
    }
    if (shoppers.length) await this.recordShoppers(manager, store, shoppers, now);
    await this.add(manager, store, products, now);
  }

  /**
   * What returning shoppers' outcomes say about them beyond the product: each one's evidence less the product's learned
   * offset as it stood before this outcome, so that a product running small is not read as every shopper wanting a
   * size up.
   */
  private async recordShoppers(
    manager: EntityManager,
    store: Store,
    outcomes: readonly { digest: Buffer; productId: string; productTypeId: string; evidence: Evidence }[],
    now: Date,
  ): Promise<void> {
    const productSteps = new Map<string, number>();
    for (const { productId, productTypeId } of outcomes) {
      if (productSteps.has(productId)) continue;
      productSteps.set(productId, learnedOffset(await this.levels(manager, store.id, productId, productTypeId), now).steps);
    }
    const byShopper = new Map<string, EvidenceSums>();
    for (const { digest, productId, evidence } of outcomes) {
      const steps = evidence.steps === null ? null : evidence.steps - (productSteps.get(productId) as number);
      const key = digest.toString('hex');
      byShopper.set(key, addSums(byShopper.get(key) ?? NO_EVIDENCE, sumsOf({ ...evidence, steps })));
    }
    const sorted = [...byShopper].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await run(manager, ADD_SHOPPERS, [
      store.merchantId,
      store.id,
      now.toISOString(),
      sorted.map(([digest]) => digest),
      sorted.map(([, sums]) => sums.weight),
      sorted.map(([, sums]) => sums.weightedSteps),
      sorted.map(([, sums]) => sums.weightedSquares),
      sorted.map(([, sums]) => sums.undirected),
      sorted.map(([, sums]) => sums.count),
    ]);
  }

  /** A returning shopper's sums (none when she has no outcome yet, or was erased). */
  async shopper(manager: EntityManager, storeId: string, digest: Buffer): Promise<EvidenceSums> {
    const [row] = await run(manager, SHOPPER, [storeId, digest]);
    return toSums(row);
  }

  /** Forgets what a shopper's outcomes said (her erasure, with the link from her sessions). */
  async forgetShopper(manager: EntityManager, storeId: string, digest: Buffer): Promise<void> {
    await run(manager, FORGET_SHOPPER, [storeId, digest]);
  }

  /**
   * A shopper's choice of another size than the stated chart's answer (weak evidence of its direction), in the
   * transaction that records the decision.
   */
  async recordOverride(
    manager: EntityManager,
    store: Store,
    product: { id: string; productTypeId: string },
    evidence: Evidence,
    now: Date,
  ): Promise<void> {
    await this.add(manager, store, new Map([[product.id, { productTypeId: product.productTypeId, sums: sumsOf(evidence) }]]), now);
  }

  /** Adds sums to products' rows, sorted by product so that concurrent transactions lock them in one order. */
  private async add(
    manager: EntityManager,
    store: Store,
    products: ReadonlyMap<string, { productTypeId: string; sums: EvidenceSums }>,
    now: Date,
  ): Promise<void> {
    if (!products.size) return;
    const sorted = [...products].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const column = <T>(pick: (entry: { productTypeId: string; sums: EvidenceSums }) => T) => sorted.map(([, entry]) => pick(entry));
    await run(manager, ADD, [
      store.merchantId,
      store.id,
      now.toISOString(),
      sorted.map(([id]) => id),
      column((e) => e.productTypeId),
      column((e) => e.sums.weight),
      column((e) => e.sums.weightedSteps),
      column((e) => e.sums.weightedSquares),
      column((e) => e.sums.undirected),
      column((e) => e.sums.count),
    ]);
  }

  /** The product's evidence with its type's and its store's. */
  async levels(manager: EntityManager, storeId: string, productId: string, productTypeId: string): Promise<EvidenceLevels> {
    const rows = await run(manager, LEVELS, [storeId, productId, productTypeId]);
    const level = (name: string) => toSums(rows.find((r) => r.level === name));
    return { product: level('product'), productType: level('product_type'), store: level('store') };
  }

  /** `levels`, read outside a transaction. */
  currentLevels(storeId: string, productId: string, productTypeId: string): Promise<EvidenceLevels> {
    return this.levels(this.dataSource.manager, storeId, productId, productTypeId);
  }

  /** Per size label, what happened to the product's order lines. */
  sizeOutcomes(storeId: string, productId: string): Promise<SizeOutcomes[]> {
    return run(this.dataSource, SIZE_OUTCOMES, [storeId, productId]);
  }

  /** Every product of the store that has evidence. */
  async storeProducts(storeId: string): Promise<ProductEvidence[]> {
    const rows = await run(this.dataSource, STORE_PRODUCTS, [storeId]);
    return rows.map((row) => ({ productId: row.product_id, productTypeId: row.product_type_id, sums: toSums(row) }));
  }
}
