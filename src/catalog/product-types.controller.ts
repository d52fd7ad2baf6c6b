import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import { CreateProductTypeRequest, ProductTypeResponse, UpdateProductTypeRequest } from './dto/product-type.dto.js';
import { ProductTypesService } from './product-types.service.js';

const NO_SUCH_TYPE = { code: 'not_found', when: 'No such product type in this store' } as const;

@ApiTags('Catalog')
@Controller('v1/stores/:store_id/product-types')
export class ProductTypesController {
  constructor(private readonly types: ProductTypesService) {}

  @Post()
  @Idempotent()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Create a product type' })
  @ApiCreatedResponse({ type: ProductTypeResponse })
  create(@CurrentStore() store: Store, @Body() body: CreateProductTypeRequest): Promise<ProductTypeResponse> {
    return this.types.create(store, body);
  }

  @Get()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'List product types' })
  @ApiPage(ProductTypeResponse)
  list(@CurrentStore() store: Store, @Query() page: PageQuery): Promise<Page<ProductTypeResponse>> {
    return this.types.list(store, page);
  }

  @Get(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Get a product type' })
  @ApiOkResponse({ type: ProductTypeResponse })
  @ApiProblems(NO_SUCH_TYPE)
  get(@CurrentStore() store: Store, @Param('id') id: string): Promise<ProductTypeResponse> {
    return this.types.get(store, id);
  }

  @Patch(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Update a product type', description: 'Only the fields sent change.' })
  @ApiOkResponse({ type: ProductTypeResponse })
  @ApiProblems(NO_SUCH_TYPE)
  update(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: UpdateProductTypeRequest): Promise<ProductTypeResponse> {
    return this.types.update(store, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Delete a product type', description: 'Refused with 409 `in_use` while products use it.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_TYPE, { code: 'in_use', when: 'Products use the product type' })
  delete(@CurrentStore() store: Store, @Param('id') id: string): Promise<void> {
    return this.types.delete(store, id);
  }
}
