import { Injectable } from '@nestjs/common';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { Store } from '../stores/store.entity.js';
import { CatalogReferences } from './catalog-references.js';
import type { MeasurementType, SizeChart, SizeDefinition } from './catalog.entities.js';
import { inUse } from './catalog-errors.js';
import { firstMisfit, unstatedZonesMessage } from './catalog-rules.js';
import type { ZoneWeights } from '../sizing/types.js';
import type { Removal } from '../common/http/removal.js';
import { type CreateSizeChartRequest, SizeChartResponse, type UpdateSizeChartRequest } from './dto/size-chart.dto.js';
import { Transactions } from '../database/transactions.js';
import { ProductsRepository } from './products.repository.js';
import { SizeChartsRepository } from './size-charts.repository.js';

@Injectable()
export class SizeChartsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly charts: SizeChartsRepository,
    private readonly products: ProductsRepository,
    private readonly references: CatalogReferences,
  ) {}

  async create(store: Store, request: CreateSizeChartRequest): Promise<SizeChartResponse> {
    const id = newId();
    await this.charts.insert({
      id,
      merchantId: store.merchantId,
      storeId: store.id,
      name: request.name,
      unit: request.unit,
      measurementType: request.measurement_type,
      easeCm: easeFor(request.measurement_type, request.ease_cm),
      sizes: request.sizes,
      archivedAt: null,
    });
    return this.get(store, id);
  }

  list(store: Store, page: PageQuery): Promise<Page<SizeChartResponse>> {
    return this.charts.list(store, page, SizeChartResponse.from);
  }

  async get(store: Store, id: string): Promise<SizeChartResponse> {
    return SizeChartResponse.from(await this.charts.get(store, id));
  }

  /** `sizes` replaces every size; a label that variants use must stay. */
  async update(store: Store, id: string, request: UpdateSizeChartRequest): Promise<SizeChartResponse> {
    await this.transactions.run(async (manager) => {
      const chart = await this.charts.lock(manager, store, id);
      const measurementType = request.measurement_type ?? chart.measurementType;
      const changes: Partial<SizeChart> = {
        ...(request.name !== undefined ? { name: request.name } : {}),
        ...(request.unit !== undefined ? { unit: request.unit } : {}),
        measurementType,
        easeCm: easeFor(measurementType, request.ease_cm ?? (measurementType === chart.measurementType ? chart.easeCm : undefined)),
      };
      if (request.sizes !== undefined) {
        refuseDroppedLabels(await this.products.sizeLabelsOnChart(manager, chart.id), request.sizes);
        refuseUnstatedZones(await this.products.activeWithChart(manager, chart.id), request.sizes);
        changes.sizes = request.sizes;
      }
      await this.charts.update(manager, chart.id, changes);
    });
    return this.get(store, id);
  }

  /**
   * A chart that active products use cannot go (409 `in_use`); one that sessions or archived products still refer
   * to is archived; otherwise it is deleted.
   */
  async delete(store: Store, id: string): Promise<Removal<SizeChartResponse>> {
    return this.transactions.run(async (manager) => {
      const chart = await this.charts.lock(manager, store, id);
      if (await this.products.existActiveWithChart(manager, chart.id)) {
        throw inUse('Products use this size chart; give them another chart or delete them first');
      }
      const referred =
        (await this.products.existWithChart(manager, chart.id)) || (await this.references.isReferenced(manager, 'size_chart', chart.id));
      return this.charts.removeOrArchive(manager, chart, referred, SizeChartResponse.from);
    });
  }
}

/** Garment charts need an ease; body charts have none. */
function easeFor(type: MeasurementType, easeCm: number | null | undefined): number | null {
  if (type === 'body') {
    if (easeCm !== undefined && easeCm !== null) {
      throw ProblemError.field('ease_cm', 'garment_only', 'ease_cm applies to garment charts only');
    }
    return null;
  }
  if (easeCm === undefined || easeCm === null) {
    throw ProblemError.field('ease_cm', 'required', 'a garment chart needs ease_cm: the room the garment adds over the body');
  }
  return easeCm;
}

/** New sizes must state every zone the types of the chart's active products weigh: 400 `zones_not_in_chart` on `sizes`. */
function refuseUnstatedZones(products: { title: string; zone_weights: ZoneWeights }[], sizes: SizeDefinition[]): void {
  const misfit = firstMisfit(products.map((product) => ({ title: product.title, weights: product.zone_weights, sizes })));
  if (!misfit) return;
  const type = `the product type of ${JSON.stringify(misfit.title)}${misfit.others ? ' (and of other products on this chart)' : ''}`;
  throw ProblemError.field('sizes', 'zones_not_in_chart', unstatedZonesMessage(misfit.zones, 'the chart as edited', type));
}

/** `used`: the labels that variants of the chart's products use. */
function refuseDroppedLabels(used: string[], sizes: SizeDefinition[]): void {
  const kept = new Set(sizes.map((size) => size.label));
  const dropped = used.filter((label) => !kept.has(label));
  if (dropped.length) {
    throw ProblemError.field(
      'sizes',
      'label_in_use',
      `variants use the label${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')}; keep them or change those variants`,
    );
  }
}
