import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { newId } from '../common/http/ids.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { type CreatedMerchantResponse, MerchantResponse } from './dto/merchant.dto.js';
import { MerchantsRepository } from './merchants.repository.js';
import { Transactions } from '../database/transactions.js';

@Injectable()
export class MerchantsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly merchants: MerchantsRepository,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** A merchant and its first unrestricted admin key, together or not at all. */
  create(name: string): Promise<CreatedMerchantResponse> {
    return this.transactions.run(async (manager) => {
      const id = newId();
      const merchant = await this.merchants.create(manager, { id, name });
      const apiKey = await this.apiKeys.create(manager, id, {
        name: 'Initial admin key',
        scopes: ['admin'],
        storeId: null,
        expiresAt: null,
      });
      return { merchant: MerchantResponse.from(merchant), api_key: apiKey };
    });
  }

  async get(merchantId: string): Promise<MerchantResponse> {
    const merchant = await this.merchants.findById(merchantId);
    if (!merchant) throw ProblemError.notFound('merchant');
    return MerchantResponse.from(merchant);
  }
}
