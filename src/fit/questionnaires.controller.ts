import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { answerRemoval } from '../common/http/removal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import type { Store } from '../stores/store.entity.js';
import {
  CreateQuestionnaireRequest,
  QuestionnaireResponse,
  QuestionnaireVersionQuery,
  UpdateQuestionnaireRequest,
} from './dto/questionnaire.dto.js';
import { QuestionnairesService } from './questionnaires.service.js';

const NO_SUCH_QUESTIONNAIRE = { code: 'not_found', when: 'No such questionnaire in this store' } as const;

@ApiTags('Fit')
@Controller('v1/stores/:store_id/questionnaires')
export class QuestionnairesController {
  constructor(private readonly questionnaires: QuestionnairesService) {}

  @Post()
  @Idempotent()
  @RequireScope('fit', { store: true })
  @ApiOperation({ summary: 'Create a questionnaire' })
  @ApiCreatedResponse({ type: QuestionnaireResponse })
  create(@CurrentStore() store: Store, @Body() body: CreateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    return this.questionnaires.create(store, body);
  }

  @Get()
  @RequireScope('fit', { store: true })
  @ApiOperation({ summary: 'List questionnaires', description: 'Each at its current version.' })
  @ApiPage(QuestionnaireResponse)
  list(@CurrentStore() store: Store, @Query() page: PageQuery): Promise<Page<QuestionnaireResponse>> {
    return this.questionnaires.list(store, page);
  }

  @Get(':id')
  @RequireScope('fit', { store: true })
  @ApiOperation({ summary: 'Get a questionnaire', description: '`?version=` reads an earlier version.' })
  @ApiOkResponse({ type: QuestionnaireResponse })
  @ApiProblems({ code: 'not_found', when: 'No such questionnaire in this store, or no such version of it' })
  get(@CurrentStore() store: Store, @Param('id') id: string, @Query() query: QuestionnaireVersionQuery): Promise<QuestionnaireResponse> {
    return this.questionnaires.get(store, id, query.version);
  }

  @Patch(':id')
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Update a questionnaire',
    description: 'A change of name or questions makes a new version; sessions keep the version they started with.',
  })
  @ApiOkResponse({ type: QuestionnaireResponse })
  @ApiProblems(NO_SUCH_QUESTIONNAIRE)
  update(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: UpdateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    return this.questionnaires.update(store, id, body);
  }

  @Delete(':id')
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Delete a questionnaire',
    description: 'Archived (200) when sessions used it; deleted (204) otherwise.',
  })
  @ApiOkResponse({ type: QuestionnaireResponse, description: 'Archived.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_QUESTIONNAIRE)
  async delete(
    @CurrentStore() store: Store,
    @Param('id') id: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<QuestionnaireResponse | undefined> {
    return answerRemoval(response, await this.questionnaires.delete(store, id));
  }
}
