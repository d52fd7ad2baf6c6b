import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { CreatedApiKeyResponse } from '../../api-keys/dto/api-key.response.js';
import type { Merchant } from '../merchant.entity.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export class CreateMerchantRequest {
  @ApiProperty({ example: 'Acme Apparel', maxLength: 200 })
  @Matches(/\S/, { message: 'name must not be blank' })
  @Length(1, 200)
  @IsString()
  name: string;
}

export class MerchantResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.merchant })
  id: string;

  @ApiProperty({ example: 'Acme Apparel' })
  name: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  static from(this: void, merchant: Merchant): MerchantResponse {
    return { id: merchant.id, name: merchant.name, created_at: merchant.createdAt.toISOString() };
  }
}

export class CreatedMerchantResponse {
  @ApiProperty({ type: MerchantResponse })
  merchant: MerchantResponse;

  @ApiProperty({ type: CreatedApiKeyResponse, description: "The merchant's first unrestricted admin key, with its secret." })
  api_key: CreatedApiKeyResponse;
}
