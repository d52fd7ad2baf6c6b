import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNumber, Max, Min } from 'class-validator';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { ValidateWith } from '../../common/validation/validate-with.js';
import { ZONES } from '../../sizing/types.js';
import {
  LENGTH_UNITS,
  type LengthUnit,
  MEASUREMENT_TYPES,
  type MeasurementType,
  type SizeChart,
  type SizeDefinition,
} from '../catalog.entities.js';
import { checkSizes } from '../catalog-rules.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

const SIZES_DOC: ApiPropertyOptions = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      label: { type: 'string', example: 'M' },
      measurements: {
        type: 'object',
        properties: Object.fromEntries(
          ZONES.map((zone) => [
            zone,
            { type: 'object', properties: { min: { type: 'number' }, max: { type: 'number' } }, required: ['min', 'max'] },
          ]),
        ),
        additionalProperties: false,
        example: { chest: { min: 96, max: 104 }, waist: { min: 80, max: 88 } },
      },
    },
    required: ['label', 'measurements'],
  },
  example: [
    { label: 'S', measurements: { chest: { min: 88, max: 96 }, waist: { min: 72, max: 80 } } },
    { label: 'M', measurements: { chest: { min: 96, max: 104 }, waist: { min: 80, max: 88 } } },
    { label: 'L', measurements: { chest: { min: 104, max: 112 }, waist: { min: 88, max: 96 } } },
  ],
  description:
    `Smallest size first, 1–50 sizes, unique labels. Each size maps zones (${ZONES.join(', ')}) to a range in ` +
    'the chart unit with min < max; from one size to the next a zone never gets smaller.',
};

const EASE_DOC: ApiPropertyOptions = {
  description: 'Garment charts only (required there): the room the garment adds over the body, in cm.',
  minimum: 0,
  maximum: 50,
  example: 6,
};

export class CreateSizeChartRequest {
  @ApiProperty({ example: "Men's tops", maxLength: 200 })
  @IsText()
  name: string;

  @ApiProperty({ enum: LENGTH_UNITS, example: 'cm' })
  @IsIn(LENGTH_UNITS, { message: `unit must be one of ${LENGTH_UNITS.join(', ')}` })
  unit: LengthUnit;

  @ApiProperty({
    enum: MEASUREMENT_TYPES,
    description: 'body: ranges of body measurements; garment: of the garment.',
    example: 'garment',
  })
  @IsIn(MEASUREMENT_TYPES, { message: `measurement_type must be one of ${MEASUREMENT_TYPES.join(', ')}` })
  measurement_type: MeasurementType;

  @ApiPropertyOptional({ ...EASE_DOC, type: Number, nullable: true })
  @IsOmittable()
  @Max(50)
  @Min(0)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'ease_cm must be a number of centimetres' })
  ease_cm?: number;

  @ApiProperty(SIZES_DOC)
  @ValidateWith(checkSizes)
  sizes: SizeDefinition[];
}

export class UpdateSizeChartRequest {
  @ApiPropertyOptional({ maxLength: 200, example: "Men's tops" })
  @IsOmittable()
  @IsText()
  name?: string;

  @ApiPropertyOptional({ enum: LENGTH_UNITS, example: 'cm' })
  @IsOmittable()
  @IsIn(LENGTH_UNITS, { message: `unit must be one of ${LENGTH_UNITS.join(', ')}` })
  unit?: LengthUnit;

  @ApiPropertyOptional({ enum: MEASUREMENT_TYPES, example: 'garment' })
  @IsOmittable()
  @IsIn(MEASUREMENT_TYPES, { message: `measurement_type must be one of ${MEASUREMENT_TYPES.join(', ')}` })
  measurement_type?: MeasurementType;

  @ApiPropertyOptional({ ...EASE_DOC, type: Number, nullable: true })
  @IsOmittable()
  @Max(50)
  @Min(0)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'ease_cm must be a number of centimetres' })
  ease_cm?: number;

  @ApiPropertyOptional({ ...SIZES_DOC, description: `${SIZES_DOC.description} Replaces every size.` })
  @IsOmittable()
  @ValidateWith(checkSizes)
  sizes?: SizeDefinition[];
}

export class SizeChartResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.sizeChart })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ example: "Men's tops" })
  name: string;

  @ApiProperty({ enum: LENGTH_UNITS, example: 'cm' })
  unit: LengthUnit;

  @ApiProperty({ enum: MEASUREMENT_TYPES, example: 'garment' })
  measurement_type: MeasurementType;

  @ApiProperty({ ...EASE_DOC, type: Number, nullable: true })
  ease_cm: number | null;

  @ApiProperty(SIZES_DOC)
  sizes: SizeDefinition[];

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.', example: null })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.updated })
  updated_at: string;

  static from(this: void, chart: SizeChart): SizeChartResponse {
    return {
      id: chart.id,
      store_id: chart.storeId,
      name: chart.name,
      unit: chart.unit,
      measurement_type: chart.measurementType,
      ease_cm: chart.easeCm,
      sizes: chart.sizes,
      archived_at: chart.archivedAt?.toISOString() ?? null,
      created_at: chart.createdAt.toISOString(),
      updated_at: chart.updatedAt.toISOString(),
    };
  }
}
