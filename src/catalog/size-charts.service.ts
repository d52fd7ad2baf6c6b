import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { CatalogReferences } from './catalog-references.js';
import { type MeasurementType, Product, SizeChart, type SizeDefinition, Variant } from './catalog.entities.js';
import { inUse } from './catalog-errors.js';
import { type Removal, removeOrArchive } from '../common/http/removal.js';
import { type CreateSizeChartRequest, SizeChartResponse, type UpdateSizeChartRequest } from './dto/size-chart.dto.js';
import { transaction } from '../database/transactions.js';

@Injectable()
export class SizeChartsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly references: CatalogReferences,
  ) {}

  async create(store: Store, request: CreateSizeChartRequest): Promise<SizeChartResponse> {
    const id = newId();
    await this.dataSource.manager.insert(SizeChart, {
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
    return paginate(queryInStore(this.dataSource.manager, SizeChart, 'chart', store), page, SizeChartResponse.from);
  }

  async get(store: Store, id: string): Promise<SizeChartResponse> {
    return SizeChartResponse.from(await findInStore(this.dataSource.manager, SizeChart, store, id, 'size chart'));
  }

  /** `sizes` replaces every size; a label that variants use must stay. */
  async update(store: Store, id: string, request: UpdateSizeChartRequest): Promise<SizeChartResponse> {
    await transaction(this.dataSource, async (manager) => {
      const chart = await findInStore(manager, SizeChart, store, id, 'size chart', { lock: true });
      const measurementType = request.measurement_type ?? chart.measurementType;
      const changes: Partial<SizeChart> = {
        ...(request.name !== undefined ? { name: request.name } : {}),
        ...(request.unit !== undefined ? { unit: request.unit } : {}),
        measurementType,
        easeCm: easeFor(measurementType, request.ease_cm ?? (measurementType === chart.measurementType ? chart.easeCm : undefined)),
      };
      if (request.sizes !== undefined) {
        await refuseDroppedLabels(manager, chart, request.sizes);
        changes.sizes = request.sizes;
      }
      await manager.update(SizeChart, { id: chart.id }, changes);
    });
    return this.get(store, id);
  }

  /**
   * A chart that active products use cannot go (409 `in_use`); one that sessions or archived products still refer
   * to is archived; otherwise it is deleted.
   */
  async delete(store: Store, id: string): Promise<Removal<SizeChartResponse>> {
    return transaction(this.dataSource, async (manager) => {
      const chart = await findInStore(manager, SizeChart, store, id, 'size chart', { lock: true });
      if (await manager.existsBy(Product, { sizeChartId: chart.id, archivedAt: IsNull() })) {
        throw inUse('Products use this size chart; give them another chart or delete them first');
      }
      const referred =
        (await manager.existsBy(Product, { sizeChartId: chart.id })) ||
        (await this.references.isReferenced(manager, 'size_chart', chart.id));
      return removeOrArchive(manager, SizeChart, chart, referred, SizeChartResponse.from);
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

async function refuseDroppedLabels(manager: EntityManager, chart: SizeChart, sizes: SizeDefinition[]): Promise<void> {
  const kept = new Set(sizes.map((size) => size.label));
  const used = await manager
    .createQueryBuilder(Variant, 'variant')
    .innerJoin(Product, 'product', 'product.id = variant.product_id')
    .select('DISTINCT variant.size_label', 'label')
    .where('product.size_chart_id = :chartId', { chartId: chart.id })
    .getRawMany<{ label: string }>();
  const dropped = used.map((row) => row.label).filter((label) => !kept.has(label));
  if (dropped.length) {
    throw ProblemError.field(
      'sizes',
      'label_in_use',
      `variants use the label${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')}; keep them or change those variants`,
    );
  }
}
