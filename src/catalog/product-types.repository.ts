import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { findInStore, findReference, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { ProductType } from './catalog.entities.js';

/** The store's product types. */
@Injectable()
export class ProductTypesRepository {
  constructor(@InjectRepository(ProductType) private readonly types: Repository<ProductType>) {}

  async insert(type: QueryDeepPartialEntity<ProductType>): Promise<void> {
    await this.types.insert(type);
  }

  list<T>(store: Store, page: PageQuery, present: (type: ProductType) => T): Promise<Page<T>> {
    return paginate(queryInStore(this.types.manager, ProductType, 'type', store), page, present);
  }

  /** The store's type `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<ProductType> {
    return findInStore(this.types.manager, ProductType, store, id, 'product type');
  }

  async update(manager: EntityManager, id: string, changes: Partial<ProductType>): Promise<void> {
    await manager.update(ProductType, { id }, changes);
  }

  /** The store's type `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<ProductType> {
    return findInStore(manager, ProductType, store, id, 'product type', { lock: true });
  }

  /** A type named in a request body's `field` (locked `FOR KEY SHARE`; 400 on that field when missing). */
  reference(manager: EntityManager, store: Store, id: string, field: string): Promise<ProductType> {
    return findReference(manager, ProductType, store, id, field);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(ProductType, { id });
  }
}
