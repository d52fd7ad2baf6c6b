import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CatalogLookups } from '../catalog/catalog-lookups.service.js';
import { ProductsService } from '../catalog/products.service.js';
import { Transactions } from '../database/transactions.js';
import type { Store } from '../stores/store.entity.js';
import { type KeptProduct, PlatformImportsRepository } from './platform-imports.repository.js';
import type { ShopProduct } from './shop-products.js';

/** What became of a product the shop gave. */
export type ProductFate = 'in_catalog' | 'needs_chart' | 'skipped' | 'older' | 'deleted';

/**
 * The store's catalog kept in line with its shop's (docs/platform-sync.md), from a page of a full read or a product
 * notification alike. A product the shop gives is kept in `platform_products`; when the catalog has it (its
 * `external_id` is the platform's id), its variants are brought in line first (`ProductsService.syncVariants`), so
 * that a crash between the two leaves the product to be given again and changes nothing twice. What is kept wins
 * over what the shop gave when it is newer (the shop's `updated_at`, for notifications delivered out of order) or a
 * tombstone (a product deleted on the shop, which only a full read listing it after its deletion brings back).
 */
@Injectable()
export class CatalogSyncService {
  constructor(
    private readonly transactions: Transactions,
    private readonly imports: PlatformImportsRepository,
    private readonly catalog: CatalogLookups,
    private readonly products: ProductsService,
  ) {}

  /**
   * Applies products the shop gave: of a full read's page when `listedAt` (the time the page was read) is set, of a
   * notification otherwise. `then` runs in the transaction that keeps them (the read moves past its page there).
   * Returns each product's fate and how many catalog products had their variants repaired.
   */
  async apply(
    store: Store,
    given: readonly ShopProduct[],
    listedAt: Date | null,
    then?: (manager: EntityManager, repaired: number) => Promise<void>,
  ): Promise<{ fates: Map<string, ProductFate>; repaired: number }> {
    const ids = given.map((product) => product.platformId);
    const [kept, linked] = await Promise.all([this.imports.kept(store.id, ids), this.catalog.byExternalIds(store, ids)]);
    const fates = new Map<string, ProductFate>();
    let repaired = 0;
    for (const product of given) {
      const previous = kept.get(product.platformId);
      const overruled = overruledBy(previous, product, listedAt);
      const inCatalog = linked.get(product.platformId);
      if (overruled !== null) fates.set(product.platformId, overruled);
      else if (inCatalog === undefined) fates.set(product.platformId, product.sizeOption === null ? 'skipped' : 'needs_chart');
      else {
        fates.set(product.platformId, 'in_catalog');
        const listed = new Set(product.variants.map((variant) => variant.id));
        const gone = (previous?.variants ?? []).map((variant) => variant.id).filter((id) => !listed.has(id));
        if (await this.products.syncVariants(store, inCatalog.id, product.variants, gone)) repaired++;
      }
    }
    const links = new Map([...linked].map(([external, product]) => [external, product.id]));
    await this.transactions.run(async (manager) => {
      await this.imports.save(manager, store.id, given, links, listedAt);
      await then?.(manager, repaired);
    });
    return { fates, repaired };
  }

  /**
   * Products deleted on the shop: their catalog products removed as the API's delete removes them (archived when
   * events refer to them), then kept as tombstones; `then` runs in the tombstones' transaction. Returns how many
   * catalog products were removed.
   */
  async remove(store: Store, platformIds: readonly string[], then?: (manager: EntityManager) => Promise<void>): Promise<number> {
    const [kept, linked] = await Promise.all([this.imports.kept(store.id, platformIds), this.catalog.byExternalIds(store, platformIds)]);
    const catalogIds = new Set<string>();
    for (const id of platformIds) {
      const productId = linked.get(id)?.id ?? kept.get(id)?.productId;
      if (productId) catalogIds.add(productId);
    }
    let removed = 0;
    for (const productId of catalogIds) if (await this.products.removeIfPresent(store, productId)) removed++;
    await this.transactions.run(async (manager) => {
      await this.imports.markDeleted(manager, store.id, platformIds);
      await then?.(manager);
    });
    return removed;
  }
}

/** Why what is kept wins over the product given, or null when it does not. */
function overruledBy(kept: KeptProduct | undefined, given: ShopProduct, listedAt: Date | null): ProductFate | null {
  if (kept === undefined) return null;
  if (kept.deletedAt !== null && (listedAt === null || kept.deletedAt >= listedAt)) return 'deleted';
  if (kept.shopUpdatedAt !== null && given.updatedAt !== null && given.updatedAt < kept.shopUpdatedAt) return 'older';
  return null;
}
