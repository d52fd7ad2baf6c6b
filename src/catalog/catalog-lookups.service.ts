import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Store } from '../stores/store.entity.js';
import type { Product, SizeChart, Variant } from './catalog.entities.js';
import { requireChartLabel } from './chart-labels.js';
import { ProductsRepository } from './products.repository.js';

/** What the engine needs of a size chart. */
export type ChartRow = Pick<SizeChart, 'measurementType' | 'easeCm' | 'unit' | 'sizes'>;

/** What another feature learns of a product or a variant it names. */
type ProductRef = Pick<Product, 'id' | 'sizeChartId' | 'productTypeId' | 'archivedAt'>;
type VariantRef = Pick<Variant, 'id' | 'productId' | 'sizeLabel' | 'archivedAt'>;

/**
 * The catalog as other features read it, inside their own transactions: the products and variants a request names, a
 * chart's labels, a product's variants by size. Every read locks its rows `FOR KEY SHARE`, so that they stay while the
 * caller's write refers to them, and a concurrent catalog edit waits for that write or wins.
 */
@Injectable()
export class CatalogLookups {
  constructor(private readonly products: ProductsRepository) {}

  /** The store's product named in a request body's `field`; 400 on that field when it names nothing. */
  product(manager: EntityManager, store: Store, id: string, field: string): Promise<ProductRef> {
    return this.products.lockReference(manager, store, id, field);
  }

  /** The store's variant named in a request body's `field`; 400 on that field when it names nothing. */
  variant(manager: EntityManager, store: Store, id: string, field: string): Promise<VariantRef> {
    return this.products.referenceVariant(manager, store, id, field);
  }

  /**
   * The product's first active variant of size `label` (null when it has none), once `label` is known to be a label of
   * the chart `chartId` (else 400 `unknown_size`) or is `known` anyway (a size the session recommended, which an edit
   * of the chart may have dropped since): one statement, the chart and the variant locked.
   */
  async variantOfSize(manager: EntityManager, chartId: string, productId: string, label: string, known = false): Promise<string | null> {
    const { sizes, variantId } = await this.products.lockSize(manager, chartId, productId, label);
    if (!known) requireChartLabel({ sizes }, label);
    return variantId;
  }

  /** The store's product named in the path (404 otherwise), with its chart's size labels in chart order. */
  async productWithSizes(store: Store, id: string): Promise<{ id: string; title: string; productTypeId: string; labels: string[] }> {
    const { product, labels } = await this.products.currentWithSizes(store, id);
    return { id: product.id, title: product.title, productTypeId: product.productTypeId, labels };
  }

  /** The store's products known by these external ids (a platform's), with their variants by external id. */
  byExternalIds(store: Store, externalIds: readonly string[]): Promise<Map<string, { id: string; variants: Map<string, string> }>> {
    return this.products.byExternalIds(store, externalIds);
  }

  /** The titles of the store's products among `ids`. */
  titles(store: Store, ids: readonly string[]): Promise<Map<string, string>> {
    return this.products.titles(store, ids);
  }

  /** For each size, the product's first active variant of that size. */
  variantsBySize(manager: EntityManager, productId: string): Promise<Map<string, string>> {
    return this.products.activeVariantsBySize(manager, productId);
  }
}
