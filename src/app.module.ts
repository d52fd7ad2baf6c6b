import { type DynamicModule, Global, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { ApiGateMiddleware } from './auth/api-gate.middleware.js';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { RateLimitStore } from './common/http/rate-limit-store.js';
import { ProblemDetailsFilter } from './common/problems/problem-details.filter.js';
import { ProblemsModule } from './problems/problems.module.js';
import { loggerModuleParams } from './common/logging/logger-options.js';
import { StrictValidationPipe } from './common/validation/validation.pipe.js';
import { APP_CONFIG, type AppConfig } from './config/app.config.js';
import { JobQueue } from './database/job-queue.js';
import { Transactions } from './database/transactions.js';
import { FitModule } from './fit/fit.module.js';
import { EventsModule } from './events/events.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ExperimentsModule } from './experiments/experiments.module.js';
import { HealthModule } from './health/health.module.js';
import { IdempotencyModule } from './idempotency/idempotency.module.js';
import { ConsoleAccountsModule } from './console-accounts/console-accounts.module.js';
import { ConsoleModule } from './console/console.module.js';
import { MerchantsModule } from './merchants/merchants.module.js';
import { PlatformModule } from './platform/platform.module.js';
import { StoresModule } from './stores/stores.module.js';

@Global()
@Module({ providers: [RateLimitStore], exports: [RateLimitStore] })
class RateLimitModule {}

@Module({})
export class AppModule implements NestModule {
  /** The whole service over an open, migrated database (see database/database.ts). */
  static forRoot(config: AppConfig, dataSource: DataSource, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerModuleParams(logger)),
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSource.options,
          dataSourceFactory: async () => dataSource,
        }),
        RateLimitModule,
        IdempotencyModule,
        AuthModule,
        ApiKeysModule,
        ConsoleAccountsModule,
        MerchantsModule,
        StoresModule,
        CatalogModule,
        FitModule,
        EventsModule,
        MetricsModule,
        ExperimentsModule,
        PlatformModule,
        ConsoleModule,
        HealthModule,
        ProblemsModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        Transactions,
        JobQueue,
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [APP_CONFIG, Transactions, JobQueue],
      global: true,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // Before any guard and before any body is read: rate limits and the shape of the key. Bodies are read by the
    // access guard once the caller may use the route (common/http/json-body.ts and form-body.ts).
    consumer.apply(ApiGateMiddleware).forRoutes({ path: 'v1/*path', method: RequestMethod.ALL });
  }
}
