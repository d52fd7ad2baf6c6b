import { ApiProperty } from '@nestjs/swagger';
import type { ApiKey } from '../api-key.entity.js';
import { SCOPES, type Scope } from '../../auth/scopes.js';
import { EXAMPLE_ID, EXAMPLE_SECRET_PREFIX, EXAMPLE_TIME } from '../../common/openapi/examples.js';

export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid', description: 'The key identifier, used in DELETE /v1/api-keys/{key_id}.', example: EXAMPLE_ID.apiKey })
  id: string;

  @ApiProperty({ example: 'Checkout backend' })
  name: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null: an unrestricted admin key.', example: EXAMPLE_ID.store })
  store_id: string | null;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['events'] })
  scopes: Scope[];

  @ApiProperty({ description: 'The first 8 characters of the secret, to recognise the key.', example: EXAMPLE_SECRET_PREFIX })
  prefix: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: EXAMPLE_TIME.expires })
  expires_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'null: not revoked.', example: null })
  revoked_at: string | null;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Updated at most once a minute.',
    example: EXAMPLE_TIME.occurred,
  })
  last_used_at: string | null;

  static from(this: void, key: ApiKey): ApiKeyResponse {
    return {
      id: key.id,
      name: key.name,
      store_id: key.storeId,
      scopes: key.scopes,
      prefix: key.prefix,
      created_at: key.createdAt.toISOString(),
      expires_at: key.expiresAt?.toISOString() ?? null,
      revoked_at: key.revokedAt?.toISOString() ?? null,
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
    };
  }
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'null: a key just issued has not been used yet (a replay shows the key as it is now).',
    example: null,
  })
  declare last_used_at: string | null;

  @ApiProperty({
    required: false,
    description:
      'The secret. Returned only in this response, and in its replays to the same `Idempotency-Key` while the key is ' +
      'live; store it now. Absent from a replay once the key is revoked or expired (`revoked_at`, `expires_at`).',
    example: `${EXAMPLE_SECRET_PREFIX}…`,
  })
  secret: string;

  static fromCreated(key: ApiKey, secret: string): CreatedApiKeyResponse {
    return { ...ApiKeyResponse.from(key), secret };
  }
}
