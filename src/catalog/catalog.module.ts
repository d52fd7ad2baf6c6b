import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CATALOG_ENTITIES } from './catalog.entities.js';
import { CatalogLookups } from './catalog-lookups.service.js';
import { CatalogReferences } from './catalog-references.js';
import { ProductTypesController } from './product-types.controller.js';
import { ProductTypesRepository } from './product-types.repository.js';
import { ProductTypesService } from './product-types.service.js';
import { ProductsController } from './products.controller.js';
import { ProductsRepository } from './products.repository.js';
import { ProductsService } from './products.service.js';
import { SizeChartsController } from './size-charts.controller.js';
import { SizeChartsRepository } from './size-charts.repository.js';
import { SizeChartsService } from './size-charts.service.js';

/** Product types, size charts, products and variants. Exports the registry through which referrers keep
 * rows alive and the lookups other features make inside their transactions. */
@Module({
  imports: [TypeOrmModule.forFeature(CATALOG_ENTITIES)],
  controllers: [ProductTypesController, SizeChartsController, ProductsController],
  providers: [
    ProductTypesService,
    SizeChartsService,
    ProductsService,
    ProductTypesRepository,
    SizeChartsRepository,
    ProductsRepository,
    CatalogReferences,
    CatalogLookups,
  ],
  exports: [CatalogReferences, CatalogLookups, ProductTypesService, SizeChartsService, ProductsService],
})
export class CatalogModule {}
