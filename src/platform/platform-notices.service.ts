import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { CatalogLookups } from '../catalog/catalog-lookups.service.js';
import { isId } from '../common/http/ids.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import { JobQueue } from '../database/job-queue.js';
import { Transactions } from '../database/transactions.js';
import { EventsService } from '../events/events.service.js';
import { SessionsService } from '../fit/sessions.service.js';
import type { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import { PlatformConnectionsRepository } from './platform-connections.repository.js';
import type { LineResult, NoticeOutcome, NoticeState, PlatformNotice } from './platform.entities.js';
import { PlatformNoticesRepository } from './platform-notices.repository.js';
import { PlatformImportsRepository } from './platform-imports.repository.js';
import { NOTICES_PATH } from './notices-path.js';
import { CatalogSyncService, type ProductFate } from './catalog-sync.service.js';
import {
  customerOf,
  isOrderTopic,
  isProductTopic,
  type LineOutcome,
  lineOutcomes,
  type OrderTopic,
  PayloadError,
  productChange,
  type ProductTopic,
} from './webhook-payloads.js';

const NOTICES_QUEUE = 'platform-notices';
/** The `source` of the events the service records for a connected shop. */
const PLATFORM_SOURCE = 'platform';

/** The notifications a connected shop's platform sends that the service acts on; any other is acknowledged and kept. */
const LIFECYCLE_TOPICS = ['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact'] as const;
/**
 * A refund says that money went back, not why: a returned line is recorded from the shop's return request
 * (`returns/requested`, with its reason), which a refund follows. Refunds are acknowledged and kept, saying so.
 */
const REFUND_TOPIC = 'refunds/create';
const REFUND_SUMMARY = 'A refund says money went back, not why: a returned line counts from the shop’s return request, which says why.';

/** A job's data: the notification, and its store (so a store's dead letters are found, and only its own). */
interface NoticeJob {
  readonly notice: string;
  readonly store: string;
}

interface ReceivedNotice {
  readonly shop: string | undefined;
  readonly topic: string | undefined;
  readonly deliveryId: string | undefined;
  readonly body: Buffer;
}

/**
 * A connected shop's notifications (docs/platform-sync.md): each one, its signature already checked by the access
 * guard, is kept once per store and delivery and handed to a durable job in the same transaction, so the platform is
 * answered at once and nothing it was told "received" is lost, even to a kill. The job turns order, return and
 * exchange notifications into events (their `external_id`s from the platform's ids, so a redelivery is a duplicate),
 * records every line it could not map, and honours the app's lifecycle: uninstall and the privacy requests.
 */
@Injectable()
export class PlatformNoticesService implements OnModuleInit {
  private readonly logger = new Logger('PlatformNotices');

  constructor(
    private readonly transactions: Transactions,
    private readonly notices: PlatformNoticesRepository,
    private readonly imports: PlatformImportsRepository,
    private readonly connections: PlatformConnectionsRepository,
    private readonly stores: StoresService,
    private readonly catalog: CatalogLookups,
    private readonly sync: CatalogSyncService,
    private readonly events: EventsService,
    private readonly sessions: SessionsService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.platform === null) return;
    this.jobs.define({
      name: NOTICES_QUEUE,
      // Processing one takes milliseconds: one still running after 15 s belongs to a process that died (and running
      // it again records nothing twice).
      expireInSeconds: 15,
      pollingIntervalSeconds: this.config.platform.jobPollSeconds,
      retryDelaySeconds: this.config.platform.retryDelaySeconds,
      retryLimit: this.config.platform.jobRetries,
      handler: (data, attempt) => this.attempt((data as NoticeJob).notice, attempt.lastAttempt),
    });
  }

  /** Keeps the notification for each store connected to its shop; whether it was new to all of them. */
  async receive(notice: ReceivedNotice): Promise<{ duplicate: boolean }> {
    const { shop, topic, deliveryId } = notice;
    const missing = [
      ['X-Shop-Domain', shop],
      ['X-Shop-Topic', topic],
      ['X-Shop-Webhook-Id', deliveryId],
    ].filter(([, value]) => value === undefined || value.length === 0 || value.length > 255);
    if (missing.length) {
      throw new ProblemError(
        'validation_failed',
        'A platform notification names its shop, topic and delivery',
        missing.map(([header]) => ({ field: header as string, code: 'required', message: `the ${header} header is required` })),
      );
    }
    let payload: unknown;
    try {
      payload = JSON.parse(notice.body.toString('utf8'));
    } catch {
      throw new ProblemError('invalid_json', 'The notification body is not valid JSON');
    }
    const stores = await this.connections.storesOfShop(shop as string);
    if (!stores.length) {
      // A shop no store is connected to (any more): acknowledged, so that the platform stops sending it.
      this.logger.log({ shop, topic }, 'platform notification for a shop no store is connected to');
      return { duplicate: false };
    }
    const acted =
      isOrderTopic(topic as string) || isProductTopic(topic as string) || (LIFECYCLE_TOPICS as readonly string[]).includes(topic as string);
    let fresh = 0;
    await this.transactions.run(async (manager) => {
      fresh = 0;
      for (const storeId of stores) {
        const id = await this.notices.insert(manager, {
          storeId,
          shop: shop as string,
          deliveryId: deliveryId as string,
          topic: topic as string,
          payload: acted ? payload : null,
          state: acted ? 'queued' : 'ignored',
          outcome: acted ? null : { summary: topic === REFUND_TOPIC ? REFUND_SUMMARY : 'Not a notification Size-Fit acts on.' },
        });
        if (id === null) continue;
        fresh++;
        if (acted) await this.jobs.send(manager, NOTICES_QUEUE, { notice: id, store: storeId } satisfies NoticeJob);
      }
    });
    return { duplicate: fresh === 0 };
  }

  /** Where the platform is to deliver notifications, at the service's public address. */
  address(): string {
    return `${this.config.publicUrl}${NOTICES_PATH}`;
  }

  /** The store's latest notifications, newest first, with how each ended. */
  recent(store: Store, limit = 20): Promise<PlatformNotice[]> {
    return this.notices.recent(store.id, limit);
  }

  /** The notifications of the store whose every attempt failed, oldest first, each with its job's last error. */
  async deadLetters(store: Store): Promise<Array<{ job: string; notice: PlatformNotice | null; error: string | null; failedAt: Date }>> {
    if (!this.jobs.running) return [];
    const letters = await this.jobs.deadLetters(NOTICES_QUEUE, { store: store.id });
    const notices = await this.notices.byIds(
      store.id,
      letters.map((letter) => (letter.data as NoticeJob).notice),
    );
    return letters.map((letter) => ({
      job: letter.id,
      notice: notices.get((letter.data as NoticeJob).notice) ?? null,
      error: letter.error,
      failedAt: letter.failedAt,
    }));
  }

  /** Sends a dead letter of the store back to be processed again; false when the store has no such dead letter. */
  async retry(store: Store, job: string): Promise<boolean> {
    if (!this.jobs.running) return false;
    if (!isId(job)) return false; // pg-boss's ids are UUIDs
    const [letter] = await this.jobs.deadLetters(NOTICES_QUEUE, { store: store.id }, { id: job });
    if (letter === undefined) return false;
    await this.notices.requeue(store.id, (letter.data as NoticeJob).notice);
    return this.jobs.retryDeadLetter(NOTICES_QUEUE, job, { store: store.id });
  }

  /** One attempt of the job; the last one, failing, leaves the notification marked for the console's retry. */
  private async attempt(id: string, lastAttempt: boolean): Promise<void> {
    try {
      await this.process(id);
    } catch (error) {
      if (lastAttempt) {
        const reason = error instanceof Error ? error.message : 'unknown error';
        this.logger.error({ notice: id, reason }, 'platform notification failed at every attempt');
        await this.notices
          .markDead(id, { summary: 'Every attempt to process it failed; retry it once the cause is mended.' })
          .catch(() => undefined);
      }
      throw error;
    }
  }

  /** Processes a kept notification once. Throws (and is retried) when the database or a step fails. */
  private async process(id: string): Promise<void> {
    const notice = await this.notices.toProcess(id);
    if (notice === null || notice.state !== 'queued') return;
    const store = await this.stores.findConnected(notice.store_id);
    if (store === null) return this.notices.settle(id, 'ignored', { summary: 'The store no longer exists.' });
    const { state, outcome } = await this.settleTopic(store, notice.topic, notice.payload);
    await this.notices.settle(id, state, outcome);
  }

  private async settleTopic(store: Store, topic: string, payload: unknown): Promise<{ state: NoticeState; outcome: NoticeOutcome }> {
    try {
      if (isOrderTopic(topic)) return await this.recordOutcomes(store, topic, payload);
      if (isProductTopic(topic)) return await this.applyProduct(store, topic, payload);
      return await this.lifecycle(store, topic, payload);
    } catch (error) {
      if (!(error instanceof PayloadError)) throw error;
      return { state: 'failed', outcome: { summary: `The notification could not be read: ${error.message}.` } };
    }
  }

  /** An order, return or exchange: its lines as events, each line's fate in the outcome. */
  private async recordOutcomes(store: Store, topic: OrderTopic, payload: unknown): Promise<{ state: NoticeState; outcome: NoticeOutcome }> {
    const outcomes = lineOutcomes(topic, payload);
    const products = await this.catalog.byExternalIds(store, [...new Set(outcomes.map((outcome) => outcome.productId))]);
    const lines: LineResult[] = [];
    const sendable: Array<{ outcome: LineOutcome; event: Record<string, unknown> }> = [];
    for (const outcome of outcomes) {
      const line = { external_id: outcome.externalId, product: outcome.productId, variant: outcome.variantId };
      const product = products.get(outcome.productId);
      const variantId = product?.variants.get(outcome.variantId);
      if (product === undefined) lines.push({ ...line, status: 'not_in_catalog' });
      else if (variantId === undefined) lines.push({ ...line, status: 'unknown_variant' });
      else sendable.push({ outcome, event: eventOf(outcome, product.id, variantId) });
    }
    let results = await this.events.recordBatch(
      store,
      sendable.map((item) => item.event),
    );
    // A session of another product, or started after the order (a property copied to another line): the purchase
    // counts, unassisted. The refused attempt stored nothing, so its external_id is free.
    const mismatched = results.flatMap((result, index) => ('error' in result && result.error.code === 'session_mismatch' ? [index] : []));
    if (mismatched.length) {
      const again = await this.events.recordBatch(
        store,
        mismatched.map((index) => ({ ...sendable[index].event, session_id: null })),
      );
      const retried = new Map(mismatched.map((index, k) => [index, again[k]]));
      results = results.map((result, index) => retried.get(index) ?? result);
    }
    results.forEach((result, index) => {
      const { outcome } = sendable[index];
      const line = { external_id: outcome.externalId, product: outcome.productId, variant: outcome.variantId };
      if ('error' in result) lines.push({ ...line, status: 'refused', code: result.error.code });
      else lines.push({ ...line, status: result.status === 201 ? 'recorded' : 'duplicate' });
    });
    const count = (status: LineResult['status']) => lines.filter((line) => line.status === status).length;
    const unmapped = lines.length - count('recorded') - count('duplicate');
    const summary =
      `${count('recorded')} of ${lines.length} line${lines.length === 1 ? '' : 's'} recorded` +
      (count('duplicate') ? `, ${count('duplicate')} already recorded` : '') +
      (unmapped ? `, ${unmapped} not recorded (see the lines)` : '') +
      '.';
    return { state: 'processed', outcome: { summary, lines } };
  }

  /** A product created, changed or deleted on the shop: the catalog brought in line (catalog-sync.service.ts). */
  private async applyProduct(store: Store, topic: ProductTopic, payload: unknown): Promise<{ state: NoticeState; outcome: NoticeOutcome }> {
    const change = productChange(topic, payload);
    if (change.deleted) {
      const removed = await this.sync.remove(store, [change.platformId]);
      const summary = removed
        ? `Product ${change.platformId} was deleted on the shop: removed from the catalog (archived where events refer to it).`
        : `Product ${change.platformId} was deleted on the shop; the catalog did not have it.`;
      return { state: 'processed', outcome: { summary } };
    }
    const { product } = change;
    const { fates, repaired } = await this.sync.apply(store, [product], null);
    const fate = fates.get(product.platformId) as ProductFate;
    const summaries: Record<ProductFate, string> = {
      in_catalog: repaired
        ? 'in the catalog, its variants brought in line with the shop’s.'
        : 'in the catalog, its variants already in line with the shop’s.',
      needs_chart: 'kept; it needs a chart before the catalog has it.',
      skipped: 'kept and skipped: it has no size option.',
      older: 'older than what is kept (delivered out of order): nothing changed.',
      deleted: 'deleted on the shop already: nothing changed.',
    };
    return { state: 'processed', outcome: { summary: `Product ${product.platformId}: ${summaries[fate]}` } };
  }

  /** Uninstall and the privacy requests the platform makes of every app. */
  private async lifecycle(store: Store, topic: string, payload: unknown): Promise<{ state: NoticeState; outcome: NoticeOutcome }> {
    switch (topic) {
      case 'app/uninstalled':
        await this.transactions.run(async (manager) => {
          await this.connections.delete(manager, store.id);
          await this.stores.clearPlatform(manager, store.id);
        });
        return { state: 'processed', outcome: { summary: 'The app was uninstalled: the connection and its token are removed.' } };
      case 'customers/redact': {
        const customer = customerOf(payload);
        await this.sessions.forgetShopper(store, customer);
        return {
          state: 'processed',
          outcome: {
            summary: 'The customer’s link to her sessions and what her outcomes taught were erased; her orders count on, unnamed.',
          },
        };
      }
      case 'customers/data_request':
        customerOf(payload);
        return {
          state: 'processed',
          outcome: {
            summary:
              'A customer asked for her data. Size-Fit keeps no name, email or address: only a keyed digest of her customer id, ' +
              'her fit sessions and their outcomes, which the store’s events list shows.',
          },
        };
      default: // shop/redact
        await this.transactions.run(async (manager) => {
          await this.notices.deleteOfStore(manager, store.id);
          await this.imports.deleteOfStore(manager, store.id);
        });
        return {
          state: 'processed',
          outcome: { summary: 'The shop asked for its data to be erased: its notifications and imported products were deleted.' },
        };
    }
  }
}

/** The event an order line's outcome becomes, in the events API's own shape (read by the same rules). */
function eventOf(outcome: LineOutcome, productId: string, variantId: string): Record<string, unknown> {
  return {
    source: PLATFORM_SOURCE,
    external_id: outcome.externalId,
    type: outcome.type,
    product_id: productId,
    variant_id: variantId,
    session_id: outcome.sessionId,
    order_id: outcome.orderId,
    line_item_id: outcome.lineItemId,
    quantity: outcome.quantity,
    occurred_at: outcome.occurredAt,
    ...(outcome.type === 'purchase'
      ? outcome.customerId === null
        ? {}
        : { shopper_ref: outcome.customerId }
      : { reason: outcome.reason, ...(outcome.reason === 'size' && outcome.fitFeedback ? { fit_feedback: outcome.fitFeedback } : {}) }),
  };
}
