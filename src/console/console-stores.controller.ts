import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { ConsoleAccountsService } from '../console-accounts/console-accounts.service.js';
import type { CreatedApiKeyResponse } from '../api-keys/dto/api-key.response.js';
import { CreateApiKeyRequest } from '../api-keys/dto/create-api-key.request.js';
import { type ConsoleIdentity, CurrentPrincipal, CurrentStore, type MerchantPrincipal } from '../auth/principal.js';
import { isId } from '../common/http/ids.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { ProductFitService } from '../fit/product-fit.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { Store } from '../stores/store.entity.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { formText, CurrentPage, PageSender, SignedIn, storeFormValues } from './console-pages.js';
import type { PageContext } from './pages/layout.js';
import { metricsPage } from './pages/metrics-page.js';
import { PRODUCT_FIT_SORTS, type ProductFitSort, productFitDetailPage, productFitPage } from './pages/product-fit-page.js';
import { type IssueFormValues, type StorePage, storePage } from './pages/store-pages.js';
import { UpdateStoreRequest } from '../stores/dto/store.dto.js';
import { StoresService } from '../stores/stores.service.js';
import { ProductTypesService } from '../catalog/product-types.service.js';
import { ProductsService } from '../catalog/products.service.js';
import { SizeChartsService } from '../catalog/size-charts.service.js';
import { PlatformService } from '../platform/platform.service.js';
import { SubmittedForms } from '../idempotency/submitted-forms.js';

const DAY_MS = 86_400_000;

/** The API's words for a refused key, said in the form's terms (its fields are labelled, not named as in JSON). */
const ISSUE_FORM_MESSAGES: Readonly<Record<string, string>> = {
  'expires_at not_in_future': 'Choose an expiry date after today',
  'expires_at too_far_in_future': 'Choose an expiry date at most a year ahead',
};
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * One store: its keys, its platform connection, its metrics and how its products fit. The guard has checked it is the
 * merchant's.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsoleStoresController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly accounts: ConsoleAccountsService,
    private readonly metrics: MetricsService,
    private readonly productFit: ProductFitService,
    private readonly platform: PlatformService,
    private readonly pages: PageSender,
    private readonly forms: SubmittedForms,
    private readonly stores: StoresService,
    private readonly charts: SizeChartsService,
    private readonly types: ProductTypesService,
    private readonly products: ProductsService,
  ) {}

  @Get()
  @ConsolePage({ signedIn: true, store: true })
  async show(
    @CurrentPage() page: PageContext,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @CurrentStore() store: Store,
    @Query('keys_after') keysAfter: unknown,
    @Query('created') created: unknown,
    @Query('saved') saved: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const view = await this.storeView(principal, store, isId(keysAfter) ? keysAfter : undefined);
    const notice = created === '1' ? 'created' : saved === '1' ? 'saved' : undefined;
    this.pages.send(response, 200, storePage(page, { ...view, notice }));
  }

  /** The store's name, currency and units, through the API's own rules. */
  @Post('settings')
  @ConsolePage({ signedIn: true, store: true })
  async saveSettings(
    @CurrentPage() page: PageContext,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values = storeFormValues(body);
    const checked = await validateObject(UpdateStoreRequest, values);
    if (!checked.ok) {
      const view = await this.storeView(principal, store);
      this.pages.send(response, 422, storePage(page, { ...view, settingsForm: { values, errors: checked.errors } }));
      return;
    }
    await this.stores.update(store, checked.value);
    this.pages.redirect(response, `/console/stores/${store.id}?saved=1#settings`);
  }

  /**
   * Issues a key bound to this store through the API's own rules; the answer is the only page with its secret. The
   * same form sent again (a reload of that page) issues nothing more (submitted-forms.ts).
   */
  @Post('keys')
  @ConsolePage({ signedIn: true, store: true })
  async issueKey(
    @CurrentPage() page: PageContext,
    @SignedIn() identity: ConsoleIdentity,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @CurrentStore() store: Store,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values: IssueFormValues = {
      name: formText(body, 'name'),
      scopes: ([] as unknown[]).concat(body.scopes ?? []).filter((scope): scope is string => typeof scope === 'string'),
      expires_at: formText(body, 'expires_at').trim(),
    };
    let created: CreatedApiKeyResponse | null;
    try {
      const request = await this.issueRequest(store, values);
      // Issued by the session, which stands on its account's key: ending either first issues nothing (a sign-in page).
      created = await this.forms.once(identity.accountId, formText(body, 'form_id'), () =>
        this.accounts.issueKey(principal, identity, request),
      );
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'validation_failed') throw error;
      const view = await this.storeView(principal, store);
      const errors = (error.errors ?? []).map((e) => ({ ...e, message: ISSUE_FORM_MESSAGES[`${e.field} ${e.code}`] ?? e.message }));
      this.pages.send(response, 422, storePage(page, { ...view, issueForm: { values, errors } }));
      return;
    }
    const view = await this.storeView(principal, store);
    if (created === null) this.pages.send(response, 409, storePage(page, { ...view, alreadyIssued: true }));
    else this.pages.send(response, 201, storePage(page, { ...view, newKey: created }));
  }

  /** The address bar after issuing a key: going there again shows the store, never the secret. */
  @Get('keys')
  @ConsolePage({ signedIn: true, store: true })
  keysAddress(@CurrentStore() store: Store, @Res() response: Response): void {
    this.pages.redirect(response, `/console/stores/${store.id}#keys`);
  }

  @Post('keys/:key_id/revoke')
  @ConsolePage({ signedIn: true, store: true })
  async revokeKey(
    @CurrentPrincipal() principal: MerchantPrincipal,
    @CurrentStore() store: Store,
    @Param('key_id') keyId: string,
    @Res() response: Response,
  ): Promise<void> {
    // As a store-bound admin would: only this store's keys can be revoked from its page.
    await this.apiKeys.revoke({ ...principal, storeId: store.id }, keyId);
    this.pages.redirect(response, `/console/stores/${store.id}#keys`);
  }

  @Get('product-fit')
  @ConsolePage({ signedIn: true, store: true })
  async showProductFit(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('sort') sort: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const known = typeof sort === 'string' && Object.hasOwn(PRODUCT_FIT_SORTS, sort) ? (sort as ProductFitSort) : 'evidence';
    this.pages.send(response, 200, productFitPage(page, store, await this.productFit.everyProduct(store), known));
  }

  @Get('product-fit/:product_id')
  @ConsolePage({ signedIn: true, store: true })
  async showProductFitDetail(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Param('product_id') productId: string,
    @Res() response: Response,
  ): Promise<void> {
    this.pages.send(response, 200, productFitDetailPage(page, store, await this.productFit.forProduct(store, productId)));
  }

  @Get('metrics')
  @ConsolePage({ signedIn: true, store: true })
  async showMetrics(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('from') rawFrom: unknown,
    @Query('to') rawTo: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const today = new Date().toISOString().slice(0, 10);
    const to = typeof rawTo === 'string' && rawTo !== '' ? rawTo : today;
    const from = typeof rawFrom === 'string' && rawFrom !== '' ? rawFrom : addDays(isDate(to) ? to : today, -29);
    const errors: FieldError[] = [];
    for (const [field, value] of [
      ['from', from],
      ['to', to],
    ] as const) {
      const label = field === 'from' ? 'The first day' : 'The last day';
      if (!isDate(value)) errors.push({ field, code: 'invalid_date', message: `${label} must be a date such as ${today}` });
    }
    if (errors.length === 0 && from > to)
      errors.push({ field: 'from', code: 'not_before_to', message: 'The first day must not be after the last' });
    if (errors.length) {
      this.pages.send(response, 422, metricsPage(page, { store, from, to, errors }));
      return;
    }
    const query = { from: `${from}T00:00:00Z`, to: `${addDays(to, 1)}T00:00:00Z` };
    try {
      const [summary, daily] = await Promise.all([this.metrics.summary(store, query), this.metrics.daily(store, query)]);
      this.pages.send(response, 200, metricsPage(page, { store, from, to, errors, summary, daily }));
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'validation_failed') throw error;
      const errors = (error.errors ?? []).map((fieldError) =>
        fieldError.code === 'range_too_long' ? { ...fieldError, message: 'Choose at most 366 days' } : fieldError,
      );
      this.pages.send(response, 422, metricsPage(page, { store, from, to, errors }));
    }
  }

  @Post('platform/connect')
  @ConsolePage({ signedIn: true, store: true })
  async connect(
    @CurrentPage() page: PageContext,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @CurrentStore() store: Store,
    @SignedIn() identity: ConsoleIdentity,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const shop = formText(body, 'shop');
    let authorize: string;
    try {
      authorize = await this.platform.start(identity, store, shop);
    } catch (error) {
      if (!(error instanceof ProblemError) || error.code !== 'validation_failed') throw error;
      const view = await this.storeView(principal, store);
      this.pages.send(response, 422, storePage(page, { ...view, connectForm: { shop, errors: error.errors ?? [] } }));
      return;
    }
    this.pages.redirect(response, authorize);
  }

  @Post('platform/disconnect')
  @ConsolePage({ signedIn: true, store: true })
  async disconnect(@CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    await this.platform.disconnect(store);
    this.pages.redirect(response, `/console/stores/${store.id}#platform`);
  }

  /** The form as the API's request, checked by the API's own rules. */
  private async issueRequest(store: Store, values: IssueFormValues): Promise<CreateApiKeyRequest> {
    const request: Record<string, unknown> = { name: values.name, scopes: values.scopes, store_id: store.id };
    if (values.expires_at !== '') {
      if (!isDate(values.expires_at)) {
        throw ProblemError.field('expires_at', 'invalid_date', 'Enter the expiry as a date, or leave it empty');
      }
      request.expires_at = `${values.expires_at}T00:00:00Z`;
    }
    const checked = await validateObject(CreateApiKeyRequest, request);
    if (!checked.ok) {
      throw ProblemError.validation(
        checked.errors.map((error) =>
          error.field === 'scopes' && values.scopes.length === 0 ? { ...error, message: 'Choose at least one scope' } : error,
        ),
      );
    }
    return checked.value;
  }

  private async storeView(principal: MerchantPrincipal, store: Store, keysAfter?: string): Promise<StorePage> {
    const [keys, connection, charts, types, products] = await Promise.all([
      this.apiKeys.list(principal, { limit: 100, store_id: store.id, ...(keysAfter ? { starting_after: keysAfter } : {}) }),
      this.platform.connection(store),
      this.charts.list(store, { limit: 1 }),
      this.types.list(store, { limit: 1 }),
      this.products.search(store, {}, { limit: 1 }),
    ]);
    return {
      store,
      keys: keys.data,
      moreKeys: keys.next_cursor,
      issueFormId: randomUUID(),
      platform: { configured: this.platform.configured, connection },
      catalog: { charts: charts.data.length > 0, types: types.data.length > 0, products: products.data.length > 0 },
    };
  }
}

const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** A real calendar date as YYYY-MM-DD (2026-02-30 is not), from 1970 to 9998 so that the day after is one too. */
const isDate = (date: string): boolean => {
  if (!DATE.test(date)) return false;
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === date && date >= '1970-01-01' && date <= '9998-12-31';
};
