import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { IsOmittable } from '../../common/validation/omittable.js';
import { CURRENCIES, PLATFORMS, type Platform, type Store, UNIT_SYSTEMS, type UnitSystem } from '../store.entity.js';

/** Malformed (`eur`) is `invalid_format`; well formed but no currency (`ZZZ`) is `not_allowed_value`. */
const CURRENCY_MESSAGE = 'currency must be an ISO 4217 code such as EUR';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export class CreateStoreRequest {
  @ApiProperty({ example: 'Acme EU', maxLength: 200 })
  @Matches(/\S/, { message: 'name must not be blank' })
  @Length(1, 200)
  @IsString()
  name: string;

  @ApiPropertyOptional({ description: 'An ISO 4217 code of a currency in use.', example: 'EUR', default: 'USD' })
  @IsOmittable()
  @IsIn(CURRENCIES, { message: CURRENCY_MESSAGE })
  @Matches(/^[A-Z]{3}$/, { message: CURRENCY_MESSAGE })
  @IsString()
  currency?: string;

  @ApiPropertyOptional({ enum: UNIT_SYSTEMS, default: 'metric', example: 'metric' })
  @IsOmittable()
  @IsIn(UNIT_SYSTEMS, { message: `unit_system must be one of ${UNIT_SYSTEMS.join(', ')}` })
  unit_system?: UnitSystem;
}

export class UpdateStoreRequest {
  @ApiPropertyOptional({ maxLength: 200, example: 'Acme EU' })
  @IsOmittable()
  @Matches(/\S/, { message: 'name must not be blank' })
  @Length(1, 200)
  @IsString()
  name?: string;

  @ApiPropertyOptional({ description: 'An ISO 4217 code of a currency in use.', example: 'EUR' })
  @IsOmittable()
  @IsIn(CURRENCIES, { message: CURRENCY_MESSAGE })
  @Matches(/^[A-Z]{3}$/, { message: CURRENCY_MESSAGE })
  @IsString()
  currency?: string;

  @ApiPropertyOptional({ enum: UNIT_SYSTEMS, example: 'metric' })
  @IsOmittable()
  @IsIn(UNIT_SYSTEMS, { message: `unit_system must be one of ${UNIT_SYSTEMS.join(', ')}` })
  unit_system?: UnitSystem;
}

export class StoreResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  id: string;

  @ApiProperty({ example: 'Acme EU' })
  name: string;

  @ApiProperty({ example: 'EUR' })
  currency: string;

  @ApiProperty({ enum: UNIT_SYSTEMS, example: 'metric' })
  unit_system: UnitSystem;

  // OpenAPI 3.0: `nullable` admits null only where the enum lists it too.
  @ApiProperty({
    enum: [...PLATFORMS, null],
    nullable: true,
    type: String,
    description: 'Set by connecting the store in the console.',
    example: 'shopify',
  })
  platform: Platform | null;

  @ApiProperty({ nullable: true, type: String, example: 'acme.myshopify.com' })
  platform_shop: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  static from(this: void, store: Store): StoreResponse {
    return {
      id: store.id,
      name: store.name,
      currency: store.currency,
      unit_system: store.unitSystem,
      platform: store.platform,
      platform_shop: store.platformShop,
      created_at: store.createdAt.toISOString(),
    };
  }
}
