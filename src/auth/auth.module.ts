import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AccessGuard } from './access.guard.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysService } from './api-keys.service.js';
import { BearerStrategy } from './bearer.strategy.js';
import { ConsoleAccessController } from './console-access.controller.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { ConsoleSessionAccess } from './console-session-access.js';
import { KeyAccess } from './key-access.js';
import { OperatorKeyService } from './operator-key.service.js';
import { StoreAccess } from './store-access.js';

@Module({
  imports: [PassportModule.register({ session: false })],
  controllers: [ApiKeysController, ConsoleAccessController],
  providers: [
    ApiKeysService,
    ConsoleAccountsService,
    OperatorKeyService,
    BearerStrategy,
    KeyAccess,
    ConsoleSessionAccess,
    StoreAccess,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [ApiKeysService, ConsoleAccountsService],
})
export class AuthModule {}
