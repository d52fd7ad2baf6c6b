import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageQuery } from '../../common/http/pagination.js';
import { IsRfc3339 } from '../../common/validation/rfc3339.js';
import { SCOPES, type Scope } from '../../auth/scopes.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export class CreateApiKeyRequest {
  @ApiProperty({ description: 'A label for people.', example: 'Checkout backend', maxLength: 200 })
  @Matches(/\S/, { message: 'name must not be blank' })
  @Length(1, 200)
  @IsString()
  name: string;

  @ApiPropertyOptional({
    description: 'The store the key is bound to. Required unless scopes is exactly ["admin"] (an unrestricted admin key).',
    format: 'uuid',
    example: EXAMPLE_ID.store,
  })
  @IsOptional()
  @IsString()
  store_id?: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['events'] })
  @IsIn(SCOPES, { each: true, message: `each scope must be one of ${SCOPES.join(', ')}` })
  @ArrayUnique()
  @ArrayMaxSize(SCOPES.length)
  @ArrayNotEmpty()
  @IsArray()
  scopes: Scope[];

  @ApiPropertyOptional({
    description: 'RFC 3339, to the millisecond at most; in the future and at most one year ahead.',
    format: 'date-time',
    example: EXAMPLE_TIME.expires,
  })
  @IsOptional()
  @IsRfc3339()
  expires_at?: string;
}

/** `GET /v1/api-keys`: a page, optionally of one store's keys only. */
export class ApiKeyListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only keys bound to this store.', format: 'uuid', example: EXAMPLE_ID.store })
  @IsOptional()
  @IsUUID('all', { message: 'store_id must be a store id' })
  store_id?: string;
}
