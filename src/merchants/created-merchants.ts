import { Injectable } from '@nestjs/common';
import type { IdempotentRoute } from '../idempotency/idempotent-routes.js';
import { IssuedKeys } from '../api-keys/issued-keys.js';
import type { CreatedMerchantResponse } from './dto/merchant.dto.js';

/**
 * `POST /v1/merchants` replayed to its `Idempotency-Key` (docs/decisions/007-idempotent-creates.md): the merchant as
 * created (nothing changes it), and its first admin key as it is now, its secret only while the key is live.
 */
@Injectable()
export class CreatedMerchants implements IdempotentRoute {
  constructor(private readonly issuedKeys: IssuedKeys) {}

  async replay(answer: unknown): Promise<unknown> {
    const created = answer as CreatedMerchantResponse;
    return { merchant: created.merchant, api_key: await this.issuedKeys.asNow(created.api_key, created.merchant.id) };
  }
}
