import { Module, type OnModuleInit } from '@nestjs/common';
import { APP_GUARD, ModulesContainer } from '@nestjs/core';
import { StoresModule } from '../stores/stores.module.js';
import { AccessGuard } from './access.guard.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { BearerStrategy } from './bearer.strategy.js';
import { ConsoleAccessController } from './console-access.controller.js';
import { ConsoleAccountsRepository } from './console-accounts.repository.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { ConsoleSessionAccess } from './console-session-access.js';
import { IdempotencyModule } from './idempotency.module.js';
import { IssuedKeys } from './issued-keys.js';
import { KeyAccess } from './key-access.js';
import { OperatorKeyService } from './operator-key.service.js';
import { OperatorKeysRepository } from './operator-keys.repository.js';
import { assertBodiesRead } from './route-bodies.js';
import { StoreAccess } from './store-access.js';

@Module({
  // StoresModule: the store a route names (StoreAccess) and the store a new key is bound to (StoresService).
  imports: [StoresModule, IdempotencyModule],
  controllers: [ApiKeysController, ConsoleAccessController],
  providers: [
    ApiKeysService,
    ApiKeysRepository,
    ConsoleAccountsService,
    ConsoleAccountsRepository,
    OperatorKeyService,
    OperatorKeysRepository,
    BearerStrategy,
    KeyAccess,
    ConsoleSessionAccess,
    StoreAccess,
    IssuedKeys,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [ApiKeysService, ConsoleAccountsService, IssuedKeys],
})
export class AuthModule implements OnModuleInit {
  constructor(private readonly modules: ModulesContainer) {}

  /** Every route's access rule reads the body its handler takes (route-bodies.ts): checked before the app serves. */
  onModuleInit(): void {
    assertBodiesRead(this.modules);
  }
}
