import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AccessGuard } from './access.guard.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysService } from './api-keys.service.js';
import { BearerStrategy } from './bearer.strategy.js';
import { ConsoleAccessController } from './console-access.controller.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { OperatorKeyService } from './operator-key.service.js';

@Module({
  imports: [PassportModule.register({ session: false })],
  controllers: [ApiKeysController, ConsoleAccessController],
  providers: [
    ApiKeysService,
    ConsoleAccountsService,
    OperatorKeyService,
    BearerStrategy,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [ApiKeysService, ConsoleAccountsService],
})
export class AuthModule {}
