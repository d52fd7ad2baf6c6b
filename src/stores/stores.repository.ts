import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { Store } from './store.entity.js';

interface NewStore {
  readonly id: string;
  readonly merchantId: string;
  readonly name: string;
  readonly currency: string;
  readonly unitSystem: Store['unitSystem'];
}

export type StoreChanges = Partial<Pick<Store, 'name' | 'currency' | 'unitSystem'>>;

/**
 * The queries of stores. Methods that may run inside a transaction take its `manager` first; a method that exists in
 * both forms is named `…In` when it takes the manager.
 */
@Injectable()
export class StoresRepository {
  constructor(@InjectRepository(Store) private readonly stores: Repository<Store>) {}

  /** Inserts the store and reads it back. */
  async create(store: NewStore): Promise<Store> {
    await this.stores.insert({
      id: store.id,
      merchantId: store.merchantId,
      name: store.name,
      currency: store.currency,
      unitSystem: store.unitSystem,
      platform: null,
      platformShop: null,
    });
    return this.stores.findOneByOrFail({ id: store.id });
  }

  /** The merchant's stores, newest first; only `storeId` when it is given. */
  list<T>(merchantId: string, storeId: string | null, page: PageQuery, present: (store: Store) => T): Promise<Page<T>> {
    const query = this.stores.createQueryBuilder('store').where('store.merchant_id = :merchantId', { merchantId });
    if (storeId !== null) query.andWhere('store.id = :storeId', { storeId });
    return paginate(query, page, present);
  }

  /** The store `id`, which must exist. */
  getById(id: string): Promise<Store> {
    return this.stores.findOneByOrFail({ id });
  }

  /** The store `storeId` if it is one of the merchant's, else null. */
  findById(storeId: string): Promise<Store | null> {
    return this.stores.findOneBy({ id: storeId });
  }

  findOfMerchant(storeId: string, merchantId: string): Promise<Store | null> {
    return this.stores.findOneBy({ id: storeId, merchantId });
  }

  /** `findOfMerchant` inside the caller's transaction. */
  findOfMerchantIn(manager: EntityManager, storeId: string, merchantId: string): Promise<Store | null> {
    return manager.getRepository(Store).findOneBy({ id: storeId, merchantId });
  }

  async update(storeId: string, merchantId: string, changes: StoreChanges): Promise<void> {
    await this.stores.update({ id: storeId, merchantId }, changes);
  }

  /** Records the shop a store of the merchant is connected to; the number of stores updated (0 or 1). */
  async setPlatform(manager: EntityManager, storeId: string, merchantId: string, shop: string): Promise<number> {
    const [, updated] = (await manager.query(
      `UPDATE stores SET platform = 'shopify', platform_shop = $3 WHERE id = $1 AND merchant_id = $2`,
      [storeId, merchantId, shop],
    )) as [unknown, number];
    return updated;
  }

  /** Locks the store's row `FOR NO KEY UPDATE` (which does not block writes that merely refer to the store). */
  async lock(manager: EntityManager, storeId: string): Promise<void> {
    await manager.query('SELECT 1 FROM stores WHERE id = $1 FOR NO KEY UPDATE', [storeId]);
  }

  async clearPlatform(manager: EntityManager, storeId: string): Promise<void> {
    await manager.query(`UPDATE stores SET platform = NULL, platform_shop = NULL WHERE id = $1`, [storeId]);
  }
}
