import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CatalogReferences } from '../catalog/catalog-references.js';
import { EventsRepository } from './events.repository.js';

/** Events keep the products and variants they name: a delete archives those instead. */
@Injectable()
export class EventReferences implements OnModuleInit {
  constructor(
    private readonly references: CatalogReferences,
    private readonly events: EventsRepository,
  ) {}

  onModuleInit(): void {
    this.references.register('product', (manager, id) => this.events.namesProduct(manager, id));
    this.references.register('variant', (manager, id) => this.events.namesVariant(manager, id));
  }
}
