import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, run } from '../database/statements.js';
import { CHART_LABELS_OF_P } from './order-lines.js';

/** A product an import names: its type and its chart's size labels, smallest first. */
interface HistoryProduct {
  readonly productTypeId: string;
  readonly labels: readonly string[];
}

/** A variant an import names: its product and its size. */
interface HistoryVariant {
  readonly productId: string;
  readonly sizeLabel: string;
}

/** What an import's lines name in the store's catalog. */
export interface HistoryCatalog {
  readonly products: ReadonlyMap<string, HistoryProduct>;
  readonly variants: ReadonlyMap<string, HistoryVariant>;
}

/**
 * Imports of one store's past orders, one at a time (a transaction-scoped advisory lock on the store): two imports of
 * the same new lines would otherwise each find them without a lesson, and all but one start over.
 */
const LOCK_STORE = prepared<never>(
  'order-history.lock-store',
  `SELECT pg_advisory_xact_lock(hashtextextended('order-history:' || $1::text, 0))`,
);

/**
 * The products and variants the lines name, with each product's type and chart. The products are locked
 * `FOR KEY SHARE` until the import commits: a product being deleted is waited for (and then unknown), and one the
 * import teaches about is archived rather than deleted (its sums refer to it).
 */
const CATALOG = prepared<{
  kind: 'product' | 'variant';
  id: string;
  product_id: string | null;
  product_type_id: string | null;
  labels: string[] | null;
  size_label: string | null;
}>(
  'order-history.catalog',
  `WITH p AS (SELECT id, product_type_id, size_chart_id FROM catalog_products
               WHERE store_id = (SELECT $1::uuid) AND id = ANY($2::uuid[]) FOR KEY SHARE)
   SELECT 'product' AS kind, p.id, NULL::uuid AS product_id, p.product_type_id, coalesce(c.labels, '{}') AS labels,
          NULL::text AS size_label
     FROM p ${CHART_LABELS_OF_P}
   UNION ALL
   SELECT 'variant', v.id, v.product_id, NULL, NULL, v.size_label FROM catalog_variants v
    WHERE v.store_id = (SELECT $1::uuid) AND v.id = ANY($3::uuid[])`,
);

/** The variants the lines' first purchases bought, for those reported as events. */
const PURCHASES = prepared<{ order_id: string; line_item_id: string; purchased_variant_id: string }>(
  'order-history.purchases',
  `SELECT o.order_id, o.line_item_id, o.purchased_variant_id
     FROM unnest($2::text[], $3::text[]) AS t(order_id, line_item_id)
     JOIN events_order_lines o ON o.store_id = (SELECT $1::uuid) AND o.order_id = t.order_id AND o.line_item_id = t.line_item_id
    WHERE o.purchased_variant_id IS NOT NULL`,
);

/** What an import of past orders reads beyond the lessons: the catalog its lines name, and their purchases as events. */
@Injectable()
export class OrderHistoryRepository {
  /** Waits for the store's other imports, then holds it until the caller's transaction ends. */
  async lockStore(manager: EntityManager, storeId: string): Promise<void> {
    await run(manager, LOCK_STORE, [storeId]);
  }

  async catalog(
    manager: EntityManager,
    storeId: string,
    productIds: readonly string[],
    variantIds: readonly string[],
  ): Promise<HistoryCatalog> {
    const rows = await run(manager, CATALOG, [storeId, productIds, variantIds]);
    const products = new Map<string, HistoryProduct>();
    const variants = new Map<string, HistoryVariant>();
    for (const row of rows) {
      if (row.kind === 'product') products.set(row.id, { productTypeId: row.product_type_id as string, labels: row.labels ?? [] });
      else variants.set(row.id, { productId: row.product_id as string, sizeLabel: row.size_label as string });
    }
    return { products, variants };
  }

  /** The variant each line's first purchase bought, by line, for the lines whose purchase was reported as an event. */
  purchases(manager: EntityManager, storeId: string, lines: readonly { orderId: string; lineItemId: string }[]) {
    return lines.length
      ? run(manager, PURCHASES, [storeId, lines.map((l) => l.orderId), lines.map((l) => l.lineItemId)])
      : Promise.resolve([]);
  }
}
