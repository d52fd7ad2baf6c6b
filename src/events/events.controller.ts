import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { LargeBody } from '../common/http/json-body.js';
import type { Page } from '../common/http/pagination.js';
import { problemBody } from '../common/problems/problem-details.filter.js';
import type { Store } from '../stores/store.entity.js';
import { EventBatchRequest, EventBatchResponse, EventListQuery, EventRequest, EventResponse, MAX_BATCH } from './dto/event.dto.js';
import { EventsService } from './events.service.js';

@ApiTags('Events')
@ApiExtraModels(EventRequest)
@Controller('v1/stores/:store_id/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Post()
  @RequireScope('events', { store: true })
  @ApiOperation({
    summary: 'Record a storefront or order event',
    description:
      'Deduplicated on source + external_id: 201 on first delivery, 200 with the stored event on an identical ' +
      'retry, 409 `event_conflict` when the payload differs. The five types the service records itself are 400 ' +
      '`event_type_reserved`; a session of another product, or created after `occurred_at`, is 400 `session_mismatch`.',
  })
  @ApiCreatedResponse({ type: EventResponse, description: 'Stored now.' })
  @ApiOkResponse({ type: EventResponse, description: 'An identical event was stored before: that event.' })
  @ApiConflictResponse({
    description: 'The key was stored with a different payload (`event_conflict`); `errors` names each field that differs.',
  })
  @ApiProblems(
    { code: 'event_type_reserved', when: 'The type is one the service records itself' },
    { code: 'session_mismatch', when: 'The session belongs to another product, or was created after `occurred_at`' },
  )
  // The body is read as a batch item is, well-formed events without class-validator (events.service.ts), so it is
  // declared to the document here rather than typed for the global validation pipe.
  @ApiBody({ type: EventRequest })
  async record(
    @CurrentStore() store: Store,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<EventResponse> {
    const result = await this.events.record(store, body);
    response.status(result.status);
    return result.event;
  }

  @Post('batch')
  @HttpCode(200)
  @LargeBody('events')
  @RequireScope('events', { store: true })
  @ApiOperation({
    summary: 'Record up to 500 events',
    description:
      `1–${MAX_BATCH} events (body ≤ 1 MiB), each judged under the single-event rules as if sent alone, in order. ` +
      'One result per event, in request order. The batch commits as a whole: every 201 is stored.',
  })
  @ApiOkResponse({ type: EventBatchResponse })
  // A refused event is a result of the 200, not an answer: only the batch as a whole is refused with a 4xx.
  @ApiProblems({ code: 'payload_too_large', when: 'The body is over 1 MiB' })
  async recordBatch(@CurrentStore() store: Store, @Body() body: EventBatchRequest, @Req() request: Request): Promise<EventBatchResponse> {
    const results = await this.events.recordBatch(store, body.events);
    const requestId = String(request.id ?? '');
    return {
      results: results.map((result) =>
        'error' in result
          ? { status: result.status, error: problemBody(result.error, requestId) }
          : { status: result.status, event: result.event },
      ),
    };
  }

  @Get()
  @RequireScope('events', { store: true })
  @ApiOperation({
    summary: 'List events',
    description: "Newest first by arrival; the service's own events (source `size-fit`) included.",
  })
  @ApiPage(EventResponse)
  list(@CurrentStore() store: Store, @Query() query: EventListQuery): Promise<Page<EventResponse>> {
    return this.events.list(store, query);
  }
}
