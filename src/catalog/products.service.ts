import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { findInStore, findReference, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { CatalogReferences } from './catalog-references.js';
import { Product, ProductType, SizeChart, Variant } from './catalog.entities.js';
import { refuseTakenExternalId, refusingDuplicates } from './catalog-errors.js';
import { requireChartLabel } from './chart-labels.js';
import {
  type CreateProductRequest,
  type CreateVariantRequest,
  type ProductListQuery,
  ProductResponse,
  type UpdateProductRequest,
  type UpdateVariantRequest,
  VariantResponse,
} from './dto/product.dto.js';
import { type Removal, removeOrArchive } from '../common/http/removal.js';
import { transaction } from '../database/transactions.js';

@Injectable()
export class ProductsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly references: CatalogReferences,
  ) {}

  async create(store: Store, request: CreateProductRequest): Promise<ProductResponse> {
    const id = newId();
    await transaction(this.dataSource, async (manager) => {
      await findReference(manager, ProductType, store, request.product_type_id, 'product_type_id');
      await usableChart(manager, store, request.size_chart_id);
      await refuseTakenExternalId(manager, 'product', store, request.external_id);
      await refusingDuplicates(() =>
        manager.insert(Product, {
          id,
          merchantId: store.merchantId,
          storeId: store.id,
          externalId: request.external_id ?? null,
          title: request.title,
          productTypeId: request.product_type_id,
          sizeChartId: request.size_chart_id,
          fitAdjustment: request.fit_adjustment ?? 'true_to_size',
          archivedAt: null,
        }),
      );
    });
    return this.get(store, id);
  }

  list(store: Store, query: ProductListQuery): Promise<Page<ProductResponse>> {
    const products = queryInStore(this.dataSource.manager, Product, 'product', store);
    if (query.external_id !== undefined) {
      products.andWhere('product.external_id = :externalId', { externalId: query.external_id });
    }
    return paginate(products, query, ProductResponse.from);
  }

  async get(store: Store, id: string): Promise<ProductResponse> {
    return ProductResponse.from(await findInStore(this.dataSource.manager, Product, store, id, 'product'));
  }

  async update(store: Store, id: string, request: UpdateProductRequest): Promise<ProductResponse> {
    await transaction(this.dataSource, async (manager) => {
      const product = await findInStore(manager, Product, store, id, 'product', { lock: true });
      if (request.product_type_id !== undefined) {
        await findReference(manager, ProductType, store, request.product_type_id, 'product_type_id');
      }
      if (request.size_chart_id !== undefined && request.size_chart_id !== product.sizeChartId) {
        const chart = await usableChart(manager, store, request.size_chart_id);
        await refuseOrphanedVariants(manager, product, chart);
      }
      const changes: Partial<Product> = {
        ...(request.external_id !== undefined ? { externalId: request.external_id } : {}),
        ...(request.title !== undefined ? { title: request.title } : {}),
        ...(request.product_type_id !== undefined ? { productTypeId: request.product_type_id } : {}),
        ...(request.size_chart_id !== undefined ? { sizeChartId: request.size_chart_id } : {}),
        ...(request.fit_adjustment !== undefined ? { fitAdjustment: request.fit_adjustment } : {}),
      };
      if (Object.keys(changes).length) {
        await refuseTakenExternalId(manager, 'product', store, request.external_id, product.id);
        await refusingDuplicates(() => manager.update(Product, { id: product.id }, changes));
      }
    });
    return this.get(store, id);
  }

  /** Archived when sessions or events refer to it (its history stays readable); otherwise deleted with its variants. */
  async delete(store: Store, id: string): Promise<Removal<ProductResponse>> {
    return transaction(this.dataSource, async (manager) => {
      const product = await findInStore(manager, Product, store, id, 'product', { lock: true });
      const referred = await this.references.isReferenced(manager, 'product', product.id);
      return removeOrArchive(manager, Product, product, referred, ProductResponse.from);
    });
  }

  async createVariant(store: Store, productId: string, request: CreateVariantRequest): Promise<VariantResponse> {
    const id = newId();
    await transaction(this.dataSource, async (manager) => {
      const product = await findInStore(manager, Product, store, productId, 'product', { lock: true });
      await requireChartLabel(manager, product.sizeChartId, request.size_label);
      await refuseTakenExternalId(manager, 'variant', store, request.external_id);
      await refusingDuplicates(() =>
        manager.insert(Variant, {
          id,
          merchantId: store.merchantId,
          storeId: store.id,
          productId: product.id,
          externalId: request.external_id ?? null,
          sizeLabel: request.size_label,
          sku: request.sku ?? null,
          title: request.title ?? null,
          archivedAt: null,
        }),
      );
    });
    return this.getVariant(store, productId, id);
  }

  /**
   * A product's variants in the order of its chart's sizes, then by id (several variants of one size, colours for
   * example, keep their creation order); a label the chart no longer has sorts last. The cursor is the last variant
   * seen, so a page continues after its size and id.
   */
  async listVariants(store: Store, productId: string, page: PageQuery): Promise<Page<VariantResponse>> {
    const manager = this.dataSource.manager;
    const product = await findInStore(manager, Product, store, productId, 'product');
    const chart = await manager.findOneByOrFail(SizeChart, { id: product.sizeChartId });
    const labels = chart.sizes.map((size) => size.label);
    const positionOf = (label: string) => (labels.includes(label) ? labels.indexOf(label) : labels.length);
    const limit = page.limit ?? 20;
    const variants = await queryInStore(manager, Variant, 'variant', store)
      .andWhere('variant.product_id = :productId', { productId: product.id })
      .getMany();
    const ordered = variants.sort((a, b) => positionOf(a.sizeLabel) - positionOf(b.sizeLabel) || (a.id < b.id ? -1 : 1));
    let start = 0;
    if (page.starting_after !== undefined) {
      start = ordered.findIndex((variant) => variant.id === page.starting_after) + 1;
      if (start === 0) throw ProblemError.field('starting_after', 'not_found', 'starting_after must be an id from a previous page');
    }
    const items = ordered.slice(start, start + limit);
    const hasMore = start + limit < ordered.length;
    return { data: items.map(VariantResponse.from), has_more: hasMore, next_cursor: hasMore ? items[items.length - 1].id : null };
  }

  async getVariant(store: Store, productId: string, id: string): Promise<VariantResponse> {
    return VariantResponse.from(await this.findVariant(this.dataSource.manager, store, productId, id));
  }

  async updateVariant(store: Store, productId: string, id: string, request: UpdateVariantRequest): Promise<VariantResponse> {
    await transaction(this.dataSource, async (manager) => {
      const variant = await this.findVariant(manager, store, productId, id);
      if (request.size_label !== undefined) {
        const product = await manager.findOneByOrFail(Product, { id: variant.productId });
        await requireChartLabel(manager, product.sizeChartId, request.size_label);
      }
      const changes: Partial<Variant> = {
        ...(request.size_label !== undefined ? { sizeLabel: request.size_label } : {}),
        ...(request.external_id !== undefined ? { externalId: request.external_id } : {}),
        ...(request.sku !== undefined ? { sku: request.sku } : {}),
        ...(request.title !== undefined ? { title: request.title } : {}),
      };
      if (Object.keys(changes).length) {
        await refuseTakenExternalId(manager, 'variant', store, request.external_id, variant.id);
        await refusingDuplicates(() => manager.update(Variant, { id: variant.id }, changes));
      }
    });
    return this.getVariant(store, productId, id);
  }

  /** Archived when events refer to it; otherwise deleted. */
  async deleteVariant(store: Store, productId: string, id: string): Promise<Removal<VariantResponse>> {
    return transaction(this.dataSource, async (manager) => {
      const variant = await this.findVariant(manager, store, productId, id, { lock: true });
      const referred = await this.references.isReferenced(manager, 'variant', variant.id);
      return removeOrArchive(manager, Variant, variant, referred, VariantResponse.from);
    });
  }

  /** A variant of the product named in the path, which must itself be of the store. */
  private async findVariant(
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
}

/** A chart of the store that is not archived. */
async function usableChart(manager: EntityManager, store: Store, chartId: string): Promise<SizeChart> {
  const chart = await findReference(manager, SizeChart, store, chartId, 'size_chart_id');
  if (chart.archivedAt) throw ProblemError.field('size_chart_id', 'archived', 'this size chart is archived');
  return chart;
}

async function refuseOrphanedVariants(manager: EntityManager, product: Product, chart: SizeChart): Promise<void> {
  const labels = new Set(chart.sizes.map((size) => size.label));
  const variants = await manager.findBy(Variant, { productId: product.id });
  const orphaned = [...new Set(variants.map((v) => v.sizeLabel).filter((label) => !labels.has(label)))];
  if (orphaned.length) {
    throw ProblemError.field(
      'size_chart_id',
      'label_mismatch',
      `the new chart lacks the size${orphaned.length > 1 ? 's' : ''} ${orphaned.join(', ')} that variants use`,
    );
  }
}
