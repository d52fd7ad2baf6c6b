import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { FIT_ADJUSTMENTS, type FitAdjustment } from '../../sizing/types.js';
import type { Product, Variant } from '../catalog.entities.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

const idMessage = (field: string) => ({ message: `${field} must be an id` });
const PRODUCT_EXTERNAL_ID = 'gid://shopify/Product/8123456789012';
const VARIANT_EXTERNAL_ID = 'gid://shopify/ProductVariant/44123456789012';
const SKU = 'CREW-NVY-M';
const VARIANT_TITLE = 'Navy / M';
const FIT_ADJUSTMENT_DOC = {
  enum: FIT_ADJUSTMENTS,
  example: 'true_to_size',
  description: 'How the product runs against its chart: runs_small moves shoppers up, runs_large down.',
} as const;

export class CreateProductRequest {
  @ApiPropertyOptional({
    description: "The platform's id, unique in the store.",
    maxLength: 255,
    nullable: true,
    type: String,
    example: PRODUCT_EXTERNAL_ID,
  })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiProperty({ example: 'Classic crew tee', maxLength: 500 })
  @IsText(500)
  title: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.productType })
  @IsUUID('all', idMessage('product_type_id'))
  product_type_id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.sizeChart })
  @IsUUID('all', idMessage('size_chart_id'))
  size_chart_id: string;

  @ApiPropertyOptional({ ...FIT_ADJUSTMENT_DOC, default: 'true_to_size' })
  @IsOmittable()
  @IsIn(FIT_ADJUSTMENTS, { message: `fit_adjustment must be one of ${FIT_ADJUSTMENTS.join(', ')}` })
  fit_adjustment?: FitAdjustment;
}

export class UpdateProductRequest {
  @ApiPropertyOptional({ maxLength: 255, nullable: true, type: String, description: '`null` removes it.', example: PRODUCT_EXTERNAL_ID })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ maxLength: 500, example: 'Classic crew tee' })
  @IsOmittable()
  @IsText(500)
  title?: string;

  @ApiPropertyOptional({ format: 'uuid', example: EXAMPLE_ID.productType })
  @IsOmittable()
  @IsUUID('all', idMessage('product_type_id'))
  product_type_id?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "Every variant's size_label must be a label of the new chart.",
    example: EXAMPLE_ID.sizeChart,
  })
  @IsOmittable()
  @IsUUID('all', idMessage('size_chart_id'))
  size_chart_id?: string;

  @ApiPropertyOptional(FIT_ADJUSTMENT_DOC)
  @IsOmittable()
  @IsIn(FIT_ADJUSTMENTS, { message: `fit_adjustment must be one of ${FIT_ADJUSTMENTS.join(', ')}` })
  fit_adjustment?: FitAdjustment;
}

export class ProductListQuery extends PageQuery {
  @ApiPropertyOptional({ description: "Only the product with this platform id (the platform's product id).", example: PRODUCT_EXTERNAL_ID })
  @IsOmittable()
  @IsText(255)
  external_id?: string;
}

/** What the console's product list narrows to: words of the title or platform id, a type, a chart. Active products only. */
export interface ProductSearch {
  readonly text?: string;
  readonly product_type_id?: string;
  readonly size_chart_id?: string;
}

export class ProductResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ nullable: true, type: String, example: PRODUCT_EXTERNAL_ID })
  external_id: string | null;

  @ApiProperty({ example: 'Classic crew tee' })
  title: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.productType })
  product_type_id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.sizeChart })
  size_chart_id: string;

  @ApiProperty(FIT_ADJUSTMENT_DOC)
  fit_adjustment: FitAdjustment;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.', example: null })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  updated_at: string;

  static from(this: void, product: Product): ProductResponse {
    return {
      id: product.id,
      store_id: product.storeId,
      external_id: product.externalId,
      title: product.title,
      product_type_id: product.productTypeId,
      size_chart_id: product.sizeChartId,
      fit_adjustment: product.fitAdjustment,
      archived_at: product.archivedAt?.toISOString() ?? null,
      created_at: product.createdAt.toISOString(),
      updated_at: product.updatedAt.toISOString(),
    };
  }
}

export class CreateVariantRequest {
  @ApiProperty({ example: 'M', description: "A label of the product's size chart." })
  @IsText(50)
  size_label: string;

  @ApiPropertyOptional({
    description: "The platform's variant id, unique in the store.",
    nullable: true,
    type: String,
    example: VARIANT_EXTERNAL_ID,
  })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 255, example: SKU })
  @IsOptional()
  @IsText(255)
  sku?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500, example: VARIANT_TITLE })
  @IsOptional()
  @IsText(500)
  title?: string | null;
}

export class UpdateVariantRequest {
  @ApiPropertyOptional({ description: "A label of the product's size chart.", example: 'M' })
  @IsOmittable()
  @IsText(50)
  size_label?: string;

  @ApiPropertyOptional({ nullable: true, type: String, description: '`null` removes it.', example: VARIANT_EXTERNAL_ID })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: SKU })
  @IsOptional()
  @IsText(255)
  sku?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: VARIANT_TITLE })
  @IsOptional()
  @IsText(500)
  title?: string | null;
}

export class VariantResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.variant })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.product })
  product_id: string;

  @ApiProperty({ nullable: true, type: String, example: VARIANT_EXTERNAL_ID })
  external_id: string | null;

  @ApiProperty({ example: 'M' })
  size_label: string;

  @ApiProperty({ nullable: true, type: String, example: SKU })
  sku: string | null;

  @ApiProperty({ nullable: true, type: String, example: VARIANT_TITLE })
  title: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.', example: null })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  updated_at: string;

  static from(this: void, variant: Variant): VariantResponse {
    return {
      id: variant.id,
      product_id: variant.productId,
      external_id: variant.externalId,
      size_label: variant.sizeLabel,
      sku: variant.sku,
      title: variant.title,
      archived_at: variant.archivedAt?.toISOString() ?? null,
      created_at: variant.createdAt.toISOString(),
      updated_at: variant.updatedAt.toISOString(),
    };
  }
}
