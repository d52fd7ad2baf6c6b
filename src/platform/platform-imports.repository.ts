import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { type AssignRule, type ImportCounts, PlatformImport, PlatformProduct } from './platform.entities.js';
import type { ShopProduct } from './shop-products.js';

/** The imports of connected shops' catalogs and the products they read (`platform_imports`, `platform_products`). */
@Injectable()
export class PlatformImportsRepository {
  constructor(
    @InjectRepository(PlatformImport) private readonly imports: Repository<PlatformImport>,
    @InjectRepository(PlatformProduct) private readonly products: Repository<PlatformProduct>,
  ) {}

  /** (Re)starts the store's import from the first page. */
  async begin(manager: EntityManager, storeId: string): Promise<void> {
    await manager.query(
      `INSERT INTO platform_imports (store_id, state, next_page, pages, started_at, finished_at, error)
       VALUES ($1, 'running', NULL, 0, now(), NULL, NULL)
       ON CONFLICT (store_id) DO UPDATE
         SET state = 'running', next_page = NULL, pages = 0, started_at = now(), finished_at = NULL, error = NULL`,
      [storeId],
    );
  }

  find(storeId: string): Promise<PlatformImport | null> {
    return this.imports.findOneBy({ storeId });
  }

  /**
   * Keeps a page's products (each replacing what an earlier read kept of it, its link to the catalog too) and moves the
   * import past the page: to `nextPage`, or done when there is none.
   */
  async savePage(
    manager: EntityManager,
    storeId: string,
    products: readonly ShopProduct[],
    linked: ReadonlyMap<string, string>,
    nextPage: string | null,
  ): Promise<void> {
    if (products.length) {
      await manager.query(
        `INSERT INTO platform_products
           (store_id, platform_id, title, product_type, vendor, tags, size_option, variants, product_id, imported_at)
         SELECT $1, p.platform_id, p.title, p.product_type, p.vendor, p.tags, p.size_option, p.variants, p.product_id, now()
           FROM jsonb_to_recordset($2::jsonb) AS p(platform_id text, title text, product_type text, vendor text, tags text[],
                                                   size_option text, variants jsonb, product_id uuid)
         ON CONFLICT (store_id, platform_id) DO UPDATE
           SET title = EXCLUDED.title, product_type = EXCLUDED.product_type, vendor = EXCLUDED.vendor, tags = EXCLUDED.tags,
               size_option = EXCLUDED.size_option, variants = EXCLUDED.variants, product_id = EXCLUDED.product_id,
               imported_at = EXCLUDED.imported_at`,
        [
          storeId,
          JSON.stringify(
            products.map((product) => ({
              platform_id: product.platformId,
              title: product.title,
              product_type: product.productType,
              vendor: product.vendor,
              tags: product.tags,
              size_option: product.sizeOption,
              variants: product.variants,
              product_id: linked.get(product.platformId) ?? null,
            })),
          ),
        ],
      );
    }
    await manager.query(
      `UPDATE platform_imports
          SET pages = pages + 1, next_page = $2,
              state = CASE WHEN $2::text IS NULL THEN 'done' ELSE state END,
              finished_at = CASE WHEN $2::text IS NULL THEN now() ELSE finished_at END
        WHERE store_id = $1`,
      [storeId, nextPage],
    );
  }

  async fail(storeId: string, error: string): Promise<void> {
    await this.imports.query(`UPDATE platform_imports SET state = 'failed', error = $2, finished_at = now() WHERE store_id = $1`, [
      storeId,
      error,
    ]);
  }

  async counts(storeId: string): Promise<ImportCounts> {
    const [row] = (await this.products.query(
      `SELECT count(*)::int AS products,
              coalesce(sum(jsonb_array_length(variants)), 0)::int AS variants,
              count(*) FILTER (WHERE product_id IS NOT NULL)::int AS linked,
              count(*) FILTER (WHERE product_id IS NULL AND size_option IS NOT NULL)::int AS needs_chart,
              count(*) FILTER (WHERE size_option IS NULL)::int AS skipped
         FROM platform_products WHERE store_id = $1`,
      [storeId],
    )) as ImportCounts[];
    return row;
  }

  /** The first products of the store that need a chart, or that were skipped, by title. */
  listed(storeId: string, which: 'needs_chart' | 'skipped', limit: number): Promise<PlatformProduct[]> {
    const query = this.products
      .createQueryBuilder('p')
      .where('p.store_id = :storeId', { storeId })
      .orderBy('p.title')
      .addOrderBy('p.platform_id')
      .limit(limit);
    return (
      which === 'skipped' ? query.andWhere('p.size_option IS NULL') : query.andWhere('p.size_option IS NOT NULL AND p.product_id IS NULL')
    ).getMany();
  }

  /**
   * The store's imported products that need a chart and whose product type, vendor or one of whose tags is `value`
   * (whatever its case), the first `limit` by title.
   */
  async matching(storeId: string, rule: AssignRule, limit: number): Promise<PlatformProduct[]> {
    const where = {
      product_type: 'lower(p.product_type) = lower(:value)',
      vendor: 'lower(p.vendor) = lower(:value)',
      tag: 'EXISTS (SELECT 1 FROM unnest(p.tags) AS tag WHERE lower(tag) = lower(:value))',
    }[rule.field];
    return this.products
      .createQueryBuilder('p')
      .where('p.store_id = :storeId AND p.size_option IS NOT NULL AND p.product_id IS NULL', { storeId })
      .andWhere(where, { value: rule.value })
      .orderBy('p.title')
      .addOrderBy('p.platform_id')
      .limit(limit)
      .getMany();
  }

  /** The product types, vendors and tags of the store's products that need a chart, for the console's rule form. */
  async ruleValues(storeId: string): Promise<Record<AssignRule['field'], string[]>> {
    const rows = (await this.products.query(
      `SELECT field, value FROM (
         SELECT 'product_type' AS field, product_type AS value FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL
         UNION SELECT 'vendor', vendor FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL
         UNION SELECT 'tag', unnest(tags) FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL
       ) AS v WHERE value <> '' ORDER BY field, value LIMIT 600`,
      [storeId],
    )) as Array<{ field: AssignRule['field']; value: string }>;
    const values: Record<AssignRule['field'], string[]> = { product_type: [], vendor: [], tag: [] };
    for (const row of rows) values[row.field].push(row.value);
    return values;
  }

  /** The imported product is now the catalog's `productId`. */
  async link(storeId: string, platformId: string, productId: string): Promise<void> {
    await this.products.query(`UPDATE platform_products SET product_id = $3 WHERE store_id = $1 AND platform_id = $2`, [
      storeId,
      platformId,
      productId,
    ]);
  }

  /** Forgets the store's import and what it read (the shop asked for its data to be erased). */
  async deleteOfStore(manager: EntityManager, storeId: string): Promise<void> {
    await manager.query(`DELETE FROM platform_products WHERE store_id = $1`, [storeId]);
    await manager.query(`DELETE FROM platform_imports WHERE store_id = $1`, [storeId]);
  }
}
