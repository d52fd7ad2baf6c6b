import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { Merchant } from './merchant.entity.js';

/** The queries of merchants. Methods that may run inside a transaction take its `manager` first. */
@Injectable()
export class MerchantsRepository {
  constructor(@InjectRepository(Merchant) private readonly merchants: Repository<Merchant>) {}

  /** Inserts the merchant and reads it back. */
  async create(manager: EntityManager, merchant: { readonly id: string; readonly name: string }): Promise<Merchant> {
    await manager.getRepository(Merchant).insert({ id: merchant.id, name: merchant.name });
    return manager.getRepository(Merchant).findOneByOrFail({ id: merchant.id });
  }

  findById(id: string): Promise<Merchant | null> {
    return this.merchants.findOneBy({ id });
  }
}
