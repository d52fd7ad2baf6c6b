import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CatalogReferences } from '../catalog/catalog-references.js';
import { FitEvent } from './event.entity.js';

/** Events keep the products and variants they name: a delete archives those instead. */
@Injectable()
export class EventReferences implements OnModuleInit {
  constructor(private readonly references: CatalogReferences) {}

  onModuleInit(): void {
    this.references.register('product', (manager, id) => manager.existsBy(FitEvent, { productId: id }));
    this.references.register('variant', (manager, id) => manager.existsBy(FitEvent, { variantId: id }));
  }
}
