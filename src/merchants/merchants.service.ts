import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../auth/api-keys.service.js';
import { newId } from '../common/http/ids.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { type CreatedMerchantResponse, MerchantResponse } from './dto/merchant.dto.js';
import { Merchant } from './merchant.entity.js';
import { transaction } from '../database/transactions.js';

@Injectable()
export class MerchantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** A merchant and its first unrestricted admin key, together or not at all. */
  create(name: string): Promise<CreatedMerchantResponse> {
    return transaction(this.dataSource, async (manager) => {
      const id = newId();
      await manager.getRepository(Merchant).insert({ id, name });
      const merchant = await manager.getRepository(Merchant).findOneByOrFail({ id });
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
    const merchant = await this.dataSource.getRepository(Merchant).findOneBy({ id: merchantId });
    if (!merchant) throw ProblemError.notFound('merchant');
    return MerchantResponse.from(merchant);
  }
}
