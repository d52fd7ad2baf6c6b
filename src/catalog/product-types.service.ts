import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { Product, ProductType } from './catalog.entities.js';
import { inUse } from './catalog-errors.js';
import { type CreateProductTypeRequest, ProductTypeResponse, type UpdateProductTypeRequest } from './dto/product-type.dto.js';
import { transaction } from '../database/transactions.js';

@Injectable()
export class ProductTypesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(store: Store, request: CreateProductTypeRequest): Promise<ProductTypeResponse> {
    const id = newId();
    await this.dataSource.manager.insert(ProductType, {
      id,
      merchantId: store.merchantId,
      storeId: store.id,
      name: request.name,
      category: request.category,
      zoneWeights: request.zone_weights,
    });
    return this.get(store, id);
  }

  list(store: Store, page: PageQuery): Promise<Page<ProductTypeResponse>> {
    return paginate(queryInStore(this.dataSource.manager, ProductType, 'type', store), page, ProductTypeResponse.from);
  }

  async get(store: Store, id: string): Promise<ProductTypeResponse> {
    return ProductTypeResponse.from(await findInStore(this.dataSource.manager, ProductType, store, id, 'product type'));
  }

  async update(store: Store, id: string, request: UpdateProductTypeRequest): Promise<ProductTypeResponse> {
    const type = await findInStore(this.dataSource.manager, ProductType, store, id, 'product type');
    const changes: Partial<ProductType> = {
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.category !== undefined ? { category: request.category } : {}),
      ...(request.zone_weights !== undefined ? { zoneWeights: request.zone_weights } : {}),
    };
    if (Object.keys(changes).length) await this.dataSource.manager.update(ProductType, { id: type.id }, changes);
    return this.get(store, type.id);
  }

  /** A type that products use (archived ones included) cannot go: 409 `in_use`. */
  async delete(store: Store, id: string): Promise<void> {
    await transaction(this.dataSource, async (manager) => {
      const type = await findInStore(manager, ProductType, store, id, 'product type', { lock: true });
      if (await manager.existsBy(Product, { productTypeId: type.id })) {
        throw inUse('Products use this product type; give them another type or delete them first');
      }
      await manager.delete(ProductType, { id: type.id });
    });
  }
}
