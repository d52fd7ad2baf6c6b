import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import type { Store } from '../stores/store.entity.js';
import { DailyMetricsResponse, MetricsQuery, MetricsResponse } from './dto/metrics.dto.js';
import { MetricsService } from './metrics.service.js';

@ApiTags('Metrics')
@Controller('v1/stores/:store_id/metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @RequireScope('analytics', { store: true })
  @ApiOperation({
    summary: 'Read descriptive cohort metrics',
    description:
      'The cohort is the sessions created in [from, to) (default: the last 30 days; at most 366 days). Outcomes ' +
      'count when they occurred at or before `observed_through`, whenever after the session. Unique sessions and ' +
      'unique (order_id, line_item_id) lines, never units; a rate with a zero denominator is null.',
  })
  @ApiOkResponse({ type: MetricsResponse })
  summary(@CurrentStore() store: Store, @Query() query: MetricsQuery): Promise<MetricsResponse> {
    return this.metrics.summary(store, query);
  }

  @Get('daily')
  @RequireScope('analytics', { store: true })
  @ApiOperation({
    summary: 'Read the cohort metrics per UTC day of session creation',
    description: 'Every day the range touches, each exactly what GET …/metrics answers for that part of the range.',
  })
  @ApiOkResponse({ type: DailyMetricsResponse })
  daily(@CurrentStore() store: Store, @Query() query: MetricsQuery): Promise<DailyMetricsResponse> {
    return this.metrics.daily(store, query);
  }
}
