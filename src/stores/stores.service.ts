import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MerchantPrincipal } from '../auth/principal.js';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { type CreateStoreRequest, StoreResponse, type UpdateStoreRequest } from './dto/store.dto.js';
import type { Store } from './store.entity.js';
import { type StoreChanges, StoresRepository } from './stores.repository.js';

@Injectable()
export class StoresService {
  constructor(private readonly stores: StoresRepository) {}

  async create(principal: MerchantPrincipal, request: CreateStoreRequest): Promise<StoreResponse> {
    const id = newId();
    const store = await this.stores.create({
      id,
      merchantId: principal.merchantId,
      name: request.name,
      currency: request.currency ?? 'USD',
      unitSystem: request.unit_system ?? 'metric',
    });
    return StoreResponse.from(store);
  }

  /** The merchant's stores; a store-bound key sees only its own. */
  list(principal: MerchantPrincipal, page: PageQuery): Promise<Page<StoreResponse>> {
    return this.stores.list(principal.merchantId, principal.storeId, page, StoreResponse.from);
  }

  /**
   * Serialises, until the transaction ends, the changes another module makes to what a store has one of (fit's default
   * questionnaire), without blocking writes that merely refer to the store.
   */
  lock(manager: EntityManager, store: Store): Promise<void> {
    return this.stores.lock(manager, store.id);
  }

  /** `store` comes from the access guard, already checked against the caller. */
  async update(store: Store, request: UpdateStoreRequest): Promise<StoreResponse> {
    const changes: StoreChanges = {
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.currency !== undefined ? { currency: request.currency } : {}),
      ...(request.unit_system !== undefined ? { unitSystem: request.unit_system } : {}),
    };
    if (Object.keys(changes).length) await this.stores.update(store.id, store.merchantId, changes);
    return StoreResponse.from(await this.stores.getById(store.id));
  }

  /**
   * The store `storeId`, whoever its merchant, or null: only for a caller that has established the tenant otherwise
   * (the platform's signed notification for a shop, whose connection names the store).
   */
  findConnected(storeId: string): Promise<Store | null> {
    return this.stores.findById(storeId);
  }

  /** The merchant's store `storeId`, or null. */
  findOfMerchant(storeId: string, merchantId: string): Promise<Store | null> {
    return this.stores.findOfMerchant(storeId, merchantId);
  }

  /** `findOfMerchant`, in the caller's transaction. */
  findOfMerchantIn(manager: EntityManager, storeId: string, merchantId: string): Promise<Store | null> {
    return this.stores.findOfMerchantIn(manager, storeId, merchantId);
  }

  /** Records the shop a store of the merchant is connected to; the number of stores updated (0 or 1). */
  setPlatform(manager: EntityManager, storeId: string, merchantId: string, shop: string): Promise<number> {
    return this.stores.setPlatform(manager, storeId, merchantId, shop);
  }

  clearPlatform(manager: EntityManager, storeId: string): Promise<void> {
    return this.stores.clearPlatform(manager, storeId);
  }
}
