import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ProductsService } from '../catalog/products.service.js';
import { SizeChartsService } from '../catalog/size-charts.service.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { unseal } from '../common/crypto/seal.js';
import { APP_CONFIG, type AppConfig, type PlatformConfig } from '../config/app.config.js';
import { JobQueue } from '../database/job-queue.js';
import { Transactions } from '../database/transactions.js';
import type { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import { PlatformConnectionsRepository } from './platform-connections.repository.js';
import { PlatformImportsRepository } from './platform-imports.repository.js';
import { CatalogSyncService } from './catalog-sync.service.js';
import type { AssignRule, Assignment, ImportCounts, ImportTrigger, PlatformImport, PlatformProduct } from './platform.entities.js';
import { nextPageOf, shopProducts } from './shop-products.js';

const IMPORTS_QUEUE = 'platform-imports';
/** The scheduled job that starts a full read of every connected shop's catalog. */
const RECONCILE_QUEUE = 'platform-reconcile';
/** The platform's admin API version the import reads. */
const API_VERSION = '2025-01';
/** The largest page the platform serves. */
const PAGE_SIZE = 250;
/** A page refused for the rate limit is asked for again after `Retry-After` (at most a minute), this many times. */
const RATE_LIMITED_TRIES = 10;
const MAX_RETRY_AFTER_SECONDS = 60;
/** The most products one rule creates per call. */
const ASSIGN_LIMIT = 500;

/** The platform no longer accepts the store's token (the app was uninstalled, or its access revoked). */
class TokenRefused extends Error {}

/**
 * The import of a connected shop's catalog (docs/platform-sync.md): started by the connection, run by a durable job
 * that reads the platform's product listing page by page, honouring its rate limit (`Retry-After`), and keeps each
 * page's products with the cursor of the next page in one transaction, so that an import cut off by a crash resumes
 * at the page it was reading and keeps nothing twice. Each product is linked to the store's catalog product whose
 * `external_id` is the platform's id; a product with a size option and no such product needs a chart; one without a
 * size option is skipped and listed.
 */
@Injectable()
export class CatalogImportService implements OnModuleInit {
  private readonly logger = new Logger('CatalogImport');

  constructor(
    private readonly transactions: Transactions,
    private readonly imports: PlatformImportsRepository,
    private readonly connections: PlatformConnectionsRepository,
    private readonly stores: StoresService,
    private readonly sync: CatalogSyncService,
    private readonly products: ProductsService,
    private readonly charts: SizeChartsService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.platform === null) return;
    this.jobs.define({
      name: IMPORTS_QUEUE,
      // An import runs for as long as the catalog takes; a process that died is noticed by its missing heartbeat.
      expireInSeconds: 4 * 60 * 60,
      heartbeatSeconds: 10,
      pollingIntervalSeconds: this.config.platform.jobPollSeconds,
      retryDelaySeconds: this.config.platform.retryDelaySeconds,
      retryLimit: this.config.platform.jobRetries,
      handler: (data, attempt) => this.attempt((data as { store: string }).store, attempt.lastAttempt),
    });
    this.jobs.define({
      name: RECONCILE_QUEUE,
      expireInSeconds: 5 * 60,
      pollingIntervalSeconds: this.config.platform.jobPollSeconds,
      retryDelaySeconds: this.config.platform.retryDelaySeconds,
      retryLimit: this.config.platform.jobRetries,
      schedule: { cron: this.config.platform.reconcileCron, data: {} },
      handler: () => this.reconcileAll(),
    });
  }

  /** Starts a full read of the store's catalog from the first page once the caller's transaction commits. */
  async begin(manager: EntityManager, storeId: string, trigger: ImportTrigger): Promise<void> {
    await this.imports.begin(manager, storeId, trigger);
    await this.jobs.send(manager, IMPORTS_QUEUE, { store: storeId });
  }

  /** The catalog read again in full, from the first page (the console's "Import again"). */
  async restart(store: Store): Promise<void> {
    await this.transactions.run((manager) => this.begin(manager, store.id, 'console'));
  }

  /** The scheduled reconcile: a full read of each connected store's catalog, but where one is running already. */
  private async reconcileAll(): Promise<void> {
    for (const storeId of await this.connections.connectedStores()) {
      await this.transactions.run(async (manager) => {
        if ((await this.imports.lockRunning(manager, storeId)) === false) await this.begin(manager, storeId, 'schedule');
      });
    }
  }

  /** The store's import, what it read, and the first products that need a chart or were skipped. */
  async status(
    store: Store,
    listed = 50,
  ): Promise<{ import: PlatformImport | null; counts: ImportCounts; needsChart: PlatformProduct[]; skipped: PlatformProduct[] }> {
    const [current, counts, needsChart, skipped] = await Promise.all([
      this.imports.find(store.id),
      this.imports.counts(store.id),
      this.imports.listed(store.id, 'needs_chart', listed),
      this.imports.listed(store.id, 'skipped', listed),
    ]);
    return { import: current, counts, needsChart, skipped };
  }

  /**
   * Gives the imported products that need a chart and match `rule` the chart and product type: each becomes a catalog
   * product with the platform's id as `external_id` and a variant of each of its sizes that is a label of the chart
   * (matched whatever the case; the others left out and counted), at most 500 per call. A chart or type the store
   * does not have, or that do not go together, is refused as the products API refuses it.
   */
  async assign(store: Store, rule: AssignRule, chartId: string, typeId: string): Promise<Assignment> {
    const chart = await this.charts.get(store, chartId);
    const labels = new Map(chart.sizes.map((size) => [size.label.toLowerCase(), size.label]));
    const products = await this.imports.matching(store.id, rule, ASSIGN_LIMIT + 1);
    let created = 0;
    let sizesLeftOut = 0;
    let notCreated = 0;
    for (const product of products.slice(0, ASSIGN_LIMIT)) {
      const variants = product.variants.flatMap((variant) => {
        const label = variant.size === null ? undefined : labels.get(variant.size.toLowerCase());
        return label === undefined ? [] : [{ size_label: label, external_id: variant.id }];
      });
      sizesLeftOut += product.variants.length - variants.length;
      try {
        const made = await this.products.create(
          store,
          { title: product.title, external_id: product.platformId, product_type_id: typeId, size_chart_id: chartId },
          { variants },
        );
        await this.imports.link(store.id, product.platformId, made.id);
        created++;
      } catch (error) {
        // The chart or the type refused: the same for every product, so the form says it. Anything else (its
        // platform id taken meanwhile by another product, say) concerns this product alone, which still needs a chart.
        if (!(error instanceof ProblemError)) throw error;
        if ((error.errors ?? []).some((fault) => fault.field === 'product_type_id' || fault.field === 'size_chart_id')) throw error;
        notCreated++;
      }
    }
    return { created, sizesLeftOut, notCreated, more: products.length > ASSIGN_LIMIT };
  }

  /** The values the rules may name: the product types, vendors and tags of the products that need a chart. */
  ruleValues(store: Store): Promise<Record<AssignRule['field'], string[]>> {
    return this.imports.ruleValues(store.id);
  }

  private async attempt(storeId: string, lastAttempt: boolean): Promise<void> {
    try {
      await this.run(storeId);
    } catch (error) {
      if (error instanceof TokenRefused) {
        await this.imports.fail(storeId, 'The shop refused the app’s access: connect the store again.');
        return;
      }
      this.logger.warn(
        { store_id: storeId, reason: error instanceof Error ? error.message : 'unknown error' },
        'catalog import attempt failed',
      );
      if (lastAttempt) await this.imports.fail(storeId, 'The platform could not be read at every attempt; import again later.');
      throw error;
    }
  }

  /**
   * Reads the pages left, from the saved cursor on, each applied to the catalog and kept with the next cursor; after
   * the last, the products the read did not list are gone from the shop and removed, unless the read listed nothing at
   * all (a shop is not emptied by one answer: its deletions arrive as notifications too).
   */
  private async run(storeId: string): Promise<void> {
    const platform = this.config.platform as PlatformConfig;
    const store = await this.stores.findConnected(storeId);
    const connection = await this.connections.sealedToken(storeId);
    if (store === null || connection === null) return this.imports.fail(storeId, 'The store is no longer connected to its shop.');
    const token = unseal(platform.tokenKey, storeId, connection.sealed);
    for (;;) {
      const current = await this.imports.find(storeId);
      if (current?.state !== 'running') return;
      const page = new URL(`${platform.baseUrl.replace('{shop}', connection.shop)}/admin/api/${API_VERSION}/products.json`);
      page.searchParams.set('limit', String(PAGE_SIZE));
      if (current.nextPage !== null) page.searchParams.set('page_info', current.nextPage);
      // On the database's clock, as the tombstones it is compared with are.
      const listedAt = await this.imports.clock();
      const { products, next } = await this.readPage(page, token, platform.timeoutMs);
      const { repaired } = await this.sync.apply(store, products, listedAt, async (manager, repaired) => {
        if (next !== null) await this.imports.advance(manager, storeId, next, repaired);
      });
      if (next !== null) continue;
      const gone = current.pages === 0 && products.length === 0 ? [] : await this.imports.unseen(storeId, current.startedAt);
      await this.sync.remove(
        store,
        gone.map((product) => product.platformId),
        (manager) => this.imports.advance(manager, storeId, null, repaired, gone.length),
      );
      return;
    }
  }

  /** One page of the listing, asked for again while the platform answers 429 (after its `Retry-After`). */
  private async readPage(
    url: URL,
    token: string,
    timeoutMs: number,
  ): Promise<{ products: ReturnType<typeof shopProducts>; next: string | null }> {
    for (let tries = 1; ; tries++) {
      const response = await fetch(url, {
        headers: { 'X-Shop-Access-Token': token, accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status === 429 && tries < RATE_LIMITED_TRIES) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response.headers.get('retry-after')));
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        throw new TokenRefused();
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`the product listing answered ${response.status}`);
      }
      return { products: shopProducts(await response.json()), next: nextPageOf(response.headers.get('link')) };
    }
  }
}

/** `Retry-After` in seconds or as a date, within 1 s and a minute; 2 s when the platform does not say. */
function retryAfterMs(header: string | null): number {
  const seconds =
    header === null ? Number.NaN : /^\d+(\.\d+)?$/.test(header.trim()) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  const wait = Number.isFinite(seconds) ? seconds : 2;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, wait)) * 1000;
}
