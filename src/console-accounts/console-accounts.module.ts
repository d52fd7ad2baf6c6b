import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { CONSOLE_ACCOUNTS_ENTITIES } from './console-account.entity.js';
import { ConsoleAccessController } from './console-access.controller.js';
import { ConsoleAccountsRepository } from './console-accounts.repository.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { ConsoleSessionAccess } from './console-session-access.js';

/**
 * Console accounts and their sessions (docs/decisions/005-seller-console.md, 006-console-access.md): sign-up with a
 * merchant's admin key, sign-in, passwords, the session cookie and its CSRF tokens, which the access guard checks on
 * console pages (`ConsoleSessionAccess`). The console's pages are served by the console module.
 */
@Module({
  // ApiKeysModule: an account is created with a live admin key, stands on it, and ends with its revocation.
  imports: [TypeOrmModule.forFeature(CONSOLE_ACCOUNTS_ENTITIES), ApiKeysModule],
  controllers: [ConsoleAccessController],
  providers: [ConsoleAccountsService, ConsoleAccountsRepository, ConsoleSessionAccess],
  exports: [ConsoleAccountsService, ConsoleSessionAccess],
})
export class ConsoleAccountsModule {}
