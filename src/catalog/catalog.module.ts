import { Module } from '@nestjs/common';
import { CatalogReferences } from './catalog-references.js';
import { ProductTypesController } from './product-types.controller.js';
import { ProductTypesService } from './product-types.service.js';
import { ProductsController } from './products.controller.js';
import { ProductsService } from './products.service.js';
import { SizeChartsController } from './size-charts.controller.js';
import { SizeChartsService } from './size-charts.service.js';

/** Product types, size charts, products and variants. Exports the registry through which referrers keep rows alive. */
@Module({
  controllers: [ProductTypesController, SizeChartsController, ProductsController],
  providers: [ProductTypesService, SizeChartsService, ProductsService, CatalogReferences],
  exports: [CatalogReferences],
})
export class CatalogModule {}
