import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** The catalog rows other features may refer to. */
type CatalogRow = 'product' | 'variant' | 'size_chart';

/** Whether some row of the registering feature refers to the catalog row `id`, read in the caller's transaction. */
type ReferenceCheck = (manager: EntityManager, id: string) => Promise<boolean>;

/**
 * Who refers to catalog rows. A delete archives a row that something still refers to and removes it otherwise; the
 * catalog cannot know its referrers without importing them, so each feature that refers to a catalog row registers
 * its check here when its module starts (sessions register products and charts, events products and variants).
 */
@Injectable()
export class CatalogReferences {
  private readonly checks = new Map<CatalogRow, ReferenceCheck[]>();

  register(row: CatalogRow, check: ReferenceCheck): void {
    this.checks.set(row, [...(this.checks.get(row) ?? []), check]);
  }

  async isReferenced(manager: EntityManager, row: CatalogRow, id: string): Promise<boolean> {
    for (const check of this.checks.get(row) ?? []) if (await check(manager, id)) return true;
    return false;
  }
}

/**
 * Where a request names a product or a variant, the likeliest mistake is the platform's id in place of this service's:
 * the message says where to find the right one.
 */
export const productIdMessage = (field: string) => ({
  message: `${field} must be the product's Size-Fit id, not the platform's: GET …/products?external_id=<platform id> finds it`,
});
export const variantIdMessage = (field: string) => ({
  message: `${field} must be the variant's Size-Fit id, not the platform's: GET …/products/{product_id}/variants lists each with its external_id`,
});
