import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { type ConsoleIdentity, CurrentStore } from '../auth/principal.js';
import type { ProductTypeResponse } from '../catalog/dto/product-type.dto.js';
import { ProductTypesService } from '../catalog/product-types.service.js';
import { isId } from '../common/http/ids.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { CreateExperimentRequest, type ExperimentResponse, UpdateExperimentRequest } from '../experiments/dto/experiment.dto.js';
import { ExperimentsService } from '../experiments/experiments.service.js';
import { ResultsService } from '../experiments/results.service.js';
import { SubmittedForms } from '../idempotency/submitted-forms.js';
import type { Store } from '../stores/store.entity.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { CurrentPage, formText, PageSender, SignedIn } from './console-pages.js';
import { everyPage } from './every-page.js';
import {
  type ExperimentFormValues,
  experimentFormValues,
  experimentRequest,
  experimentUpdate,
  formErrors,
  formValuesOf,
} from './experiments/experiment-form.js';
import { experimentEditPage, experimentPage, experimentsPage, type ListedExperiment, type Refusal } from './pages/experiments-pages.js';
import type { PageContext } from './pages/layout.js';

/** How many experiments a page of the list shows. */
const LISTED = 20;

/** The refusals of a start, a stop or a deletion that the experiment's page explains; anything else is an error page. */
const EXPLAINED: ReadonlyArray<Refusal['code']> = ['experiment_overlap', 'experiment_state_conflict'];

/**
 * A store's experiments in the console: the list, a draft created from a form in the console's words, started, stopped
 * or deleted, and each one's results. Every change goes through the experiments' own service and request rules, so the
 * console refuses what the API refuses; the page says why in plain words.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsoleExperimentsController {
  constructor(
    private readonly experiments: ExperimentsService,
    private readonly results: ResultsService,
    private readonly types: ProductTypesService,
    private readonly forms: SubmittedForms,
    private readonly pages: PageSender,
  ) {}

  @Get('experiments')
  @ConsolePage({ signedIn: true, store: true })
  async showList(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('after') after: unknown,
    @Query('deleted') deleted: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const view = await this.listView(store, isId(after) ? after : undefined);
    this.pages.send(response, 200, experimentsPage(page, { ...view, deleted: deleted === '1' }));
  }

  /**
   * A draft from the form, through the API's request rules; its page then shows the plan. The same form sent again
   * (Back, then Forward) creates nothing more (submitted-forms.ts).
   */
  @Post('experiments')
  @ConsolePage({ signedIn: true, store: true })
  async create(
    @CurrentPage() page: PageContext,
    @SignedIn() identity: ConsoleIdentity,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values = experimentFormValues(body);
    const { request, errors: typed } = experimentRequest(values);
    const checked = await validateObject(CreateExperimentRequest, request);
    if (typed.length || !checked.ok) {
      await this.refuseForm(page, store, response, values, formErrors(checked.ok ? [] : checked.errors, typed));
      return;
    }
    let created: ExperimentResponse | null;
    try {
      created = await this.forms.once(identity.accountId, formText(body, 'form_id'), () => this.experiments.create(store, checked.value));
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'validation_failed') throw error;
      await this.refuseForm(page, store, response, values, formErrors(error.errors ?? []));
      return;
    }
    if (created === null) {
      this.pages.send(response, 409, experimentsPage(page, { ...(await this.listView(store)), alreadyCreated: true }));
      return;
    }
    this.pages.redirect(response, `/console/stores/${store.id}/experiments/${created.id}?created=1`);
  }

  @Get('experiments/:experiment_id')
  @ConsolePage({ signedIn: true, store: true })
  async show(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Query('created') created: unknown,
    @Query('started') started: unknown,
    @Query('stopped') stopped: unknown,
    @Query('edited') edited: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const notice =
      created === '1' ? 'created' : started === '1' ? 'started' : stopped === '1' ? 'stopped' : edited === '1' ? 'edited' : undefined;
    this.pages.send(response, 200, experimentPage(page, { ...(await this.experimentView(store, id)), notice }));
  }

  @Get('experiments/:experiment_id/edit')
  @ConsolePage({ signedIn: true, store: true })
  async showEdit(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Res() response: Response,
  ): Promise<void> {
    const experiment = await this.experiments.get(store, id);
    const types = await this.allTypes(store);
    this.pages.send(
      response,
      200,
      experimentEditPage(page, { store, experiment, types, form: { values: formValuesOf(experiment), errors: [] } }),
    );
  }

  /**
   * A draft's form sent whole, through the API's update rules; an experiment that has started takes its name and
   * hypothesis only. A draft's form sent after it started is refused, and its page says why.
   */
  @Post('experiments/:experiment_id/edit')
  @ConsolePage({ signedIn: true, store: true })
  async edit(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const experiment = await this.experiments.get(store, id);
    const values = experimentFormValues(body);
    // a draft's form sends its design, refused if the draft has started meanwhile; a started one's, its name only
    const { request, errors: typed } = experimentUpdate(values, formText(body, 'design') === '1');
    const checked = await validateObject(UpdateExperimentRequest, request);
    const refuse = async (errors: FieldError[]) => {
      const types = await this.allTypes(store);
      this.pages.send(response, 422, experimentEditPage(page, { store, experiment, types, form: { values, errors } }));
    };
    if (typed.length || !checked.ok) {
      await refuse(formErrors(checked.ok ? [] : checked.errors, typed));
      return;
    }
    try {
      await this.experiments.update(store, id, checked.value);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'validation_failed') await refuse(formErrors(error.errors ?? []));
      else await this.explain(page, store, id, response, 'edit', error);
      return;
    }
    this.pages.redirect(response, `/console/stores/${store.id}/experiments/${id}?edited=1`);
  }

  @Post('experiments/:experiment_id/start')
  @ConsolePage({ signedIn: true, store: true })
  async start(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Res() response: Response,
  ): Promise<void> {
    if (await this.act(page, store, id, response, 'start', () => this.experiments.start(store, id))) {
      this.pages.redirect(response, `/console/stores/${store.id}/experiments/${id}?started=1`);
    }
  }

  @Post('experiments/:experiment_id/stop')
  @ConsolePage({ signedIn: true, store: true })
  async stop(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Res() response: Response,
  ): Promise<void> {
    if (await this.act(page, store, id, response, 'stop', () => this.experiments.stop(store, id))) {
      this.pages.redirect(response, `/console/stores/${store.id}/experiments/${id}?stopped=1`);
    }
  }

  @Post('experiments/:experiment_id/delete')
  @ConsolePage({ signedIn: true, store: true })
  async delete(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('experiment_id') id: string,
    @Res() response: Response,
  ): Promise<void> {
    if (await this.act(page, store, id, response, 'delete', () => this.experiments.delete(store, id))) {
      this.pages.redirect(response, `/console/stores/${store.id}/experiments?deleted=1`);
    }
  }

  // ———————————————————————————————————————— helpers ————————————————————————————————————————

  /** Runs a change of state; when it is refused, answers the experiment's page saying why and returns false (`explain`). */
  private async act(
    page: PageContext,
    store: Store,
    id: string,
    response: Response,
    action: Refusal['action'],
    change: () => Promise<unknown>,
  ): Promise<boolean> {
    try {
      await change();
      return true;
    } catch (error) {
      await this.explain(page, store, id, response, action, error);
      return false;
    }
  }

  /**
   * When the experiment's state or an overlap refused an action, answers its page saying why (409). Anything else (an
   * experiment that is not the store's) goes on to the error page.
   */
  private async explain(
    page: PageContext,
    store: Store,
    id: string,
    response: Response,
    action: Refusal['action'],
    error: unknown,
  ): Promise<void> {
    if (!(error instanceof ProblemError) || !(EXPLAINED as readonly string[]).includes(error.code)) throw error;
    const code = error.code as Refusal['code'];
    const running = code === 'experiment_overlap' ? await this.runningExperiments(store) : [];
    const view = await this.experimentView(store, id);
    this.pages.send(response, 409, experimentPage(page, { ...view, refusal: { action, code, running } }));
  }

  private async refuseForm(
    page: PageContext,
    store: Store,
    response: Response,
    values: ExperimentFormValues,
    errors: FieldError[],
  ): Promise<void> {
    this.pages.send(response, 422, experimentsPage(page, { ...(await this.listView(store)), form: { values, errors } }));
  }

  private async listView(store: Store, after?: string) {
    const [list, types] = await Promise.all([
      this.experiments.list(store, { limit: LISTED, ...(after ? { starting_after: after } : {}) }),
      this.allTypes(store),
    ]);
    // a draft has counted no one; the others, their exposed shoppers (the results' units), in one statement
    const units = await this.experiments.exposedUnits(
      store,
      list.data.filter((experiment) => experiment.state !== 'draft').map((experiment) => experiment.id),
    );
    const experiments: ListedExperiment[] = list.data.map((experiment) => ({
      experiment,
      units: experiment.state === 'draft' ? null : (units.get(experiment.id) ?? 0),
    }));
    return { store, experiments, more: list.next_cursor, types, formId: randomUUID() };
  }

  private async experimentView(store: Store, id: string) {
    const experiment = await this.experiments.get(store, id);
    const [results, types] = await Promise.all([
      experiment.state === 'draft' ? null : this.results.read(store, id),
      experiment.product_type_ids === null ? [] : this.allTypes(store),
    ]);
    return { store, experiment, results, types };
  }

  private async runningExperiments(store: Store): Promise<ExperimentResponse[]> {
    const all = await everyPage((after) => this.experiments.list(store, { limit: 100, ...(after ? { starting_after: after } : {}) }));
    return all.filter((experiment) => experiment.state === 'running');
  }

  private async allTypes(store: Store): Promise<ProductTypeResponse[]> {
    const types = await everyPage((after) => this.types.list(store, { limit: 100, ...(after ? { starting_after: after } : {}) }));
    return types.reverse();
  }
}
