import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import type { Page } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import {
  AnswersRequest,
  CreateSessionRequest,
  DecisionRequest,
  DecisionResponse,
  RecommendationResponse,
  SessionListQuery,
  SessionResponse,
} from './dto/session.dto.js';
import { SessionsService } from './sessions.service.js';
import { ShopperRequests } from './shopper-requests.js';

const NO_SUCH_SESSION = { code: 'not_found', when: 'No such session in this store' } as const;

@ApiTags('Fit')
// Referenced by name from SessionResponse (model or null), so registered here.
@ApiExtraModels(RecommendationResponse, DecisionResponse)
@Controller('v1/stores/:store_id/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  // the shopper it names is kept as her digest only, and her erasure forgets the request
  @Idempotent(ShopperRequests)
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Start a fit session',
    description:
      'State `started`; records `fit_started`. A shopper (`shopper_ref`) in a running experiment on the product gets her ' +
      'arm: refused with 409 `experiment_holdout` in a holdout, answered from the stated chart alone in `chart_only`.',
  })
  @ApiCreatedResponse({ type: SessionResponse })
  @ApiProblems({ code: 'experiment_holdout', when: 'The shopper is in the holdout arm of a running experiment on the product' })
  start(@CurrentStore() store: Store, @Body() body: CreateSessionRequest): Promise<SessionResponse> {
    return this.sessions.start(store, body);
  }

  @Get()
  @RequireScope('fit', { store: true })
  @ApiOperation({ summary: 'List sessions' })
  @ApiPage(SessionResponse)
  list(@CurrentStore() store: Store, @Query() query: SessionListQuery): Promise<Page<SessionResponse>> {
    return this.sessions.list(store, query);
  }

  @Get(':id')
  @RequireScope('fit', { store: true })
  @ApiOperation({ summary: 'Get a session', description: 'With its answers, recommendation and decision.' })
  @ApiOkResponse({ type: SessionResponse })
  @ApiProblems(NO_SUCH_SESSION)
  get(@CurrentStore() store: Store, @Param('id') id: string): Promise<SessionResponse> {
    return this.sessions.get(store, id);
  }

  @Post(':id/answers')
  @HttpCode(200)
  @Idempotent()
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Answer a session and get its recommendation',
    description:
      'State `recommended`; records `fit_completed` and `recommendation_generated`. Answering again replaces the ' +
      'recommendation until a decision is recorded. Invalid answers are a 400 with one error per answer, and leave ' +
      'the session unchanged.',
  })
  @ApiOkResponse({ type: SessionResponse, description: 'The session with its `recommendation`.' })
  @ApiConflictResponse({ description: 'The session is completed (`session_state_conflict`).' })
  @ApiProblems(NO_SUCH_SESSION)
  answer(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: AnswersRequest): Promise<SessionResponse> {
    return this.sessions.answer(store, id, body);
  }

  @Post(':id/decision')
  @HttpCode(200)
  @Idempotent()
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: "Record the shopper's decision",
    description:
      'State `completed` with outcome `accepted` (the recommended size) or `overridden`; records ' +
      '`recommendation_accepted` or `recommendation_overridden`. Send `size_label` or `variant_id`.',
  })
  @ApiOkResponse({ type: SessionResponse })
  @ApiConflictResponse({ description: 'No recommendation yet, or already decided (`session_state_conflict`).' })
  @ApiProblems(NO_SUCH_SESSION)
  decide(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: DecisionRequest): Promise<SessionResponse> {
    return this.sessions.decide(store, id, body);
  }
}
