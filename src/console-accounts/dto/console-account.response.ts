import { ApiProperty } from '@nestjs/swagger';
import type { ConsoleAccount } from '../console-account.entity.js';
import { EXAMPLE_ID, EXAMPLE_SECRET_PREFIX, EXAMPLE_TIME } from '../../common/openapi/examples.js';

/** Someone who can sign in to the merchant's console. Never carries a password or a session. */
export class ConsoleAccountResponse {
  @ApiProperty({ format: 'uuid', description: 'Used in DELETE /v1/console-accounts/{account_id}.', example: EXAMPLE_ID.consoleAccount })
  id: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({
    format: 'uuid',
    description:
      'The unrestricted admin key presented at sign-up. Revoking it removes the account; while it is expired, the account cannot sign in.',
    example: EXAMPLE_ID.apiKey,
  })
  api_key_id: string;

  @ApiProperty({ description: 'That key’s name.', example: 'Console admin' })
  api_key_name: string;

  @ApiProperty({ description: 'The first 8 characters of that key’s secret, as the key list shows them.', example: EXAMPLE_SECRET_PREFIX })
  api_key_prefix: string;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: EXAMPLE_TIME.updated })
  last_signed_in_at: string | null;

  static from(this: void, account: ConsoleAccount): ConsoleAccountResponse {
    return {
      id: account.id,
      email: account.email,
      api_key_id: account.apiKeyId,
      api_key_name: account.apiKey?.name ?? '',
      api_key_prefix: account.apiKey?.prefix ?? '',
      created_at: account.createdAt.toISOString(),
      last_signed_in_at: account.lastSignedInAt?.toISOString() ?? null,
    };
  }
}
