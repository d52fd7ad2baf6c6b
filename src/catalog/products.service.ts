import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { Store } from '../stores/store.entity.js';
import { CatalogReferences } from './catalog-references.js';
import type { Product, ProductType, SizeChart, Variant } from './catalog.entities.js';
import { unstatedZones, unstatedZonesMessage } from './catalog-rules.js';
import { refusingDuplicates } from './catalog-errors.js';
import { requireChartLabel } from './chart-labels.js';
import {
  type CreateProductRequest,
  type CreateVariantRequest,
  type ProductListQuery,
  type ProductSearch,
  ProductResponse,
  type UpdateProductRequest,
  type UpdateVariantRequest,
  VariantResponse,
} from './dto/product.dto.js';
import type { Removal } from '../common/http/removal.js';
import { Transactions } from '../database/transactions.js';
import { ProductTypesRepository } from './product-types.repository.js';
import { ProductsRepository } from './products.repository.js';
import { SizeChartsRepository } from './size-charts.repository.js';

@Injectable()
export class ProductsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly products: ProductsRepository,
    private readonly types: ProductTypesRepository,
    private readonly charts: SizeChartsRepository,
    private readonly references: CatalogReferences,
  ) {}

  /**
   * A product; with `variantPerSize` (the console's form), a variant of each of its chart's sizes in the same
   * transaction; with `variants` (a shop's product imported from its platform), those variants, each of a size of the
   * chart (400 `unknown_size` otherwise), in the same transaction.
   */
  async create(
    store: Store,
    request: CreateProductRequest,
    options: { variantPerSize?: boolean; variants?: ReadonlyArray<{ size_label: string; external_id: string | null }> } = {},
  ): Promise<ProductResponse> {
    const id = newId();
    await this.transactions.run(async (manager) => {
      const type = await this.types.reference(manager, store, request.product_type_id, 'product_type_id');
      const chart = await this.usableChart(manager, store, request.size_chart_id);
      refuseUnstatedZones(type, chart, 'size_chart_id');
      await this.products.refuseTakenExternalId(manager, 'product', store, request.external_id);
      await refusingDuplicates(() =>
        this.products.insert(manager, {
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
      for (const variant of options.variants ?? []) {
        requireChartLabel(chart, variant.size_label);
        await this.products.refuseTakenExternalId(manager, 'variant', store, variant.external_id);
        await refusingDuplicates(() =>
          this.products.insertVariant(manager, {
            id: newId(),
            merchantId: store.merchantId,
            storeId: store.id,
            productId: id,
            externalId: variant.external_id,
            sizeLabel: variant.size_label,
            sku: null,
            title: null,
            archivedAt: null,
          }),
        );
      }
      if (!options.variantPerSize) return;
      for (const size of chart.sizes) {
        await this.products.insertVariant(manager, {
          id: newId(),
          merchantId: store.merchantId,
          storeId: store.id,
          productId: id,
          externalId: null,
          sizeLabel: size.label,
          sku: null,
          title: null,
          archivedAt: null,
        });
      }
    });
    return this.get(store, id);
  }

  list(store: Store, query: ProductListQuery): Promise<Page<ProductResponse>> {
    return this.products.list(store, query, ProductResponse.from);
  }

  /** The console's list: active products matching `search`, newest first. */
  search(store: Store, search: ProductSearch, page: PageQuery): Promise<Page<ProductResponse>> {
    return this.products.search(store, search, page, ProductResponse.from);
  }

  async get(store: Store, id: string): Promise<ProductResponse> {
    return ProductResponse.from(await this.products.get(store, id));
  }

  async update(store: Store, id: string, request: UpdateProductRequest): Promise<ProductResponse> {
    await this.transactions.run(async (manager) => {
      const product = await this.products.lock(manager, store, id);
      const newType = request.product_type_id !== undefined && request.product_type_id !== product.productTypeId;
      const newChart = request.size_chart_id !== undefined && request.size_chart_id !== product.sizeChartId;
      const type =
        request.product_type_id !== undefined
          ? await this.types.reference(manager, store, request.product_type_id, 'product_type_id')
          : undefined;
      let chart: SizeChart | undefined;
      if (newChart) {
        chart = await this.usableChart(manager, store, request.size_chart_id as string);
        refuseOrphanedVariants(await this.products.variantsOf(manager, product.id), chart);
      }
      if (newType || newChart) {
        chart ??= await this.charts.lockLabels(manager, product.sizeChartId);
        const weighed = type ?? (await this.types.reference(manager, store, product.productTypeId, 'product_type_id'));
        refuseUnstatedZones(weighed, chart, newChart ? 'size_chart_id' : 'product_type_id');
      }
      const changes: Partial<Product> = {
        ...(request.external_id !== undefined ? { externalId: request.external_id } : {}),
        ...(request.title !== undefined ? { title: request.title } : {}),
        ...(request.product_type_id !== undefined ? { productTypeId: request.product_type_id } : {}),
        ...(request.size_chart_id !== undefined ? { sizeChartId: request.size_chart_id } : {}),
        ...(request.fit_adjustment !== undefined ? { fitAdjustment: request.fit_adjustment } : {}),
      };
      if (Object.keys(changes).length) {
        await this.products.refuseTakenExternalId(manager, 'product', store, request.external_id, product.id);
        await refusingDuplicates(() => this.products.update(manager, product.id, changes));
      }
    });
    return this.get(store, id);
  }

  /** Archived when sessions or events refer to it (its history stays readable); otherwise deleted with its variants. */
  async delete(store: Store, id: string): Promise<Removal<ProductResponse>> {
    return this.transactions.run(async (manager) => {
      return this.removeLocked(manager, await this.products.lock(manager, store, id), ProductResponse.from);
    });
  }

  async createVariant(store: Store, productId: string, request: CreateVariantRequest): Promise<VariantResponse> {
    const id = newId();
    await this.transactions.run(async (manager) => {
      const product = await this.products.lock(manager, store, productId);
      requireChartLabel(await this.charts.lockLabels(manager, product.sizeChartId), request.size_label);
      await this.products.refuseTakenExternalId(manager, 'variant', store, request.external_id);
      await refusingDuplicates(() =>
        this.products.insertVariant(manager, {
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
    const product = await this.products.get(store, productId);
    const chart = await this.charts.getById(product.sizeChartId);
    const labels = chart.sizes.map((size) => size.label);
    const positionOf = (label: string) => (labels.includes(label) ? labels.indexOf(label) : labels.length);
    const limit = page.limit ?? 20;
    const variants = await this.products.variantsInStore(store, product.id);
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
    return VariantResponse.from(await this.products.getVariant(store, productId, id));
  }

  async updateVariant(store: Store, productId: string, id: string, request: UpdateVariantRequest): Promise<VariantResponse> {
    await this.transactions.run(async (manager) => {
      const variant = await this.products.findVariant(manager, store, productId, id);
      if (request.size_label !== undefined) {
        const product = await this.products.lockShared(manager, variant.productId);
        requireChartLabel(await this.charts.lockLabels(manager, product.sizeChartId), request.size_label);
      }
      const changes: Partial<Variant> = {
        ...(request.size_label !== undefined ? { sizeLabel: request.size_label } : {}),
        ...(request.external_id !== undefined ? { externalId: request.external_id } : {}),
        ...(request.sku !== undefined ? { sku: request.sku } : {}),
        ...(request.title !== undefined ? { title: request.title } : {}),
      };
      if (Object.keys(changes).length) {
        await this.products.refuseTakenExternalId(manager, 'variant', store, request.external_id, variant.id);
        await refusingDuplicates(() => this.products.updateVariant(manager, variant.id, changes));
      }
    });
    return this.getVariant(store, productId, id);
  }

  /** Archived when events refer to it; otherwise deleted. */
  async deleteVariant(store: Store, productId: string, id: string): Promise<Removal<VariantResponse>> {
    return this.transactions.run(async (manager) => {
      const variant = await this.products.findVariant(manager, store, productId, id, { lock: true });
      const referred = await this.references.isReferenced(manager, 'variant', variant.id);
      return this.products.removeOrArchiveVariant(manager, variant, referred, VariantResponse.from);
    });
  }

  /**
   * Brings the variants of the store's product `productId` in line with a platform's listing of it (a connected shop's
   * product, docs/platform-sync.md), in one transaction, the product locked. Each listed variant whose size is a label
   * of the product's chart (whatever its case) is the catalog variant whose `external_id` is the listed id: relabelled
   * when the shop renamed its size; otherwise an active variant of that size without an `external_id` takes the id (a
   * product made before the shop was connected), or a variant is created. The variants whose ids are in `gone` (listed
   * before, no longer) are removed, or archived when events refer to them. An id another product's variant holds is left
   * alone. An archived product, or one no longer in the store, is left as it is. Returns whether anything changed.
   */
  async syncVariants(
    store: Store,
    productId: string,
    listed: ReadonlyArray<{ readonly id: string; readonly size: string | null }>,
    gone: readonly string[],
  ): Promise<boolean> {
    return this.transactions.run(async (manager) => {
      const product = await this.products.lockIfPresent(manager, store, productId);
      if (product === null || product.archivedAt !== null) return false;
      const labels = new Map(
        (await this.charts.lockLabels(manager, product.sizeChartId)).sizes.map((size) => [size.label.toLowerCase(), size.label]),
      );
      const variants = await this.products.variantsOf(manager, product.id);
      const byExternalId = new Map(variants.flatMap((variant) => (variant.externalId === null ? [] : [[variant.externalId, variant]])));
      const unlinked = variants.filter((variant) => variant.externalId === null && variant.archivedAt === null);
      let changed = false;
      for (const { id, size } of listed) {
        const label = size === null ? undefined : labels.get(size.toLowerCase());
        if (label === undefined) continue;
        const own = byExternalId.get(id);
        if (own !== undefined) {
          if (own.sizeLabel !== label && own.archivedAt === null) {
            await this.products.updateVariant(manager, own.id, { sizeLabel: label });
            changed = true;
          }
          continue;
        }
        if (await this.products.externalIdTaken(manager, 'variant', store, id)) continue;
        const free = unlinked.findIndex((variant) => variant.sizeLabel === label);
        if (free >= 0) {
          await this.products.updateVariant(manager, unlinked[free].id, { externalId: id });
          unlinked.splice(free, 1);
        } else {
          await this.products.insertVariant(manager, {
            id: newId(),
            merchantId: store.merchantId,
            storeId: store.id,
            productId: product.id,
            externalId: id,
            sizeLabel: label,
            sku: null,
            title: null,
            archivedAt: null,
          });
        }
        changed = true;
      }
      const listedIds = new Set(listed.map((variant) => variant.id));
      for (const id of gone) {
        const variant = byExternalId.get(id);
        if (variant === undefined || variant.archivedAt !== null || listedIds.has(id)) continue;
        const referred = await this.references.isReferenced(manager, 'variant', variant.id);
        await this.products.removeOrArchiveVariant(manager, variant, referred, () => null);
        changed = true;
      }
      return changed;
    });
  }

  /**
   * Removes the store's product `productId` as `delete` does, when it is still there and active (a connected shop's
   * product deleted on the shop). Returns whether it did.
   */
  async removeIfPresent(store: Store, productId: string): Promise<boolean> {
    return this.transactions.run(async (manager) => {
      const product = await this.products.lockIfPresent(manager, store, productId);
      if (product === null || product.archivedAt !== null) return false;
      await this.removeLocked(manager, product, () => null);
      return true;
    });
  }

  /** Deletes the product, locked by the caller, or archives it when sessions or events refer to it. */
  private async removeLocked<T>(manager: EntityManager, product: Product, present: (product: Product) => T): Promise<Removal<T>> {
    const referred = await this.references.isReferenced(manager, 'product', product.id);
    return this.products.removeOrArchive(manager, product, referred, present);
  }

  /** A chart of the store that is not archived. */
  private async usableChart(manager: EntityManager, store: Store, chartId: string): Promise<SizeChart> {
    const chart = await this.charts.reference(manager, store, chartId, 'size_chart_id');
    if (chart.archivedAt) throw ProblemError.field('size_chart_id', 'archived', 'this size chart is archived');
    return chart;
  }
}

/** A product whose type weighs a zone its chart states for no size: 400 `zones_not_in_chart` on `field`. */
function refuseUnstatedZones(type: ProductType, chart: SizeChart, field: 'size_chart_id' | 'product_type_id'): void {
  const zones = unstatedZones(type.zoneWeights, chart.sizes);
  if (zones.length) throw ProblemError.field(field, 'zones_not_in_chart', unstatedZonesMessage(zones, 'its size chart'));
}

/** `variants`: every variant of the product. */
function refuseOrphanedVariants(variants: Variant[], chart: SizeChart): void {
  const labels = new Set(chart.sizes.map((size) => size.label));
  const orphaned = [...new Set(variants.map((v) => v.sizeLabel).filter((label) => !labels.has(label)))];
  if (orphaned.length) {
    throw ProblemError.field(
      'size_chart_id',
      'label_mismatch',
      `the new chart lacks the size${orphaned.length > 1 ? 's' : ''} ${orphaned.join(', ')} that variants use`,
    );
  }
}
