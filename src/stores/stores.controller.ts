import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentPrincipal, CurrentStore, type MerchantPrincipal } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import { CreateStoreRequest, StoreResponse, UpdateStoreRequest } from './dto/store.dto.js';
import type { Store } from './store.entity.js';
import { StoresService } from './stores.service.js';

@ApiTags('Stores')
@Controller('v1/stores')
export class StoresController {
  constructor(private readonly stores: StoresService) {}

  @Post()
  @Idempotent()
  @RequireScope('admin', { unrestricted: true })
  @ApiOperation({ summary: 'Create a store' })
  @ApiCreatedResponse({ type: StoreResponse })
  create(@CurrentPrincipal() principal: MerchantPrincipal, @Body() body: CreateStoreRequest): Promise<StoreResponse> {
    return this.stores.create(principal, body);
  }

  @Get()
  @RequireScope('admin')
  @ApiOperation({ summary: 'List stores', description: 'Newest first. A store-bound key sees only its store.' })
  @ApiPage(StoreResponse)
  list(@CurrentPrincipal() principal: MerchantPrincipal, @Query() page: PageQuery): Promise<Page<StoreResponse>> {
    return this.stores.list(principal, page);
  }

  @Get(':store_id')
  @RequireScope('admin', { store: true })
  @ApiOperation({ summary: 'Get a store' })
  @ApiOkResponse({ type: StoreResponse })
  get(@CurrentStore() store: Store): StoreResponse {
    return StoreResponse.from(store);
  }

  @Patch(':store_id')
  @RequireScope('admin', { store: true })
  @ApiOperation({ summary: 'Update a store', description: 'Only the fields sent change.' })
  @ApiOkResponse({ type: StoreResponse })
  update(@CurrentStore() store: Store, @Body() body: UpdateStoreRequest): Promise<StoreResponse> {
    return this.stores.update(store, body);
  }
}
