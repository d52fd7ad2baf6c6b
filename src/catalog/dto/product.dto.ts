import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { FIT_ADJUSTMENTS, type FitAdjustment } from '../../fit/engine/types.js';
import type { Product, Variant } from '../catalog.entities.js';

const idMessage = (field: string) => ({ message: `${field} must be an id` });
const FIT_ADJUSTMENT_DOC = {
  enum: FIT_ADJUSTMENTS,
  description: 'How the product runs against its chart: runs_small moves shoppers up, runs_large down.',
} as const;

export class CreateProductRequest {
  @ApiPropertyOptional({ description: "The platform's id, unique in the store.", maxLength: 255, nullable: true, type: String })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiProperty({ example: 'Classic crew tee', maxLength: 500 })
  @IsText(500)
  title: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', idMessage('product_type_id'))
  product_type_id: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', idMessage('size_chart_id'))
  size_chart_id: string;

  @ApiPropertyOptional({ ...FIT_ADJUSTMENT_DOC, default: 'true_to_size' })
  @IsOmittable()
  @IsIn(FIT_ADJUSTMENTS, { message: `fit_adjustment must be one of ${FIT_ADJUSTMENTS.join(', ')}` })
  fit_adjustment?: FitAdjustment;
}

export class UpdateProductRequest {
  @ApiPropertyOptional({ maxLength: 255, nullable: true, type: String, description: '`null` removes it.' })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOmittable()
  @IsText(500)
  title?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID('all', idMessage('product_type_id'))
  product_type_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Every variant's size_label must be a label of the new chart." })
  @IsOmittable()
  @IsUUID('all', idMessage('size_chart_id'))
  size_chart_id?: string;

  @ApiPropertyOptional(FIT_ADJUSTMENT_DOC)
  @IsOmittable()
  @IsIn(FIT_ADJUSTMENTS, { message: `fit_adjustment must be one of ${FIT_ADJUSTMENTS.join(', ')}` })
  fit_adjustment?: FitAdjustment;
}

export class ProductListQuery extends PageQuery {
  @ApiPropertyOptional({ description: "Only the product with this platform id (the platform's product id)." })
  @IsOmittable()
  @IsText(255)
  external_id?: string;
}

export class ProductResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  store_id: string;

  @ApiProperty({ nullable: true, type: String })
  external_id: string | null;

  @ApiProperty()
  title: string;

  @ApiProperty({ format: 'uuid' })
  product_type_id: string;

  @ApiProperty({ format: 'uuid' })
  size_chart_id: string;

  @ApiProperty(FIT_ADJUSTMENT_DOC)
  fit_adjustment: FitAdjustment;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.' })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
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

  @ApiPropertyOptional({ description: "The platform's variant id, unique in the store.", nullable: true, type: String })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 255 })
  @IsOptional()
  @IsText(255)
  sku?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500 })
  @IsOptional()
  @IsText(500)
  title?: string | null;
}

export class UpdateVariantRequest {
  @ApiPropertyOptional({ description: "A label of the product's size chart." })
  @IsOmittable()
  @IsText(50)
  size_label?: string;

  @ApiPropertyOptional({ nullable: true, type: String, description: '`null` removes it.' })
  @IsOptional()
  @IsText(255)
  external_id?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsText(255)
  sku?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsText(500)
  title?: string | null;
}

export class VariantResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  product_id: string;

  @ApiProperty({ nullable: true, type: String })
  external_id: string | null;

  @ApiProperty()
  size_label: string;

  @ApiProperty({ nullable: true, type: String })
  sku: string | null;

  @ApiProperty({ nullable: true, type: String })
  title: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.' })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
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
