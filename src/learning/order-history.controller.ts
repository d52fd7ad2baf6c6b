import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { LargeBody } from '../common/http/json-body.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import type { Store } from '../stores/store.entity.js';
import { MAX_HISTORY_LINES, OrderHistoryRequest, OrderHistoryResponse } from './dto/order-history.dto.js';
import { OrderHistoryService } from './order-history.service.js';

/** A store's past orders and their outcomes, imported to teach how its products fit (scope `events`). */
@ApiTags('Fit')
@Controller('v1/stores/:store_id/order-history')
export class OrderHistoryController {
  constructor(private readonly history: OrderHistoryService) {}

  @Post()
  @HttpCode(200)
  @LargeBody('lines')
  @RequireScope('events', { store: true })
  @ApiOperation({
    summary: 'Learn from past orders',
    description:
      `1–${MAX_HISTORY_LINES} order lines of any age (body ≤ 1 MiB), each with its final outcome. Each teaches what the same ` +
      'outcome sent as an event would, for a line bought without a fit session, weighed by its age; nothing enters the ' +
      'events, the metrics or the per-size table. One lesson per order line, shared with its events: a later outcome ' +
      'replaces an earlier one, imported or not, and importing a line again changes nothing. All lines or none: one ' +
      'invalid line and the 400 lists every error.',
  })
  @ApiOkResponse({ type: OrderHistoryResponse })
  @ApiProblems({ code: 'payload_too_large', when: 'The body is over 1 MiB' })
  import(@CurrentStore() store: Store, @Body() body: OrderHistoryRequest): Promise<OrderHistoryResponse> {
    return this.history.import(store, body.lines);
  }
}
