import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, IsNull, LessThan, type Repository } from 'typeorm';
import { type AssignRule, type ImportCounts, type ImportTrigger, PlatformImport, PlatformProduct } from './platform.entities.js';
import type { ShopProduct } from './shop-products.js';

/** What is kept of one of the shop's products, as the sync compares it with what the shop says now. */
export type KeptProduct = Pick<PlatformProduct, 'platformId' | 'variants' | 'productId' | 'shopUpdatedAt' | 'deletedAt'>;

/** The imports of connected shops' catalogs and the products they read (`platform_imports`, `platform_products`). */
@Injectable()
export class PlatformImportsRepository {
  constructor(
    @InjectRepository(PlatformImport) private readonly imports: Repository<PlatformImport>,
    @InjectRepository(PlatformProduct) private readonly products: Repository<PlatformProduct>,
  ) {}

  /** (Re)starts the store's read of its whole catalog from the first page. */
  async begin(manager: EntityManager, storeId: string, trigger: ImportTrigger): Promise<void> {
    await manager.query(
      `INSERT INTO platform_imports (store_id, state, next_page, pages, started_at, finished_at, error, trigger, removed, repaired)
       VALUES ($1, 'running', NULL, 0, now(), NULL, NULL, $2, 0, 0)
       ON CONFLICT (store_id) DO UPDATE
         SET state = 'running', next_page = NULL, pages = 0, started_at = now(), finished_at = NULL, error = NULL,
             trigger = EXCLUDED.trigger, removed = 0, repaired = 0`,
      [storeId, trigger],
    );
  }

  /** Whether a full read of the store's catalog is running, its row locked until the transaction ends. */
  async lockRunning(manager: EntityManager, storeId: string): Promise<boolean> {
    const rows = (await manager.query(`SELECT state FROM platform_imports WHERE store_id = $1 FOR UPDATE`, [storeId])) as Array<{
      state: string;
    }>;
    return rows[0]?.state === 'running';
  }

  /** The database's clock now. */
  async clock(): Promise<Date> {
    const [row] = (await this.imports.query(`SELECT clock_timestamp() AS now`)) as Array<{ now: Date }>;
    return new Date(row.now);
  }

  /** What is kept of the store's products among `platformIds`, tombstones included. */
  async kept(storeId: string, platformIds: readonly string[]): Promise<Map<string, KeptProduct>> {
    if (!platformIds.length) return new Map();
    const rows = await this.products.find({
      select: { platformId: true, variants: true, productId: true, shopUpdatedAt: true, deletedAt: true },
      where: { storeId, platformId: In([...platformIds]) },
    });
    return new Map(rows.map((row) => [row.platformId, row]));
  }

  find(storeId: string): Promise<PlatformImport | null> {
    return this.imports.findOneBy({ storeId });
  }

  /**
   * Keeps products as the shop gave them, each replacing what was kept of it (its link to the catalog too), unless what
   * is kept is newer (the shop's `updated_at`) or a tombstone: a product deleted on the shop comes back only when
   * `listedAt` (the time a listing of the whole catalog was read) is after its deletion; a notification never brings it
   * back. `listedAt` also marks every product given as seen by the current full read, even one not replaced.
   */
  async save(
    manager: EntityManager,
    storeId: string,
    products: readonly ShopProduct[],
    linked: ReadonlyMap<string, string>,
    listedAt: Date | null,
  ): Promise<void> {
    if (!products.length) return;
    const ids = products.map((product) => product.platformId);
    if (listedAt !== null) {
      await manager.query(
        `UPDATE platform_products SET imported_at = now()
          WHERE store_id = $1 AND platform_id = ANY($2::text[]) AND (deleted_at IS NULL OR deleted_at < $3)`,
        [storeId, ids, listedAt],
      );
    }
    await manager.query(
      `INSERT INTO platform_products
         (store_id, platform_id, title, product_type, vendor, tags, size_option, variants, product_id, imported_at,
          shop_updated_at, deleted_at)
       SELECT $1, p.platform_id, p.title, p.product_type, p.vendor, p.tags, p.size_option, p.variants, p.product_id, now(),
              p.shop_updated_at, NULL
         FROM jsonb_to_recordset($2::jsonb) AS p(platform_id text, title text, product_type text, vendor text, tags text[],
                                                 size_option text, variants jsonb, product_id uuid, shop_updated_at timestamptz)
       ON CONFLICT (store_id, platform_id) DO UPDATE
         SET title = EXCLUDED.title, product_type = EXCLUDED.product_type, vendor = EXCLUDED.vendor, tags = EXCLUDED.tags,
             size_option = EXCLUDED.size_option, variants = EXCLUDED.variants, product_id = EXCLUDED.product_id,
             imported_at = EXCLUDED.imported_at, shop_updated_at = EXCLUDED.shop_updated_at, deleted_at = NULL
       WHERE (platform_products.deleted_at IS NULL OR platform_products.deleted_at < $3::timestamptz)
         AND (platform_products.shop_updated_at IS NULL OR EXCLUDED.shop_updated_at IS NULL
              OR EXCLUDED.shop_updated_at >= platform_products.shop_updated_at)`,
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
            shop_updated_at: product.updatedAt?.toISOString() ?? null,
          })),
        ),
        listedAt,
      ],
    );
  }

  /**
   * Moves the store's full read past a page: to `nextPage`, or done when there is none (with `removed`, the products
   * it found gone); `repaired` catalog products had their variants brought in line on the page.
   */
  async advance(manager: EntityManager, storeId: string, nextPage: string | null, repaired: number, removed = 0): Promise<void> {
    await manager.query(
      `UPDATE platform_imports
          SET pages = pages + 1, next_page = $2, repaired = repaired + $3, removed = removed + $4,
              state = CASE WHEN $2::text IS NULL THEN 'done' ELSE state END,
              finished_at = CASE WHEN $2::text IS NULL THEN now() ELSE finished_at END
        WHERE store_id = $1`,
      [storeId, nextPage, repaired, removed],
    );
  }

  /** The store's products, not deleted, that the full read started at `startedAt` has not seen. */
  async unseen(storeId: string, startedAt: Date): Promise<Array<{ platformId: string; productId: string | null }>> {
    return this.products.find({
      select: { platformId: true, productId: true },
      where: { storeId, importedAt: LessThan(startedAt), deletedAt: IsNull() },
    });
  }

  /**
   * Keeps the products as deleted on the shop: a tombstone (a product never seen gets one too, so that its creation
   * delivered late does not bring it in), its link to the catalog dropped.
   */
  async markDeleted(manager: EntityManager, storeId: string, platformIds: readonly string[]): Promise<void> {
    if (!platformIds.length) return;
    await manager.query(
      `INSERT INTO platform_products
         (store_id, platform_id, title, product_type, vendor, tags, size_option, variants, product_id, imported_at, deleted_at)
       SELECT $1, id, '', '', '', '{}', NULL, '[]', NULL, now(), now() FROM unnest($2::text[]) AS id
       ON CONFLICT (store_id, platform_id) DO UPDATE
         SET deleted_at = coalesce(platform_products.deleted_at, now()), product_id = NULL`,
      [storeId, [...platformIds]],
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
         FROM platform_products WHERE store_id = $1 AND deleted_at IS NULL`,
      [storeId],
    )) as ImportCounts[];
    return row;
  }

  /** The first products of the store that need a chart, or that were skipped, by title. */
  listed(storeId: string, which: 'needs_chart' | 'skipped', limit: number): Promise<PlatformProduct[]> {
    const query = this.products
      .createQueryBuilder('p')
      .where('p.store_id = :storeId AND p.deleted_at IS NULL', { storeId })
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
      .where('p.store_id = :storeId AND p.size_option IS NOT NULL AND p.product_id IS NULL AND p.deleted_at IS NULL', { storeId })
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
         SELECT 'product_type' AS field, product_type AS value FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL AND deleted_at IS NULL
         UNION SELECT 'vendor', vendor FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL AND deleted_at IS NULL
         UNION SELECT 'tag', unnest(tags) FROM platform_products WHERE store_id = $1 AND product_id IS NULL AND size_option IS NOT NULL AND deleted_at IS NULL
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
