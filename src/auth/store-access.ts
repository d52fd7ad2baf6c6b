import { Injectable } from '@nestjs/common';
import { isId } from '../common/http/ids.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import type { MerchantPrincipal } from './principal.js';

/** The store a route names, as the caller may see it: the one place where tenancy is decided. */
@Injectable()
export class StoreAccess {
  constructor(private readonly stores: StoresService) {}

  /**
   * A store-bound key may name only its own store: any other id is 403, whether or not that store exists, so a key
   * cannot probe for stores. An unrestricted key sees its merchant's stores; anyone else's are simply not found.
   */
  async resolve(principal: MerchantPrincipal, storeId: unknown): Promise<Store> {
    if (principal.storeId !== null && storeId !== principal.storeId) {
      throw new ProblemError('store_forbidden', 'This key is bound to another store');
    }
    if (principal.boundStore) return principal.boundStore;
    const store = isId(storeId) ? await this.stores.findOfMerchant(storeId, principal.merchantId) : null;
    if (!store) throw ProblemError.notFound('store');
    return store;
  }
}
