import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ShopperDigests } from '../learning/shopper-digests.js';
import { ShoppersRepository } from './shoppers.repository.js';

/**
 * The store's shopper key, lent to learning: an import of past orders digests the shoppers it names as sessions do,
 * so that her imported lines and her next sessions meet under one digest, and her erasure reaches both.
 */
@Injectable()
export class ShopperKeys implements OnModuleInit {
  constructor(
    private readonly digests: ShopperDigests,
    private readonly shoppers: ShoppersRepository,
  ) {}

  onModuleInit(): void {
    this.digests.register((manager, storeId, refs) => this.shoppers.digestAll(manager, storeId, refs));
  }
}
