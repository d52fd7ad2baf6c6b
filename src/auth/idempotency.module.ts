import { Global, Module } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';

/**
 * The idempotency keys' table, for the `IdempotentCreates` interceptor that `@IdempotentCreate()` puts on a route of
 * any feature: global, so that each feature's module can build the interceptor without importing the auth module.
 */
@Global()
@Module({ providers: [IdempotencyKeysRepository], exports: [IdempotencyKeysRepository] })
export class IdempotencyModule {}
