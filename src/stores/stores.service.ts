import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { MerchantPrincipal } from '../auth/principal.js';
import { newId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { type CreateStoreRequest, StoreResponse, type UpdateStoreRequest } from './dto/store.dto.js';
import { Store } from './store.entity.js';

@Injectable()
export class StoresService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(principal: MerchantPrincipal, request: CreateStoreRequest): Promise<StoreResponse> {
    const repository = this.dataSource.getRepository(Store);
    const id = newId();
    await repository.insert({
      id,
      merchantId: principal.merchantId,
      name: request.name,
      currency: request.currency ?? 'USD',
      unitSystem: request.unit_system ?? 'metric',
      platform: null,
      platformShop: null,
    });
    return StoreResponse.from(await repository.findOneByOrFail({ id }));
  }

  /** The merchant's stores; a store-bound key sees only its own. */
  list(principal: MerchantPrincipal, page: PageQuery): Promise<Page<StoreResponse>> {
    const query = this.dataSource
      .getRepository(Store)
      .createQueryBuilder('store')
      .where('store.merchant_id = :merchantId', { merchantId: principal.merchantId });
    if (principal.storeId !== null) query.andWhere('store.id = :storeId', { storeId: principal.storeId });
    return paginate(query, page, StoreResponse.from);
  }

  /** `store` comes from the access guard, already checked against the caller. */
  async update(store: Store, request: UpdateStoreRequest): Promise<StoreResponse> {
    const changes: Partial<Store> = {
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.currency !== undefined ? { currency: request.currency } : {}),
      ...(request.unit_system !== undefined ? { unitSystem: request.unit_system } : {}),
    };
    const repository = this.dataSource.getRepository(Store);
    if (Object.keys(changes).length) await repository.update({ id: store.id, merchantId: store.merchantId }, changes);
    return StoreResponse.from(await repository.findOneByOrFail({ id: store.id }));
  }
}
