import { Column, Entity } from 'typeorm';
import { StoreOwned } from '../common/tenancy/store-owned.entity.js';
import type { FitAdjustment, Zone, ZoneWeights } from '../sizing/types.js';

export const CATEGORIES = ['tops', 'bottoms', 'dresses', 'outerwear', 'shoes', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

export const LENGTH_UNITS = ['cm', 'in'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];

export const MEASUREMENT_TYPES = ['body', 'garment'] as const;
export type MeasurementType = (typeof MEASUREMENT_TYPES)[number];

/** One size of a chart, in the chart's unit, as the merchant wrote it. */
export interface SizeDefinition {
  label: string;
  measurements: Partial<Record<Zone, { min: number; max: number }>>;
}

@Entity({ name: 'product_types' })
export class ProductType extends StoreOwned {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  category: Category;

  @Column({ type: 'jsonb', name: 'zone_weights' })
  zoneWeights: ZoneWeights;
}

@Entity({ name: 'size_charts' })
export class SizeChart extends StoreOwned {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  unit: LengthUnit;

  @Column({ type: 'text', name: 'measurement_type' })
  measurementType: MeasurementType;

  @Column({ type: 'double precision', name: 'ease_cm', nullable: true })
  easeCm: number | null;

  @Column({ type: 'jsonb' })
  sizes: SizeDefinition[];

  @Column({ type: 'timestamptz', name: 'archived_at', nullable: true })
  archivedAt: Date | null;
}

@Entity({ name: 'products' })
export class Product extends StoreOwned {
  @Column({ type: 'text', name: 'external_id', nullable: true })
  externalId: string | null;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'uuid', name: 'product_type_id' })
  productTypeId: string;

  @Column({ type: 'uuid', name: 'size_chart_id' })
  sizeChartId: string;

  @Column({ type: 'text', name: 'fit_adjustment' })
  fitAdjustment: FitAdjustment;

  @Column({ type: 'timestamptz', name: 'archived_at', nullable: true })
  archivedAt: Date | null;
}

@Entity({ name: 'variants' })
export class Variant extends StoreOwned {
  @Column({ type: 'uuid', name: 'product_id' })
  productId: string;

  @Column({ type: 'text', name: 'external_id', nullable: true })
  externalId: string | null;

  @Column({ type: 'text', name: 'size_label' })
  sizeLabel: string;

  @Column({ type: 'text', nullable: true })
  sku: string | null;

  @Column({ type: 'text', nullable: true })
  title: string | null;

  @Column({ type: 'timestamptz', name: 'archived_at', nullable: true })
  archivedAt: Date | null;
}

/** The entities of the catalog, registered by its module. */
export const CATALOG_ENTITIES = [ProductType, SizeChart, Product, Variant];
