import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import { CreateSizeChartRequest, SizeChartResponse, UpdateSizeChartRequest } from './dto/size-chart.dto.js';
import { answerRemoval } from '../common/http/removal.js';
import { SizeChartsService } from './size-charts.service.js';

const NO_SUCH_CHART = { code: 'not_found', when: 'No such size chart in this store' } as const;

@ApiTags('Catalog')
@Controller('v1/stores/:store_id/size-charts')
export class SizeChartsController {
  constructor(private readonly charts: SizeChartsService) {}

  @Post()
  @Idempotent()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Create a size chart' })
  @ApiCreatedResponse({ type: SizeChartResponse })
  create(@CurrentStore() store: Store, @Body() body: CreateSizeChartRequest): Promise<SizeChartResponse> {
    return this.charts.create(store, body);
  }

  @Get()
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'List size charts' })
  @ApiPage(SizeChartResponse)
  list(@CurrentStore() store: Store, @Query() page: PageQuery): Promise<Page<SizeChartResponse>> {
    return this.charts.list(store, page);
  }

  @Get(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({ summary: 'Get a size chart' })
  @ApiOkResponse({ type: SizeChartResponse })
  @ApiProblems(NO_SUCH_CHART)
  get(@CurrentStore() store: Store, @Param('id') id: string): Promise<SizeChartResponse> {
    return this.charts.get(store, id);
  }

  @Patch(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({
    summary: 'Update a size chart',
    description: 'Only the fields sent change; `sizes` replaces every size, and must keep the labels variants use.',
  })
  @ApiOkResponse({ type: SizeChartResponse })
  @ApiProblems(NO_SUCH_CHART)
  update(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: UpdateSizeChartRequest): Promise<SizeChartResponse> {
    return this.charts.update(store, id, body);
  }

  @Delete(':id')
  @RequireScope('catalog', { store: true })
  @ApiOperation({
    summary: 'Delete a size chart',
    description:
      'Refused with 409 `in_use` while active products use it. Archived (200) when sessions or archived products ' +
      'refer to it; deleted (204) otherwise.',
  })
  @ApiOkResponse({ type: SizeChartResponse, description: 'Archived.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_CHART, { code: 'in_use', when: 'Active products use the size chart' })
  async delete(
    @CurrentStore() store: Store,
    @Param('id') id: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SizeChartResponse | undefined> {
    return answerRemoval(response, await this.charts.delete(store, id));
  }
}
