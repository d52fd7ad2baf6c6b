import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import {
  CreateProductRequest,
  CreateVariantRequest,
  ProductListQuery,
  ProductResponse,
  UpdateProductRequest,
  UpdateVariantRequest,
  VariantResponse,
} from './dto/product.dto.js';
import { ProductsService } from './products.service.js';
import { answerRemoval } from '../common/http/removal.js';

const NO_SUCH_PRODUCT = { code: 'not_found', when: 'No such product in this store' } as const;
const NO_SUCH_VARIANT = { code: 'not_found', when: 'No such product in this store, or no such variant of it' } as const;
const DUPLICATE = { code: 'duplicate', when: 'Another product or variant of this store has the external_id' } as const;

@ApiTags('Catalog')
@Controller('v1/stores/:store_id/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @Idempotent()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Create a product', description: '409 `duplicate` when the external_id is taken.' })
  @ApiCreatedResponse({ type: ProductResponse })
  @ApiProblems(DUPLICATE)
  create(@CurrentStore() store: Store, @Body() body: CreateProductRequest): Promise<ProductResponse> {
    return this.products.create(store, body);
  }

  @Get()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'List products', description: '`?external_id=` finds a product by its platform id.' })
  @ApiPage(ProductResponse)
  list(@CurrentStore() store: Store, @Query() query: ProductListQuery): Promise<Page<ProductResponse>> {
    return this.products.list(store, query);
  }

  @Get(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Get a product' })
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblems(NO_SUCH_PRODUCT)
  get(@CurrentStore() store: Store, @Param('id') id: string): Promise<ProductResponse> {
    return this.products.get(store, id);
  }

  @Patch(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Update a product', description: 'Only the fields sent change.' })
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblems(NO_SUCH_PRODUCT, DUPLICATE)
  update(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: UpdateProductRequest): Promise<ProductResponse> {
    return this.products.update(store, id, body);
  }

  @Delete(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({
    summary: 'Delete a product',
    description: 'Archived (200) when sessions or events refer to it; deleted with its variants (204) otherwise.',
  })
  @ApiOkResponse({ type: ProductResponse, description: 'Archived.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_PRODUCT)
  async delete(
    @CurrentStore() store: Store,
    @Param('id') id: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ProductResponse | undefined> {
    return answerRemoval(response, await this.products.delete(store, id));
  }

  @Post(':product_id/variants')
  @Idempotent()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Create a variant', description: "`size_label` must be a label of the product's chart." })
  @ApiCreatedResponse({ type: VariantResponse })
  @ApiProblems(NO_SUCH_PRODUCT, DUPLICATE)
  createVariant(
    @CurrentStore() store: Store,
    @Param('product_id') productId: string,
    @Body() body: CreateVariantRequest,
  ): Promise<VariantResponse> {
    return this.products.createVariant(store, productId, body);
  }

  @Get(':product_id/variants')
  @RequireScope('catalog', { store: true })
  @ApiOperation({
    summary: "List a product's variants",
    description:
      "In the order of the product's chart sizes, then oldest first (several variants may share a size: colours, for " +
      'example); a size the chart no longer has comes last.',
  })
  @ApiPage(VariantResponse)
  @ApiProblems(NO_SUCH_PRODUCT)
  listVariants(
    @CurrentStore() store: Store,
    @Param('product_id') productId: string,
    @Query() page: PageQuery,
  ): Promise<Page<VariantResponse>> {
    return this.products.listVariants(store, productId, page);
  }

  @Get(':product_id/variants/:id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Get a variant' })
  @ApiOkResponse({ type: VariantResponse })
  @ApiProblems(NO_SUCH_VARIANT)
  getVariant(@CurrentStore() store: Store, @Param('product_id') productId: string, @Param('id') id: string): Promise<VariantResponse> {
    return this.products.getVariant(store, productId, id);
  }

  @Patch(':product_id/variants/:id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Update a variant', description: 'Only the fields sent change.' })
  @ApiOkResponse({ type: VariantResponse })
  @ApiProblems(NO_SUCH_VARIANT, DUPLICATE)
  updateVariant(
    @CurrentStore() store: Store,
    @Param('product_id') productId: string,
    @Param('id') id: string,
    @Body() body: UpdateVariantRequest,
  ): Promise<VariantResponse> {
    return this.products.updateVariant(store, productId, id, body);
  }

  @Delete(':product_id/variants/:id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Delete a variant', description: 'Archived (200) when events refer to it; deleted (204) otherwise.' })
  @ApiOkResponse({ type: VariantResponse, description: 'Archived.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_VARIANT)
  async deleteVariant(
    @CurrentStore() store: Store,
    @Param('product_id') productId: string,
    @Param('id') id: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<VariantResponse | undefined> {
    return answerRemoval(response, await this.products.deleteVariant(store, productId, id));
  }
}
