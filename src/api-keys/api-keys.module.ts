import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StoresModule } from '../stores/stores.module.js';
import { API_KEYS_ENTITIES } from './api-key.entity.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { IssuedKeys } from './issued-keys.js';
import { OperatorKeyService } from './operator-key.service.js';
import { OperatorKeysRepository } from './operator-keys.repository.js';

/**
 * Merchants' API keys (issue, list, revoke, authenticate) and the operator bootstrap key. The bearer strategy of the
 * auth module authenticates with both; console accounts stand on a merchant's key.
 */
@Module({
  // StoresModule: the store a new key is bound to (StoresService).
  imports: [TypeOrmModule.forFeature(API_KEYS_ENTITIES), StoresModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeysRepository, OperatorKeyService, OperatorKeysRepository, IssuedKeys],
  exports: [ApiKeysService, OperatorKeyService, IssuedKeys],
})
export class ApiKeysModule {}
