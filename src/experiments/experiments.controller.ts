import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import type { Store } from '../stores/store.entity.js';
import {
  AssignmentRequest,
  AssignmentResponse,
  CreateExperimentRequest,
  ExperimentResponse,
  UpdateExperimentRequest,
} from './dto/experiment.dto.js';
import { ExperimentResultsResponse, IntervalResponse, LiftResponse } from './dto/results.dto.js';
import { ExperimentsService } from './experiments.service.js';
import { ResultsService } from './results.service.js';

const NO_SUCH_EXPERIMENT = { code: 'not_found', when: 'No such experiment in this store' } as const;
const STATE = { code: 'experiment_state_conflict', when: 'The experiment is not in the state this needs' } as const;

@ApiTags('Experiments')
@ApiExtraModels(LiftResponse, IntervalResponse)
@Controller('v1/stores/:store_id')
export class ExperimentsController {
  constructor(
    private readonly experiments: ExperimentsService,
    private readonly results: ResultsService,
  ) {}

  @Post('experiments')
  @Idempotent()
  @RequireScope('admin', { store: true })
  @ApiOperation({
    summary: 'Create an experiment',
    description: 'A draft: its arms, the products taking part, the metrics, and the plan of units it needs. Start it to assign shoppers.',
  })
  @ApiCreatedResponse({ type: ExperimentResponse })
  create(@CurrentStore() store: Store, @Body() body: CreateExperimentRequest): Promise<ExperimentResponse> {
    return this.experiments.create(store, body);
  }

  @Get('experiments')
  @RequireScope('analytics', { store: true })
  @ApiOperation({ summary: 'List experiments' })
  @ApiPage(ExperimentResponse)
  list(@CurrentStore() store: Store, @Query() page: PageQuery): Promise<Page<ExperimentResponse>> {
    return this.experiments.list(store, page);
  }

  @Get('experiments/:id')
  @RequireScope('analytics', { store: true })
  @ApiOperation({ summary: 'Get an experiment' })
  @ApiOkResponse({ type: ExperimentResponse })
  @ApiProblems(NO_SUCH_EXPERIMENT)
  get(@CurrentStore() store: Store, @Param('id') id: string): Promise<ExperimentResponse> {
    return this.experiments.get(store, id);
  }

  @Patch('experiments/:id')
  @RequireScope('admin', { store: true })
  @ApiOperation({
    summary: 'Update an experiment',
    description:
      'Only the fields sent change. A draft takes any change and is planned again; a running or stopped experiment only a ' +
      'new name or hypothesis: its arms, products and metrics are what its results are judged by.',
  })
  @ApiOkResponse({ type: ExperimentResponse })
  @ApiProblems(NO_SUCH_EXPERIMENT, STATE)
  update(@CurrentStore() store: Store, @Param('id') id: string, @Body() body: UpdateExperimentRequest): Promise<ExperimentResponse> {
    return this.experiments.update(store, id, body);
  }

  @Delete('experiments/:id')
  @HttpCode(204)
  @RequireScope('admin', { store: true })
  @ApiOperation({ summary: 'Delete a draft experiment', description: 'An experiment that has run is stopped, not deleted.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(NO_SUCH_EXPERIMENT, STATE)
  delete(@CurrentStore() store: Store, @Param('id') id: string): Promise<void> {
    return this.experiments.delete(store, id);
  }

  @Post('experiments/:id/start')
  @HttpCode(200)
  @RequireScope('admin', { store: true })
  @ApiOperation({
    summary: 'Start an experiment',
    description: 'From then on shoppers shown its products get an arm. Its arms and shares never change again.',
  })
  @ApiOkResponse({ type: ExperimentResponse })
  @ApiProblems(NO_SUCH_EXPERIMENT, STATE, { code: 'experiment_overlap', when: 'A running experiment covers some of its products' })
  start(@CurrentStore() store: Store, @Param('id') id: string): Promise<ExperimentResponse> {
    return this.experiments.start(store, id);
  }

  @Post('experiments/:id/stop')
  @HttpCode(200)
  @RequireScope('admin', { store: true })
  @ApiOperation({ summary: 'Stop an experiment', description: 'Shoppers get size help as usual again; the results stay.' })
  @ApiOkResponse({ type: ExperimentResponse })
  @ApiProblems(NO_SUCH_EXPERIMENT, STATE)
  stop(@CurrentStore() store: Store, @Param('id') id: string): Promise<ExperimentResponse> {
    return this.experiments.stop(store, id);
  }

  @Get('experiments/:id/results')
  @RequireScope('analytics', { store: true })
  @ApiOperation({
    summary: 'Read an experiment’s results',
    description:
      'Per arm, by intention to treat: exposed units, conversion, and per purchased line the size return, size exchange ' +
      'and kept rates; each arm against the control with an always-valid 95% interval (safe to read every day), the ' +
      'fixed-horizon interval once the planned units are reached, and a sample-ratio check (docs/experiments.md).',
  })
  @ApiOkResponse({ type: ExperimentResultsResponse })
  @ApiProblems(NO_SUCH_EXPERIMENT)
  readResults(@CurrentStore() store: Store, @Param('id') id: string): Promise<ExperimentResultsResponse> {
    return this.results.read(store, id);
  }

  @Post('assignments')
  @HttpCode(200)
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Get a shopper’s arm for a product page',
    description:
      'Call it when a product page is shown: it answers what size help to show, and records the shopper’s exposure to ' +
      'a running experiment covering the product (once; the same arm every time). Outside any experiment: `size_help`.',
  })
  @ApiOkResponse({ type: AssignmentResponse })
  assign(@CurrentStore() store: Store, @Body() body: AssignmentRequest): Promise<AssignmentResponse> {
    return this.experiments.assign(store, body);
  }
}
