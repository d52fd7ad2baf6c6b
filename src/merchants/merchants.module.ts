import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { MERCHANTS_ENTITIES } from './merchant.entity.js';
import { CreatedMerchants } from './created-merchants.js';
import { MerchantsController } from './merchants.controller.js';
import { MerchantsRepository } from './merchants.repository.js';
import { MerchantsService } from './merchants.service.js';

@Module({
  // ApiKeysModule: ApiKeysService writes the merchant's first admin key in the merchant's transaction; IssuedKeys
  // shows it as it is now to a replay.
  imports: [TypeOrmModule.forFeature(MERCHANTS_ENTITIES), ApiKeysModule],
  controllers: [MerchantsController],
  providers: [MerchantsService, MerchantsRepository, CreatedMerchants],
})
export class MerchantsModule {}
