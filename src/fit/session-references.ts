import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CatalogReferences } from '../catalog/catalog-references.js';
import { SessionsRepository } from './sessions.repository.js';

/** Sessions keep the products and size charts they were opened on: a delete archives those instead. */
@Injectable()
export class SessionReferences implements OnModuleInit {
  constructor(
    private readonly references: CatalogReferences,
    private readonly sessions: SessionsRepository,
  ) {}

  onModuleInit(): void {
    this.references.register('product', (manager, id) => this.sessions.referToProduct(manager, id));
    this.references.register('size_chart', (manager, id) => this.sessions.referToSizeChart(manager, id));
  }
}
