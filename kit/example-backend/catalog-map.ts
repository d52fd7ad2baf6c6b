/**
 * The platform's product and variant ids → Size-Fit's, through the `external_id` each product and variant was
 * created with. Lookups are cached for a few minutes: a storefront asks about the same products all day. An order
 * webhook that names a variant the cached map lacks refreshes the product first (`refresh`): the variant may have
 * been added, or given its `external_id`, since.
 */
import type { SizeFitClient } from '../client/size-fit.js';

export interface SizeFitProduct {
  readonly id: string;
  /** Platform variant id → Size-Fit variant id; archived variants too (a return may name one). */
  readonly variants: ReadonlyMap<string, string>;
  /** The chart's sizes, smallest first, each with the platform variant in that size (null when there is none). */
  readonly sizes: readonly ChartSize[];
}

export interface ChartSize {
  readonly label: string;
  readonly platformVariantId: string | null;
  /** The size's body ranges in centimetres, by zone; empty for a garment chart (its ranges are not the body's). */
  readonly bodyCm: Readonly<Record<string, { readonly min: number; readonly max: number }>>;
}

const TTL_MS = 5 * 60_000;

export class CatalogMap {
  private readonly cache = new Map<string, { product: SizeFitProduct | null; until: number }>();

  constructor(
    private readonly sizeFit: SizeFitClient,
    private readonly storeId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Size-Fit product of a platform product id, or null when the product has no size help. */
  async product(platformProductId: string): Promise<SizeFitProduct | null> {
    const cached = this.cache.get(platformProductId);
    if (cached && cached.until > this.now()) return cached.product;
    const product = await this.load(platformProductId);
    this.cache.set(platformProductId, { product, until: this.now() + TTL_MS });
    return product;
  }

  /** The product as Size-Fit has it now, the cache replaced: for an order line whose variant the cached map lacks. */
  async refresh(platformProductId: string): Promise<SizeFitProduct | null> {
    this.cache.delete(platformProductId);
    return this.product(platformProductId);
  }

  /** The product of a Size-Fit product id (a session's), or null when it has no platform id or no size help. */
  async productById(sizeFitProductId: string): Promise<SizeFitProduct | null> {
    for (const [platformId, cached] of this.cache) {
      if (cached.product?.id === sizeFitProductId) return this.product(platformId);
    }
    const product = await this.sizeFit.GET('/v1/stores/{store_id}/products/{id}', {
      params: { path: { store_id: this.storeId, id: sizeFitProductId } },
    });
    return product.external_id === null ? null : this.product(product.external_id);
  }

  private async load(platformProductId: string): Promise<SizeFitProduct | null> {
    const found = await this.sizeFit.GET('/v1/stores/{store_id}/products', {
      params: { path: { store_id: this.storeId }, query: { external_id: platformProductId, limit: 1 } },
    });
    const product = found.data[0];
    if (product === undefined || product.archived_at !== null) return null;
    const variants = new Map<string, string>();
    const bySize = new Map<string, string>();
    for await (const variant of this.sizeFit.list('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: { path: { store_id: this.storeId, product_id: product.id }, query: { limit: 100 } },
    })) {
      if (variant.external_id === null) continue;
      // An order's events may name an archived variant (the service keeps it); the widget's sizes never do.
      if (variant.archived_at !== null) {
        if (!variants.has(variant.external_id)) variants.set(variant.external_id, variant.id);
        continue;
      }
      variants.set(variant.external_id, variant.id);
      if (!bySize.has(variant.size_label)) bySize.set(variant.size_label, variant.external_id);
    }
    const chart = await this.sizeFit.GET('/v1/stores/{store_id}/size-charts/{id}', {
      params: { path: { store_id: this.storeId, id: product.size_chart_id } },
    });
    const toCm = chart.unit === 'in' ? 2.54 : 1;
    const sizes = chart.sizes.map((size) => ({
      label: size.label,
      platformVariantId: bySize.get(size.label) ?? null,
      bodyCm:
        chart.measurement_type === 'body'
          ? Object.fromEntries(Object.entries(size.measurements).map(([zone, r]) => [zone, { min: r.min * toCm, max: r.max * toCm }]))
          : {},
    }));
    return { id: product.id, variants, sizes };
  }
}
