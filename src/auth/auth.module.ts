import { Module, type OnModuleInit } from '@nestjs/common';
import { APP_GUARD, ModulesContainer } from '@nestjs/core';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { ConsoleAccountsModule } from '../console-accounts/console-accounts.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { AccessGuard } from './access.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { KeyAccess } from './key-access.js';
import { PlatformNoticeAccess } from './platform-notice-access.js';
import { assertBodiesRead } from './route-bodies.js';
import { StoreAccess } from './store-access.js';

/** The global access guard every request meets, and the credentials it admits callers by. */
@Module({
  // ApiKeysModule: the keys the bearer strategy authenticates (merchant keys, the operator key). ConsoleAccountsModule:
  // console sessions and their CSRF tokens (ConsoleSessionAccess). StoresModule: the store a route names (StoreAccess).
  imports: [ApiKeysModule, ConsoleAccountsModule, StoresModule],
  providers: [BearerStrategy, KeyAccess, StoreAccess, PlatformNoticeAccess, { provide: APP_GUARD, useClass: AccessGuard }],
})
export class AuthModule implements OnModuleInit {
  constructor(private readonly modules: ModulesContainer) {}

  /** Every route's access rule reads the body its handler takes (route-bodies.ts): checked before the app serves. */
  onModuleInit(): void {
    assertBodiesRead(this.modules);
  }
}
