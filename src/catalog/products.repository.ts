import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, IsNull, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { isId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import type { Removal } from '../common/http/removal.js';
import { removeOrArchive } from '../database/remove-or-archive.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { prepared, run } from '../database/statements.js';
import { findInStore, findInStoreIfPresent, findReference, idInStore, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { Product, ProductType, SizeChart, Variant } from './catalog.entities.js';
import { duplicate, type ExternalIdRow } from './catalog-errors.js';
import type { ProductListQuery, ProductSearch } from './dto/product.dto.js';

/** A chart's sizes and the product's first active variant of one size, both locked `FOR KEY SHARE` (`lockSize`). */
const LOCK_SIZE = prepared<{ sizes: SizeChart['sizes'] | null; variant_id: string | null }>(
  'catalog.lock-size',
  `WITH c AS (SELECT sizes FROM size_charts WHERE id = $1 FOR KEY SHARE),
        v AS (SELECT id FROM variants WHERE product_id = $2 AND size_label = $3 AND archived_at IS NULL
               ORDER BY id LIMIT 1 FOR KEY SHARE)
   SELECT (SELECT sizes FROM c) AS sizes, (SELECT id FROM v) AS variant_id`,
);

/** The product's active variants, oldest first, locked `FOR KEY SHARE` (`activeVariantsBySize`). */
const LOCK_ACTIVE_VARIANTS = prepared<{ id: string; size_label: string }>(
  'catalog.lock-active-variants',
  `SELECT id, size_label FROM variants WHERE product_id = $1 AND archived_at IS NULL ORDER BY id FOR KEY SHARE`,
);

/** A product named in a request, locked `FOR KEY SHARE` (`lockReference`). */
const LOCK_PRODUCT = prepared<{ id: string; size_chart_id: string; product_type_id: string; archived_at: Date | null }>(
  'catalog.lock-product',
  `SELECT id, size_chart_id, product_type_id, archived_at FROM products WHERE id = $1 AND store_id = (SELECT $2::uuid) FOR KEY SHARE`,
);

/** The store's products and their variants. */
@Injectable()
export class ProductsRepository {
  constructor(
    @InjectRepository(Product) private readonly products: Repository<Product>,
    @InjectRepository(Variant) private readonly variants: Repository<Variant>,
  ) {}

  async insert(manager: EntityManager, product: QueryDeepPartialEntity<Product>): Promise<void> {
    await manager.insert(Product, product);
  }

  list<T>(store: Store, query: ProductListQuery, present: (product: Product) => T): Promise<Page<T>> {
    const products = queryInStore(this.products.manager, Product, 'product', store);
    if (query.external_id !== undefined) {
      products.andWhere('product.external_id = :externalId', { externalId: query.external_id });
    }
    return paginate(products, query, present);
  }

  /** The store's active products whose title or platform id contains `search.text`, of a type and on a chart; newest first. */
  search<T>(store: Store, search: ProductSearch, page: PageQuery, present: (product: Product) => T): Promise<Page<T>> {
    const products = queryInStore(this.products.manager, Product, 'product', store).andWhere('product.archived_at IS NULL');
    const text = search.text?.trim();
    if (text) {
      const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      products.andWhere('(product.title ILIKE :pattern OR product.external_id ILIKE :pattern)', { pattern });
    }
    if (search.product_type_id) products.andWhere('product.product_type_id = :typeId', { typeId: search.product_type_id });
    if (search.size_chart_id) products.andWhere('product.size_chart_id = :chartId', { chartId: search.size_chart_id });
    return paginate(products, page, present);
  }

  /** The store's product `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<Product> {
    return findInStore(this.products.manager, Product, store, id, 'product');
  }

  /** `getWithSizes`, read outside a transaction. */
  currentWithSizes(store: Store, id: string): Promise<{ product: Product; labels: string[] }> {
    return this.getWithSizes(this.products.manager, store, id);
  }

  /** The store's product `id` (404 otherwise) with its chart's size labels, in chart order. */
  async getWithSizes(manager: EntityManager, store: Store, id: string): Promise<{ product: Product; labels: string[] }> {
    const product = await findInStore(manager, Product, store, id, 'product');
    const chart = await manager.findOneByOrFail(SizeChart, { id: product.sizeChartId, storeId: store.id });
    return { product, labels: chart.sizes.map((size) => size.label) };
  }

  /**
   * The store's products whose `external_id` is among `externalIds`, each with its variants' ids by their
   * `external_id` (variants without one left out), archived ones included.
   */
  async byExternalIds(store: Store, externalIds: readonly string[]): Promise<Map<string, { id: string; variants: Map<string, string> }>> {
    if (!externalIds.length) return new Map();
    const rows = (await this.products.query(
      `SELECT p.external_id AS product, p.id AS product_id, v.external_id AS variant, v.id AS variant_id
         FROM products p LEFT JOIN variants v ON v.product_id = p.id AND v.external_id IS NOT NULL
        WHERE p.store_id = $1 AND p.external_id = ANY($2::text[])`,
      [store.id, [...externalIds]],
    )) as Array<{ product: string; product_id: string; variant: string | null; variant_id: string | null }>;
    const found = new Map<string, { id: string; variants: Map<string, string> }>();
    for (const row of rows) {
      const product = found.get(row.product) ?? { id: row.product_id, variants: new Map<string, string>() };
      found.set(row.product, product);
      if (row.variant !== null && row.variant_id !== null) product.variants.set(row.variant, row.variant_id);
    }
    return found;
  }

  /** The titles of the store's products among `ids`. */
  async titles(store: Store, ids: readonly string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await this.products.find({
      select: { id: true, title: true },
      where: { storeId: store.id, id: In([...ids]) },
    });
    return new Map(rows.map((row) => [row.id, row.title]));
  }

  /**
   * The product `id`, which the caller knows exists (a variant's product), locked `FOR SHARE` until the transaction
   * ends: a concurrent move to another chart (which locks it `FOR UPDATE`, then checks its variants' sizes) waits for
   * the caller's write and sees it, or wins and is read here.
   */
  lockShared(manager: EntityManager, id: string): Promise<Product> {
    return manager.findOneOrFail(Product, { where: { id }, lock: { mode: 'pessimistic_read' } });
  }

  /** The store's product `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<Product> {
    return findInStore(manager, Product, store, id, 'product', { lock: true });
  }

  /** The store's product `id`, locked `FOR UPDATE` until the transaction ends; null when the store has none. */
  lockIfPresent(manager: EntityManager, store: Store, id: string): Promise<Product | null> {
    return findInStoreIfPresent(manager, Product, store, id, { lock: true });
  }

  async update(manager: EntityManager, id: string, changes: Partial<Product>): Promise<void> {
    await manager.update(Product, { id }, changes);
  }

  /** Deletes the product (locked by the caller), or archives it when `referred`. */
  removeOrArchive<T>(manager: EntityManager, product: Product, referred: boolean, present: (product: Product) => T): Promise<Removal<T>> {
    return removeOrArchive(manager, Product, product, referred, present);
  }

  /** Whether products (archived ones included) use the product type. */
  existWithType(manager: EntityManager, productTypeId: string): Promise<boolean> {
    return manager.existsBy(Product, { productTypeId });
  }

  /** The title of each active product of the type, with its chart's sizes. */
  activeWithType(manager: EntityManager, productTypeId: string): Promise<{ title: string; sizes: SizeChart['sizes'] }[]> {
    return manager
      .createQueryBuilder(Product, 'product')
      .innerJoin(SizeChart, 'chart', 'chart.id = product.size_chart_id')
      .select(['product.title AS title', 'chart.sizes AS sizes'])
      .where('product.product_type_id = :productTypeId AND product.archived_at IS NULL', { productTypeId })
      .orderBy('product.id')
      .getRawMany();
  }

  /** The title of each active product on the chart, with its type's zone weights. */
  activeWithChart(manager: EntityManager, sizeChartId: string): Promise<{ title: string; zone_weights: ProductType['zoneWeights'] }[]> {
    return manager
      .createQueryBuilder(Product, 'product')
      .innerJoin(ProductType, 'type', 'type.id = product.product_type_id')
      .select(['product.title AS title', 'type.zone_weights AS zone_weights'])
      .where('product.size_chart_id = :sizeChartId AND product.archived_at IS NULL', { sizeChartId })
      .orderBy('product.id')
      .getRawMany();
  }

  /** Whether active products use the size chart. */
  existActiveWithChart(manager: EntityManager, sizeChartId: string): Promise<boolean> {
    return manager.existsBy(Product, { sizeChartId, archivedAt: IsNull() });
  }

  /** Whether products (archived ones included) use the size chart. */
  existWithChart(manager: EntityManager, sizeChartId: string): Promise<boolean> {
    return manager.existsBy(Product, { sizeChartId });
  }

  /** Whether a product (or variant) of the store, archived ones included, has the `external_id`. */
  async externalIdTaken(manager: EntityManager, row: ExternalIdRow, store: Store, externalId: string): Promise<boolean> {
    return (await this.holderOf(manager, row, store, externalId)) !== null;
  }

  /**
   * Refuses an external id that another product (variant) of the store already has, with a 409 `duplicate` whose
   * `existing_id` names that one, so an integrator retrying a create can carry on with it. `self` is the row being
   * updated, which keeps its own id. Reads in the caller's transaction; the unique constraint stays the backstop when
   * two requests race (`refusingDuplicates`).
   */
  async refuseTakenExternalId(
    manager: EntityManager,
    row: ExternalIdRow,
    store: Store,
    externalId: string | null | undefined,
    self?: string,
  ): Promise<void> {
    if (externalId === undefined || externalId === null) return;
    const existing = await this.holderOf(manager, row, store, externalId);
    if (existing !== null && existing !== self) throw duplicate(row, existing);
  }

  /** The id of the store's product (variant), archived ones included, that has the `external_id`. */
  private holderOf(manager: EntityManager, row: ExternalIdRow, store: Store, externalId: string): Promise<string | null> {
    return row === 'product' ? idInStore(manager, Product, store, { externalId }) : idInStore(manager, Variant, store, { externalId });
  }

  /** A product named in a request body's `field` (locked `FOR KEY SHARE`; 400 on that field when missing). */
  async lockReference(
    manager: EntityManager,
    store: Store,
    id: string,
    field: string,
  ): Promise<Pick<Product, 'id' | 'sizeChartId' | 'productTypeId' | 'archivedAt'>> {
    const [row] = isId(id) ? await run(manager, LOCK_PRODUCT, [id, store.id]) : [];
    if (!row) throw ProblemError.field(field, 'not_found', `${field} names nothing in this store`);
    return { id: row.id, sizeChartId: row.size_chart_id, productTypeId: row.product_type_id, archivedAt: row.archived_at };
  }

  /** A variant named in a request body's `field` (locked `FOR KEY SHARE`; 400 on that field when missing). */
  referenceVariant(manager: EntityManager, store: Store, id: string, field: string): Promise<Variant> {
    return findReference(manager, Variant, store, id, field);
  }

  /**
   * The sizes of the chart `chartId` and the product's first active variant of size `label`, in one statement, the
   * chart and that variant locked `FOR KEY SHARE` (an event will refer to the variant; a concurrent chart edit waits).
   */
  async lockSize(
    manager: EntityManager,
    chartId: string,
    productId: string,
    label: string,
  ): Promise<{ sizes: SizeChart['sizes']; variantId: string | null }> {
    const [row] = await run(manager, LOCK_SIZE, [chartId, productId, label]);
    if (!row?.sizes) throw new Error(`size chart ${chartId} not found`);
    return { sizes: row.sizes, variantId: row.variant_id };
  }

  /** For each size, the product's first active variant of that size (locked: events will refer to them). */
  async activeVariantsBySize(manager: EntityManager, productId: string): Promise<Map<string, string>> {
    const variants = await run(manager, LOCK_ACTIVE_VARIANTS, [productId]);
    const bySize = new Map<string, string>();
    for (const variant of variants) if (!bySize.has(variant.size_label)) bySize.set(variant.size_label, variant.id);
    return bySize;
  }

  async insertVariant(manager: EntityManager, variant: QueryDeepPartialEntity<Variant>): Promise<void> {
    await manager.insert(Variant, variant);
  }

  /** Every variant of the product (archived ones included). */
  variantsOf(manager: EntityManager, productId: string): Promise<Variant[]> {
    return manager.findBy(Variant, { productId });
  }

  /** Every variant of the store's product `productId`, in no particular order. */
  variantsInStore(store: Store, productId: string): Promise<Variant[]> {
    return queryInStore(this.variants.manager, Variant, 'variant', store)
      .andWhere('variant.product_id = :productId', { productId })
      .getMany();
  }

  /** The size labels that variants of the chart's products use. */
  async sizeLabelsOnChart(manager: EntityManager, chartId: string): Promise<string[]> {
    const used = await manager
      .createQueryBuilder(Variant, 'variant')
      .innerJoin(Product, 'product', 'product.id = variant.product_id')
      .select('DISTINCT variant.size_label', 'label')
      .where('product.size_chart_id = :chartId', { chartId })
      .getRawMany<{ label: string }>();
    return used.map((row) => row.label);
  }

  /** `findVariant` outside a transaction. */
  getVariant(store: Store, productId: string, id: string): Promise<Variant> {
    return this.findVariant(this.variants.manager, store, productId, id);
  }

  /** A variant of the product named in the path, which must itself be of the store. */
  async findVariant(
    manager: EntityManager,
    store: Store,
    productId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<Variant> {
    const product = await findInStore(manager, Product, store, productId, 'product');
    const variant = await findInStore(manager, Variant, store, id, 'variant', options);
    if (variant.productId !== product.id) throw ProblemError.notFound('variant');
    return variant;
  }

  async updateVariant(manager: EntityManager, id: string, changes: Partial<Variant>): Promise<void> {
    await manager.update(Variant, { id }, changes);
  }

  /** Deletes the variant (locked by the caller), or archives it when `referred`. */
  removeOrArchiveVariant<T>(
    manager: EntityManager,
    variant: Variant,
    referred: boolean,
    present: (variant: Variant) => T,
  ): Promise<Removal<T>> {
    return removeOrArchive(manager, Variant, variant, referred, present);
  }
}
