import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Transactions } from '../database/transactions.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeyResponse, type CreatedApiKeyResponse } from './dto/api-key.response.js';
import type { IdempotentRoute } from '../idempotency/idempotent-routes.js';
import type { MerchantPrincipal } from '../auth/principal.js';

/**
 * A key's creation replayed to its `Idempotency-Key` (docs/decisions/007-idempotent-creates.md): the key as it is now,
 * its secret only while the key still opens anything. A client retrying after a timeout must not come away holding
 * a secret it believes live when the key was revoked (or has expired) since.
 */
@Injectable()
export class IssuedKeys implements IdempotentRoute {
  constructor(
    private readonly transactions: Transactions,
    private readonly keys: ApiKeysRepository,
  ) {}

  /** `POST /v1/api-keys` replayed: a key of the caller's merchant. */
  replay(answer: unknown, request: Request): Promise<ApiKeyResponse | CreatedApiKeyResponse> {
    return this.asNow(answer as CreatedApiKeyResponse, (request.user as MerchantPrincipal).merchantId);
  }

  /**
   * The recorded answer of a key's creation as the key is now: its record read again (`revoked_at`, `last_used_at`),
   * with the recorded secret while the key is live, without it once revoked or expired (or, were it ever deleted,
   * gone). `merchantId`: the merchant the key was created for.
   */
  async asNow(created: CreatedApiKeyResponse, merchantId: string): Promise<ApiKeyResponse | CreatedApiKeyResponse> {
    const key = await this.transactions.alone((manager) => this.keys.findOne(manager, { id: created.id, merchantId }));
    const { secret, ...recorded } = created;
    if (!key) return recorded;
    const now = ApiKeyResponse.from(key);
    const live = key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > Date.now());
    return live ? { ...now, secret } : now;
  }
}
