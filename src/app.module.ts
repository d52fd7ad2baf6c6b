import { type DynamicModule, Global, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { RateLimitGuard } from './common/http/rate-limit.guard.js';
import { RateLimitStore } from './common/http/rate-limit-store.js';
import { JsonBodyMiddleware } from './common/http/json-body.middleware.js';
import { ProblemDetailsFilter } from './common/problems/problem-details.filter.js';
import { ProblemsModule } from './common/problems/problems.module.js';
import { loggerOptions } from './common/logging/logger-options.js';
import { StrictValidationPipe } from './common/validation/validation.pipe.js';
import { APP_CONFIG, type AppConfig } from './config/app.config.js';
import { FitModule } from './fit/fit.module.js';
import { EventsModule } from './events/events.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { HealthModule } from './health/health.module.js';
import { ConsoleModule } from './console/console.module.js';
import { MerchantsModule } from './merchants/merchants.module.js';
import { StoresModule } from './stores/stores.module.js';

@Global()
@Module({ providers: [RateLimitStore, { provide: APP_GUARD, useClass: RateLimitGuard }], exports: [RateLimitStore] })
class RateLimitModule {}

@Module({})
export class AppModule implements NestModule {
  /** The whole service over an open, migrated database (see database/database.ts). */
  static forRoot(config: AppConfig, dataSource: DataSource): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerOptions(config)),
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSource.options,
          dataSourceFactory: async () => dataSource,
        }),
        // Before AuthModule: its guard is registered first, so floods stop before key lookups.
        RateLimitModule,
        AuthModule,
        MerchantsModule,
        StoresModule,
        CatalogModule,
        FitModule,
        EventsModule,
        MetricsModule,
        ConsoleModule,
        HealthModule,
        ProblemsModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [APP_CONFIG],
      global: true,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // Console forms are read by the access guard (common/http/form-body.ts), whose errors become console pages.
    consumer
      .apply(JsonBodyMiddleware)
      .exclude({ path: 'console', method: RequestMethod.ALL }, { path: 'console/*path', method: RequestMethod.ALL })
      .forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
