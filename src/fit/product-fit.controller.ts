import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import type { Store } from '../stores/store.entity.js';
import { ProductFitListQuery, ProductFitListResponse, ProductFitResponse } from './dto/product-fit.dto.js';
import { ProductFitService } from './product-fit.service.js';

/** How the store's products fit, as learned from what shoppers kept, returned and exchanged (scope catalog or analytics). */
@ApiTags('Fit')
@Controller('v1/stores/:store_id')
export class ProductFitController {
  constructor(private readonly productFit: ProductFitService) {}

  @Get('products/:product_id/fit')
  @RequireScope(['catalog', 'analytics'], { store: true })
  @ApiOperation({
    summary: 'How a product fits',
    description:
      'The offset learned from this store’s outcomes (kept items, returns and exchanges for size), in size steps of the ' +
      'product’s chart, with its 95% interval and the outcomes behind it; and per size, its order lines bought, kept, ' +
      'returned and exchanged for size. A product with few outcomes borrows from its product type and the store.',
  })
  @ApiOkResponse({ type: ProductFitResponse })
  @ApiProblems({ code: 'not_found', when: 'No such product in this store' })
  product(@CurrentStore() store: Store, @Param('product_id') productId: string): Promise<ProductFitResponse> {
    return this.productFit.forProduct(store, productId);
  }

  @Get('product-fit')
  @RequireScope(['catalog', 'analytics'], { store: true })
  @ApiOperation({
    summary: 'Products ranked by how surely they run small or large',
    description: 'The store’s products with outcomes, strongest evidence first (|size_steps| / sd).',
  })
  @ApiOkResponse({ type: ProductFitListResponse })
  list(@CurrentStore() store: Store, @Query() query: ProductFitListQuery): Promise<ProductFitListResponse> {
    return this.productFit.ranked(store, query);
  }
}
