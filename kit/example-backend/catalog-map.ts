/**
 * The platform's product and variant ids → Size-Fit's, through the `external_id` each product and variant was
 * created with. Lookups are cached for a few minutes: a storefront asks about the same products all day.
 */
import type { SizeFitClient } from '../client/size-fit.js';

export interface SizeFitProduct {
  readonly id: string;
  /** Platform variant id → Size-Fit variant id. */
  readonly variants: ReadonlyMap<string, string>;
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

  private async load(platformProductId: string): Promise<SizeFitProduct | null> {
    const found = await this.sizeFit.GET('/v1/stores/{store_id}/products', {
      params: { path: { store_id: this.storeId }, query: { external_id: platformProductId, limit: 1 } },
    });
    const product = found.data[0];
    if (product === undefined || product.archived_at !== null) return null;
    const variants = new Map<string, string>();
    for await (const variant of this.sizeFit.list('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: { path: { store_id: this.storeId, product_id: product.id }, query: { limit: 100 } },
    })) {
      if (variant.external_id !== null && variant.archived_at === null) variants.set(variant.external_id, variant.id);
    }
    return { id: product.id, variants };
  }
}
