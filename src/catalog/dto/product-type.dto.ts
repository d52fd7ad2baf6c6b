import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { ValidateWith } from '../../common/validation/validate-with.js';
import { ZONES, type ZoneWeights } from '../../sizing/types.js';
import { CATEGORIES, type Category, type ProductType } from '../catalog.entities.js';
import { checkZoneWeights } from '../catalog-rules.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

const ZONE_WEIGHTS_DOC: ApiPropertyOptions = {
  type: 'object',
  properties: Object.fromEntries(ZONES.map((zone) => [zone, { type: 'number', minimum: 0, maximum: 10 }])),
  additionalProperties: false,
  example: { chest: 1, waist: 0.5 },
  description: `Which body zones matter for the fit, and how much (0–10). Zones: ${ZONES.join(', ')}.`,
};

export class CreateProductTypeRequest {
  @ApiProperty({ example: 'T-shirt', maxLength: 200 })
  @IsText()
  name: string;

  @ApiProperty({ enum: CATEGORIES, example: 'tops' })
  @IsIn(CATEGORIES, { message: `category must be one of ${CATEGORIES.join(', ')}` })
  category: Category;

  @ApiProperty(ZONE_WEIGHTS_DOC)
  @ValidateWith(checkZoneWeights)
  zone_weights: ZoneWeights;
}

export class UpdateProductTypeRequest {
  @ApiPropertyOptional({ maxLength: 200, example: 'T-shirt' })
  @IsOmittable()
  @IsText()
  name?: string;

  @ApiPropertyOptional({ enum: CATEGORIES, example: 'tops' })
  @IsOmittable()
  @IsIn(CATEGORIES, { message: `category must be one of ${CATEGORIES.join(', ')}` })
  category?: Category;

  @ApiPropertyOptional(ZONE_WEIGHTS_DOC)
  @IsOmittable()
  @ValidateWith(checkZoneWeights)
  zone_weights?: ZoneWeights;
}

export class ProductTypeResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.productType })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ example: 'T-shirt' })
  name: string;

  @ApiProperty({ enum: CATEGORIES, example: 'tops' })
  category: Category;

  @ApiProperty(ZONE_WEIGHTS_DOC)
  zone_weights: ZoneWeights;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  updated_at: string;

  static from(this: void, type: ProductType): ProductTypeResponse {
    return {
      id: type.id,
      store_id: type.storeId,
      name: type.name,
      category: type.category,
      zone_weights: type.zoneWeights,
      created_at: type.createdAt.toISOString(),
      updated_at: type.updatedAt.toISOString(),
    };
  }
}
