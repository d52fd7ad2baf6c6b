import { Body, Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { ProductTypesService } from '../catalog/product-types.service.js';
import { SizeChartsService } from '../catalog/size-charts.service.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { CatalogImportService } from '../platform/catalog-import.service.js';
import type { AssignRule, Assignment } from '../platform/platform.entities.js';
import { PlatformNoticesService } from '../platform/platform-notices.service.js';
import { PlatformService } from '../platform/platform.service.js';
import type { Store } from '../stores/store.entity.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { CurrentPage, formText, PageSender } from './console-pages.js';
import type { PageContext } from './pages/layout.js';
import { platformPage } from './pages/platform-page.js';

const RULE_FIELDS: readonly AssignRule['field'][] = ['product_type', 'vendor', 'tag'];

/** The notifications page shows this many, newest first. */
const RECENT = 50;

/** A store's link to its shop: the connection, the notifications the shop sent and how each ended, the dead letters. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsolePlatformController {
  constructor(
    private readonly platform: PlatformService,
    private readonly notices: PlatformNoticesService,
    private readonly catalogImport: CatalogImportService,
    private readonly charts: SizeChartsService,
    private readonly types: ProductTypesService,
    private readonly pages: PageSender,
  ) {}

  @Get('platform')
  @ConsolePage({ signedIn: true, store: true })
  async show(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('retried') retried: unknown,
    @Query('importing') importing: unknown,
    @Query('created') created: unknown,
    @Query('left_out') leftOut: unknown,
    @Query('not_created') notCreated: unknown,
    @Query('more') more: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const count = (value: unknown) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 0);
    const result =
      typeof created === 'string'
        ? { created: count(created), sizesLeftOut: count(leftOut), notCreated: count(notCreated), more: more === '1' }
        : undefined;
    const view = await this.view(store, result);
    this.pages.send(
      response,
      200,
      platformPage(page, {
        ...view,
        retried: retried === '1' ? 'retried' : retried === '0' ? 'gone' : undefined,
        importing: importing === '1',
      }),
    );
  }

  @Post('platform/assign')
  @ConsolePage({ signedIn: true, store: true })
  async assign(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values = {
      field: formText(body, 'field'),
      value: formText(body, 'value').trim(),
      size_chart_id: formText(body, 'size_chart_id'),
      product_type_id: formText(body, 'product_type_id'),
    };
    const refuse = async (errors: FieldError[]) => {
      const view = await this.view(store);
      this.pages.send(response, 422, platformPage(page, { ...view, assign: { ...view.assign, form: { values, errors } } }));
    };
    const errors: FieldError[] = [];
    if (!RULE_FIELDS.includes(values.field as AssignRule['field']))
      errors.push({ field: 'field', code: 'not_allowed_value', message: 'Choose product type, vendor or tag' });
    if (values.value === '' || values.value.length > 255)
      errors.push({ field: 'value', code: 'required', message: 'Enter the product type, vendor or tag the products have' });
    if (!isUUID(values.size_chart_id)) errors.push({ field: 'size_chart_id', code: 'required', message: 'Choose a size chart' });
    if (!isUUID(values.product_type_id)) errors.push({ field: 'product_type_id', code: 'required', message: 'Choose a product type' });
    if (errors.length) return refuse(errors);
    let done: Assignment;
    try {
      done = await this.catalogImport.assign(
        store,
        { field: values.field as AssignRule['field'], value: values.value },
        values.size_chart_id,
        values.product_type_id,
      );
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      // The chart or type refused (another store's, archived, or zones the chart does not state): said on the form.
      const field = error.errors?.[0]?.field === 'product_type_id' ? 'product_type_id' : 'size_chart_id';
      return refuse([{ field, code: error.code, message: error.errors?.[0]?.message ?? error.message }]);
    }
    const query = new URLSearchParams({
      created: String(done.created),
      left_out: String(done.sizesLeftOut),
      not_created: String(done.notCreated),
      ...(done.more ? { more: '1' } : {}),
    });
    this.pages.redirect(response, `/console/stores/${store.id}/platform?${query.toString()}`);
  }

  /** The page's data, read side by side. */
  private async view(store: Store, result?: Assignment) {
    const [connection, notices, deadLetters, catalog, charts, types, values] = await Promise.all([
      this.platform.connection(store),
      this.notices.recent(store, RECENT),
      this.notices.deadLetters(store),
      this.catalogImport.status(store),
      this.charts.list(store, { limit: 100 }),
      this.types.list(store, { limit: 100 }),
      this.catalogImport.ruleValues(store),
    ]);
    return {
      store,
      connection,
      address: this.notices.address(),
      notices,
      deadLetters,
      catalog,
      assign: {
        charts: charts.data.map((chart) => ({ id: chart.id, name: chart.name })),
        types: types.data.map((type) => ({ id: type.id, name: type.name })),
        values,
        result,
      },
    };
  }

  @Post('platform/import')
  @ConsolePage({ signedIn: true, store: true })
  async importAgain(@CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    if ((await this.platform.connection(store)) === null) return this.pages.redirect(response, `/console/stores/${store.id}/platform`);
    await this.catalogImport.restart(store);
    this.pages.redirect(response, `/console/stores/${store.id}/platform?importing=1`);
  }

  @Post('platform/dead-letters/:job/retry')
  @ConsolePage({ signedIn: true, store: true })
  async retry(@CurrentStore() store: Store, @Param('job') job: string, @Res() response: Response): Promise<void> {
    const retried = await this.notices.retry(store, job);
    this.pages.redirect(response, `/console/stores/${store.id}/platform?retried=${retried ? 1 : 0}`);
  }
}
