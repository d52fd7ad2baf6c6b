import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CatalogReferences } from '../catalog/catalog-references.js';
import { FitSession } from './fit.entities.js';

/** Sessions keep the products and size charts they were opened on: a delete archives those instead. */
@Injectable()
export class SessionReferences implements OnModuleInit {
  constructor(private readonly references: CatalogReferences) {}

  onModuleInit(): void {
    this.references.register('product', (manager, id) => manager.existsBy(FitSession, { productId: id }));
    this.references.register('size_chart', (manager, id) => manager.existsBy(FitSession, { sizeChartId: id }));
  }
}
