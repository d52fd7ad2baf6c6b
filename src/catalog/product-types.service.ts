import { Injectable } from '@nestjs/common';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import type { ProductType } from './catalog.entities.js';
import { inUse } from './catalog-errors.js';
import { firstMisfit, unstatedZonesMessage } from './catalog-rules.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { type CreateProductTypeRequest, ProductTypeResponse, type UpdateProductTypeRequest } from './dto/product-type.dto.js';
import { Transactions } from '../database/transactions.js';
import { ProductTypesRepository } from './product-types.repository.js';
import { ProductsRepository } from './products.repository.js';

@Injectable()
export class ProductTypesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly types: ProductTypesRepository,
    private readonly products: ProductsRepository,
  ) {}

  async create(store: Store, request: CreateProductTypeRequest): Promise<ProductTypeResponse> {
    const id = newId();
    await this.types.insert({
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
    return this.types.list(store, page, ProductTypeResponse.from);
  }

  async get(store: Store, id: string): Promise<ProductTypeResponse> {
    return ProductTypeResponse.from(await this.types.get(store, id));
  }

  /**
   * New zone weights must suit every active product of the type: a zone weighed that a product's chart states for no
   * size is a 400 `zones_not_in_chart` on `zone_weights`. The type is locked, so a product created meanwhile (which
   * locks it `FOR KEY SHARE`) is checked by one side or the other.
   */
  async update(store: Store, id: string, request: UpdateProductTypeRequest): Promise<ProductTypeResponse> {
    const changes: Partial<ProductType> = {
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.category !== undefined ? { category: request.category } : {}),
      ...(request.zone_weights !== undefined ? { zoneWeights: request.zone_weights } : {}),
    };
    const type = await this.transactions.run(async (manager) => {
      const type = await this.types.lock(manager, store, id);
      if (changes.zoneWeights) {
        const weights = changes.zoneWeights;
        const products = await this.products.activeWithType(manager, type.id);
        const misfit = firstMisfit(products.map((product) => ({ ...product, weights })));
        if (misfit) {
          const where = `the size chart of ${JSON.stringify(misfit.title)}${misfit.others ? ' (and of other products of this type)' : ''}`;
          throw ProblemError.field('zone_weights', 'zones_not_in_chart', unstatedZonesMessage(misfit.zones, where));
        }
      }
      if (Object.keys(changes).length) await this.types.update(manager, type.id, changes);
      return type;
    });
    return this.get(store, type.id);
  }

  /** A type that products use (archived ones included) cannot go: 409 `in_use`. */
  async delete(store: Store, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const type = await this.types.lock(manager, store, id);
      if (await this.products.existWithType(manager, type.id)) {
        throw inUse('Products use this product type; give them another type or delete them first');
      }
      await this.types.delete(manager, type.id);
    });
  }
}
