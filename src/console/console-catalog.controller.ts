import { Body, Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { CreateProductRequest, type ProductResponse, UpdateProductRequest } from '../catalog/dto/product.dto.js';
import { CreateProductTypeRequest, type ProductTypeResponse, UpdateProductTypeRequest } from '../catalog/dto/product-type.dto.js';
import { CreateSizeChartRequest, type SizeChartResponse, UpdateSizeChartRequest } from '../catalog/dto/size-chart.dto.js';
import { ProductTypesService } from '../catalog/product-types.service.js';
import { ProductsService } from '../catalog/products.service.js';
import { SizeChartsService } from '../catalog/size-charts.service.js';
import { isId } from '../common/http/ids.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { ZONES } from '../sizing/types.js';
import type { Store } from '../stores/store.entity.js';
import {
  cellErrors,
  type ChartForm,
  chartToCsv,
  chartToForm,
  csvErrors,
  csvToSizes,
  formSizes,
  formToChart,
  parseCsv,
  toFormRows,
} from './catalog/chart-form.js';
import { LABEL_SYSTEMS, type LabelSystem, templateById } from './catalog/size-chart-templates.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { everyPage } from './every-page.js';
import { CurrentPage, formText, PageSender } from './console-pages.js';
import {
  chartPage,
  chartsPage,
  type ProductFilters,
  type ProductFormValues,
  productsPage,
  type ProductsPage,
  type TemplateFormValues,
  type TypeFormValues,
  typeFormValues,
  typePage,
  typesPage,
} from './pages/catalog-pages.js';
import type { PageContext } from './pages/layout.js';

/** How many products a page of the list shows. */
const PRODUCTS_PER_PAGE = 50;

/**
 * A store's catalog in the console: size charts (from templates, CSV, edited with a drawing of the ranges), product
 * types, and products (listed, searched, filtered, changed many at once). Every change goes through the catalog's own
 * services and request rules, so the console refuses what the API refuses, in the same words.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsoleCatalogController {
  constructor(
    private readonly charts: SizeChartsService,
    private readonly types: ProductTypesService,
    private readonly products: ProductsService,
    private readonly pages: PageSender,
  ) {}

  // ———————————————————————————————————————— size charts ————————————————————————————————————————

  @Get('charts')
  @ConsolePage({ signedIn: true, store: true })
  async showCharts(@CurrentPage() page: PageContext, @CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    this.pages.send(response, 200, chartsPage(page, { store, charts: await this.allCharts(store) }));
  }

  @Post('charts')
  @ConsolePage({ signedIn: true, store: true })
  async createFromTemplate(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values: TemplateFormValues = {
      template: formText(body, 'template'),
      labels: formText(body, 'labels'),
      name: formText(body, 'name'),
    };
    const template = templateById(values.template);
    const labels = LABEL_SYSTEMS.find((system) => system === values.labels);
    const errors: FieldError[] = [];
    if (!template) errors.push({ field: 'template', code: 'unknown_template', message: 'Choose one of the templates' });
    if (!labels) errors.push({ field: 'labels', code: 'unknown_labels', message: 'Choose EU, US or UK labels' });
    let created: SizeChartResponse | undefined;
    if (template && labels) {
      const request = {
        name: values.name.trim() || `${template.title} (${labels})`,
        unit: 'cm',
        measurement_type: 'body',
        sizes: template.sizes(labels as LabelSystem),
      };
      const result = await this.attempt(async () => {
        const checked = await validateObject(CreateSizeChartRequest, request);
        if (!checked.ok) throw ProblemError.validation(checked.errors);
        return this.charts.create(store, checked.value);
      });
      if ('errors' in result) errors.push(...result.errors);
      else created = result.value;
    }
    if (!created) {
      this.pages.send(response, 422, chartsPage(page, { store, charts: await this.allCharts(store), templateForm: { values, errors } }));
      return;
    }
    this.pages.redirect(response, `/console/stores/${store.id}/charts/${created.id}`);
  }

  /** A chart from CSV text (the page's file picker fills the text box); every refusal named by row and column. */
  @Post('charts/import')
  @ConsolePage({ signedIn: true, store: true })
  async importChart(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const name = formText(body, 'name');
    const csv = formText(body, 'csv');
    let result = csvToSizes(csv);
    if (result.ok) {
      const request = { name, unit: 'cm', measurement_type: 'body', sizes: result.sizes };
      const created = await this.attempt(async () => {
        const checked = await validateObject(CreateSizeChartRequest, request);
        if (!checked.ok) throw ProblemError.validation(checked.errors);
        return this.charts.create(store, checked.value);
      });
      if (!('errors' in created)) {
        this.pages.redirect(response, `/console/stores/${store.id}/charts/${created.value.id}`);
        return;
      }
      result = { ok: false, errors: csvErrors(created.errors), table: parseCsv(csv).map((row) => row.map((cell) => cell.trim())) };
    }
    this.pages.send(response, 422, chartsPage(page, { store, charts: await this.allCharts(store), importForm: { name, csv, result } }));
  }

  @Get('charts/:chart_id')
  @ConsolePage({ signedIn: true, store: true })
  async showChart(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('chart_id') chartId: string,
    @Query('saved') saved: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const chart = await this.charts.get(store, chartId);
    this.pages.send(
      response,
      200,
      chartPage(page, { store, chart, form: chartToForm(chart), errors: [], cellErrors: {}, saved: saved === '1' }),
    );
  }

  @Post('charts/:chart_id')
  @ConsolePage({ signedIn: true, store: true })
  async saveChart(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('chart_id') chartId: string,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const chart = await this.charts.get(store, chartId);
    const form = formToChart(body);
    const { sizes, rowOf, errors: typed } = formSizes(form);
    let errors: FieldError[] = typed;
    if (errors.length === 0) {
      const result = await this.attempt(async () => {
        const checked = await validateObject(UpdateSizeChartRequest, { name: form.name, sizes });
        if (!checked.ok) throw ProblemError.validation(checked.errors);
        return this.charts.update(store, chart.id, checked.value);
      });
      if (!('errors' in result)) {
        this.pages.redirect(response, `/console/stores/${store.id}/charts/${chart.id}?saved=1`);
        return;
      }
      errors = toFormRows(result.errors, rowOf);
    }
    const shown: ChartForm = { ...form, rows: form.rows.length ? form.rows : chartToForm(chart).rows };
    this.pages.send(response, 422, chartPage(page, { store, chart, form: shown, errors, cellErrors: cellErrors(errors) }));
  }

  @Get('charts/:chart_id/csv')
  @ConsolePage({ signedIn: true, store: true })
  async exportChart(@CurrentStore() store: Store, @Param('chart_id') chartId: string, @Res() response: Response): Promise<void> {
    const chart = await this.charts.get(store, chartId);
    const file = `${chart.name.replace(/[^\w-]+/g, '-').replace(/^-+|-+$/g, '') || 'size-chart'}.csv`;
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Content-Disposition', `attachment; filename="${file}"`);
    response.status(200).type('text/csv; charset=utf-8').send(chartToCsv(chart));
  }

  // ———————————————————————————————————————— product types ————————————————————————————————————————

  @Get('product-types')
  @ConsolePage({ signedIn: true, store: true })
  async showTypes(@CurrentPage() page: PageContext, @CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    this.pages.send(response, 200, typesPage(page, { store, types: await this.allTypes(store) }));
  }

  @Post('product-types')
  @ConsolePage({ signedIn: true, store: true })
  async createType(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const { values, weights, errors } = typeForm(body);
    if (errors.length === 0) {
      const result = await this.attempt(async () => {
        const checked = await validateObject(CreateProductTypeRequest, {
          name: values.name,
          category: values.category,
          zone_weights: weights,
        });
        if (!checked.ok) throw ProblemError.validation(checked.errors);
        return this.types.create(store, checked.value);
      });
      if (!('errors' in result)) {
        this.pages.redirect(response, `/console/stores/${store.id}/product-types#types`);
        return;
      }
      errors.push(...result.errors);
    }
    this.pages.send(response, 422, typesPage(page, { store, types: await this.allTypes(store), form: { values, errors } }));
  }

  @Get('product-types/:type_id')
  @ConsolePage({ signedIn: true, store: true })
  async showType(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('type_id') typeId: string,
    @Query('saved') saved: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const type = await this.types.get(store, typeId);
    this.pages.send(response, 200, typePage(page, { store, type, values: typeFormValues(type), errors: [], saved: saved === '1' }));
  }

  /** Its name, category and weights through the API's update (a weight its products' charts do not state is refused). */
  @Post('product-types/:type_id')
  @ConsolePage({ signedIn: true, store: true })
  async saveType(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('type_id') typeId: string,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const type = await this.types.get(store, typeId);
    const { values, weights, errors } = typeForm(body);
    if (errors.length === 0) {
      const result = await this.attempt(async () => {
        const checked = await validateObject(UpdateProductTypeRequest, {
          name: values.name,
          category: values.category,
          zone_weights: weights,
        });
        if (!checked.ok) throw ProblemError.validation(checked.errors);
        return this.types.update(store, type.id, checked.value);
      });
      if (!('errors' in result)) {
        this.pages.redirect(response, `/console/stores/${store.id}/product-types/${type.id}?saved=1`);
        return;
      }
      errors.push(...result.errors);
    }
    this.pages.send(response, 422, typePage(page, { store, type, values, errors }));
  }

  // ———————————————————————————————————————— products ————————————————————————————————————————

  @Get('products')
  @ConsolePage({ signedIn: true, store: true })
  async showProducts(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('q') q: unknown,
    @Query('type') type: unknown,
    @Query('chart') chart: unknown,
    @Query('after') after: unknown,
    @Query('added') added: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const notice = isId(added) ? await this.addedNotice(store, added) : undefined;
    const view = await this.productsView(store, { q, type, chart, after });
    this.pages.send(response, 200, productsPage(page, { ...view, added: notice }));
  }

  @Post('products')
  @ConsolePage({ signedIn: true, store: true })
  async createProduct(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values: ProductFormValues = {
      title: formText(body, 'title'),
      external_id: formText(body, 'external_id').trim(),
      product_type_id: formText(body, 'product_type_id'),
      size_chart_id: formText(body, 'size_chart_id'),
      fit_adjustment: formText(body, 'fit_adjustment'),
      variants: formText(body, 'variants') === '1',
    };
    const result = await this.attempt(async () => {
      const checked = await validateObject(CreateProductRequest, {
        title: values.title,
        product_type_id: values.product_type_id,
        size_chart_id: values.size_chart_id,
        fit_adjustment: values.fit_adjustment,
        ...(values.external_id ? { external_id: values.external_id } : {}),
      });
      if (!checked.ok) throw ProblemError.validation(checked.errors);
      return this.products.create(store, checked.value, { variantPerSize: values.variants });
    });
    if ('errors' in result) {
      const view = await this.productsView(store, {});
      this.pages.send(response, 422, productsPage(page, { ...view, form: { values, errors: result.errors } }));
      return;
    }
    this.pages.redirect(response, `/console/stores/${store.id}/products?added=${result.value.id}`);
  }

  /** The same change to every selected product, each through the API's own update; the refused ones named. */
  @Post('products/bulk')
  @ConsolePage({ signedIn: true, store: true })
  async changeProducts(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const ids = ([] as unknown[]).concat(body.ids ?? []).filter(isId);
    const change = Object.fromEntries(
      (['size_chart_id', 'product_type_id', 'fit_adjustment'] as const).flatMap((field) => {
        const value = formText(body, field);
        return value ? [[field, value]] : [];
      }),
    );
    const query = Object.fromEntries(new URLSearchParams(formText(body, 'return')));
    const errors: FieldError[] = [];
    if (ids.length === 0) errors.push({ field: 'ids', code: 'required', message: 'Select at least one product' });
    if (Object.keys(change).length === 0)
      errors.push({ field: 'change', code: 'required', message: 'Choose a size chart, a type or a fit to set' });
    const checked = await validateObject(UpdateProductRequest, change);
    if (!checked.ok) errors.push(...checked.errors);
    if (errors.length || !checked.ok) {
      this.pages.send(response, 422, productsPage(page, { ...(await this.productsView(store, query)), bulkErrors: errors }));
      return;
    }
    let changed = 0;
    const refused: { title: string; message: string }[] = [];
    for (const id of ids) {
      const result = await this.attempt(() => this.products.update(store, id, checked.value));
      if (!('errors' in result)) {
        changed++;
        continue;
      }
      const title = await this.products.get(store, id).then(
        (product) => product.title,
        () => 'A product that is gone',
      );
      refused.push({ title, message: result.errors.map((error) => error.message).join('; ') });
    }
    this.pages.send(response, 200, productsPage(page, { ...(await this.productsView(store, query)), bulk: { changed, refused } }));
  }

  // ———————————————————————————————————————— helpers ————————————————————————————————————————

  /**
   * Runs a change; a refusal the person can fix (invalid fields, a taken platform id, a row in use) comes back as
   * field errors, anything else goes on to the error page.
   */
  private async attempt<T>(change: () => Promise<T>): Promise<{ value: T } | { errors: FieldError[] }> {
    try {
      return { value: await change() };
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status >= 500 || error.status === 401 || error.status === 403) throw error;
      if (error.code === 'not_found' && !error.errors?.length) throw error;
      return {
        errors: error.errors?.length ? [...error.errors] : [{ field: '', code: error.code, message: error.detail ?? error.message }],
      };
    }
  }

  private async allCharts(store: Store): Promise<SizeChartResponse[]> {
    const charts = await everyPage((after) => this.charts.list(store, { limit: 100, ...(after ? { starting_after: after } : {}) }));
    return charts.filter((chart) => chart.archived_at === null).reverse();
  }

  private allTypes(store: Store): Promise<ProductTypeResponse[]> {
    return everyPage((after) => this.types.list(store, { limit: 100, ...(after ? { starting_after: after } : {}) })).then((types) =>
      types.reverse(),
    );
  }

  private async productsView(store: Store, query: Record<string, unknown>): Promise<Omit<ProductsPage, 'added'>> {
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
    const filters: ProductFilters = {
      text: text('q').slice(0, 200),
      product_type_id: isId(query.type) ? query.type : '',
      size_chart_id: isId(query.chart) ? query.chart : '',
    };
    const [types, charts, products] = await Promise.all([
      this.allTypes(store),
      this.allCharts(store),
      this.products.search(
        store,
        {
          text: filters.text || undefined,
          product_type_id: filters.product_type_id || undefined,
          size_chart_id: filters.size_chart_id || undefined,
        },
        { limit: PRODUCTS_PER_PAGE, ...(isId(query.after) ? { starting_after: query.after } : {}) },
      ),
    ]);
    return { store, filters, types, charts, products: products.data, more: products.next_cursor };
  }

  private async addedNotice(store: Store, id: string): Promise<{ title: string; variants: number } | undefined> {
    try {
      const product: ProductResponse = await this.products.get(store, id);
      const variants = await this.products.listVariants(store, id, { limit: 100 });
      return { title: product.title, variants: variants.data.length };
    } catch {
      return undefined;
    }
  }
}

/** The product type form as sent: its text kept, the weights read as numbers (one that is not is refused on its field). */
function typeForm(body: Record<string, unknown>): { values: TypeFormValues; weights: Record<string, number>; errors: FieldError[] } {
  const values: TypeFormValues = {
    name: formText(body, 'name'),
    category: formText(body, 'category'),
    weights: Object.fromEntries(ZONES.map((zone) => [zone, formText(body, `weight_${zone}`).trim()])),
  };
  const errors: FieldError[] = [];
  const weights: Record<string, number> = {};
  for (const zone of ZONES) {
    const text = values.weights[zone];
    if (text === '') continue;
    const weight = Number(text.replace(',', '.'));
    if (!/^\d+(?:[.,]\d+)?$/.test(text) || !Number.isFinite(weight)) {
      errors.push({ field: `zone_weights.${zone}`, code: 'must_be_number', message: 'Write the weight as a number from 0 to 10' });
    } else {
      weights[zone] = weight;
    }
  }
  return { values, weights, errors };
}
