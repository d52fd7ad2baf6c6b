import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IDEMPOTENCY_ENTITIES } from './idempotency-key.entity.js';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { IdempotencyKeysService } from './idempotency-keys.service.js';
import { IdempotencySweeper } from './idempotency-sweeper.js';
import { IdempotentRequests } from './idempotent-routes.js';
import { SubmittedForms } from './submitted-forms.js';

/**
 * The idempotency keys' table, for the `IdempotentCreates` interceptor that `@Idempotent()` puts on a route of
 * any feature (`IdempotencyKeysService`): global, so that each feature's module can build the interceptor without
 * importing this one. Its sweeper deletes expired keys. The console's forms that act once (`SubmittedForms`) keep
 * their ids there too. A shopper's erasure deletes the requests that named her (`IdempotentRequests`).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(IDEMPOTENCY_ENTITIES)],
  providers: [IdempotencyKeysRepository, IdempotencyKeysService, IdempotencySweeper, SubmittedForms, IdempotentRequests],
  exports: [IdempotencyKeysService, SubmittedForms, IdempotentRequests],
})
export class IdempotencyModule {}
