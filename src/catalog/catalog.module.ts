import { Module } from '@nestjs/common';
import { ProductTypesController } from './product-types.controller.js';
import { ProductTypesService } from './product-types.service.js';
import { ProductsController } from './products.controller.js';
import { ProductsService } from './products.service.js';
import { SizeChartsController } from './size-charts.controller.js';
import { SizeChartsService } from './size-charts.service.js';

@Module({
  controllers: [ProductTypesController, SizeChartsController, ProductsController],
  providers: [ProductTypesService, SizeChartsService, ProductsService],
})
export class CatalogModule {}
