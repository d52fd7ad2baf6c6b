import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** The store's digests of shoppers' ids, in the caller's transaction, one per id in order. */
type DigestAll = (manager: EntityManager, storeId: string, refs: readonly string[]) => Promise<Buffer[]>;

/**
 * How learning digests a shopper's id (`shopper_ref`) that an import of past orders names: exactly as her sessions are
 * digested, under the store's key, which the fit module keeps and lends here when it starts (learning cannot import fit,
 * which imports it). So an imported line teaches the very shopper her next sessions name.
 */
@Injectable()
export class ShopperDigests {
  private digestAll: DigestAll | null = null;

  register(digestAll: DigestAll): void {
    this.digestAll = digestAll;
  }

  /** The digests of `refs` in the store (its key is created on first use, as a session naming a shopper does). */
  of(manager: EntityManager, storeId: string, refs: readonly string[]): Promise<Buffer[]> {
    if (this.digestAll === null) throw new Error('no shopper digest registered: the fit module lends it when it starts');
    return refs.length ? this.digestAll(manager, storeId, refs) : Promise.resolve([]);
  }
}
