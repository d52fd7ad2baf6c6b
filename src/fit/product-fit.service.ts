import { Injectable } from '@nestjs/common';
import { CatalogLookups } from '../catalog/catalog-lookups.service.js';
import { LearningService } from '../learning/learning.service.js';
import type { SizeOutcomes } from '../learning/order-lines.js';
import type { Store } from '../stores/store.entity.js';
import {
  type FitDirection,
  type LearnedFitResponse,
  type ProductFitItemResponse,
  type ProductFitListQuery,
  type ProductFitListResponse,
  type ProductFitResponse,
  type SizeOutcomesResponse,
} from './dto/product-fit.dto.js';
import { type LearnedOffset, learnedOffset, learnedOffsets } from '../sizing/learning.js';

/** Within this many size steps either side of zero, a product is true to size. */
const TRUE_TO_SIZE_STEPS = 0.25;

const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;
const rate = (part: number, whole: number) => (whole === 0 ? null : round(part / whole, 3));

/** How a product fits, from its learned offset's 95% interval. */
function fitDirection(offset: Pick<LearnedOffset, 'low' | 'high'>): FitDirection {
  if (offset.low > 0) return 'runs_small';
  if (offset.high < 0) return 'runs_large';
  if (offset.low >= -TRUE_TO_SIZE_STEPS && offset.high <= TRUE_TO_SIZE_STEPS) return 'true_to_size';
  return 'uncertain';
}

const presentOffset = (offset: LearnedOffset, imported: number): LearnedFitResponse => ({
  size_steps: round(offset.steps, 2),
  sd: round(offset.sd, 2),
  low: round(offset.low, 2),
  high: round(offset.high, 2),
  outcomes: offset.count,
  imported_outcomes: imported,
  evidence_weight: round(offset.evidence, 1),
});

/**
 * What the store's outcomes taught about how its products fit: the learned offset the fit flow uses, the counts behind
 * it, and the store's products ranked by the evidence that they run small or large. Never across stores: every read
 * is of the path's store.
 */
@Injectable()
export class ProductFitService {
  constructor(
    private readonly evidence: LearningService,
    private readonly catalog: CatalogLookups,
  ) {}

  async forProduct(store: Store, productId: string): Promise<ProductFitResponse> {
    const product = await this.catalog.productWithSizes(store, productId);
    const [levels, sizes, imported] = await Promise.all([
      this.evidence.currentLevels(store.id, product.id, product.productTypeId),
      this.evidence.sizeOutcomes(store.id, product.id),
      this.evidence.importedOutcomes(store.id, product.id),
    ]);
    const now = new Date();
    const offset = learnedOffset(levels, now);
    return {
      product_id: product.id,
      title: product.title,
      direction: fitDirection(offset),
      learned: presentOffset(offset, imported),
      sizes: inChartOrder(product.labels, sizes),
      computed_at: now.toISOString(),
    };
  }

  async ranked(store: Store, query: ProductFitListQuery): Promise<ProductFitListResponse> {
    const wanted = (d: FitDirection) => (query.direction ? d === query.direction : d === 'runs_small' || d === 'runs_large');
    return this.learnedFor(store, wanted, query.limit ?? 20);
  }

  /** Every product of the store with outcomes, strongest evidence first (the console's table). */
  everyProduct(store: Store): Promise<ProductFitListResponse> {
    return this.learnedFor(store, () => true, Infinity);
  }

  private async learnedFor(store: Store, wanted: (direction: FitDirection) => boolean, limit: number): Promise<ProductFitListResponse> {
    const [{ products, types, store: storeSums }, imported] = await Promise.all([
      this.evidence.storeEvidence(store.id),
      this.evidence.storeImportedOutcomes(store.id),
    ]);
    const now = new Date();
    // each level learned once: the list is linear in the store's products
    const offsets = learnedOffsets(storeSums, types, products, now);
    const learned = products.map((p, i) => ({ productId: p.productId, offset: offsets[i], direction: fitDirection(offsets[i]) }));
    const strength = (o: LearnedOffset) => Math.abs(o.steps) / Math.max(o.sd, 1e-9);
    const top = learned
      .filter((l) => wanted(l.direction))
      .sort((a, b) => strength(b.offset) - strength(a.offset) || (a.productId < b.productId ? -1 : 1))
      .slice(0, limit);
    const titles = await this.catalog.titles(
      store,
      top.map((l) => l.productId),
    );
    const data: ProductFitItemResponse[] = top.map((l) => ({
      product_id: l.productId,
      title: titles.get(l.productId) ?? '',
      direction: l.direction,
      learned: presentOffset(l.offset, imported.get(l.productId) ?? 0),
    }));
    return { data, computed_at: now.toISOString() };
  }
}

/** The chart's sizes in its order (with zero counts where nothing happened), then labels no longer on the chart. */
function inChartOrder(labels: readonly string[], rows: readonly SizeOutcomes[]): SizeOutcomesResponse[] {
  const byLabel = new Map(rows.map((r) => [r.size_label, r]));
  const empty = (size_label: string): SizeOutcomes => ({
    size_label,
    purchased: 0,
    kept: 0,
    size_returns: 0,
    size_exchanges: 0,
    too_small: 0,
    too_large: 0,
  });
  const ordered = [...labels.map((l) => byLabel.get(l) ?? empty(l)), ...rows.filter((r) => !labels.includes(r.size_label))];
  return ordered.map((r) => ({
    ...r,
    size_return_rate: rate(r.size_returns, r.purchased),
    size_exchange_rate: rate(r.size_exchanges, r.purchased),
  }));
}
