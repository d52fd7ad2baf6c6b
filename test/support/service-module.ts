import 'reflect-metadata';
import { afterAll, beforeAll } from '@jest/globals';
import { type DynamicModule, type ForwardReference, Module, type Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { IdempotencyModule } from '../../src/idempotency/idempotency.module.js';
import { APP_CONFIG } from '../../src/config/app.config.js';
import { openDatabase } from '../../src/database/database.js';
import { Transactions } from '../../src/database/transactions.js';
import { MerchantsModule } from '../../src/merchants/merchants.module.js';
import { StoresModule } from '../../src/stores/stores.module.js';
import { testConfig } from './app.js';
import { embeddedTemplate } from './embedded-template.js';

type Import = Type<unknown> | DynamicModule | ForwardReference;

/** What `AppModule.forRoot` provides to every module: the configuration and transactions. */
@Module({})
class ServiceRoot {}

/** Feature modules over a real, migrated database, without the HTTP app: what a service spec calls. */
export interface ServiceModule {
  /** A provider of any module in the graph, exported or not. */
  get<T>(type: Type<T>): T;
  readonly dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * The feature modules `imports` wired as `AppModule.forRoot` wires them: TypeORM over the database `openDatabase`
 * opens and migrates (the embedded one from the migrated snapshot, or the worker's PostgreSQL database when
 * DATABASE_URL is set), the global `APP_CONFIG` and `Transactions`, and the global idempotency keys that fit routes
 * use. The merchants' and stores' modules are there too, so that a spec can make its own tenant through their
 * services (service-fixtures.ts). No guard, pipe, filter or HTTP server.
 */
export async function startServiceModule(imports: readonly Import[]): Promise<ServiceModule> {
  const config = testConfig();
  const fromTemplate = config.databaseUrl === null && config.dataDir === 'memory://';
  const dataSource = await openDatabase(config, { template: fromTemplate ? await embeddedTemplate() : undefined });
  let module: TestingModule;
  try {
    module = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRootAsync({ useFactory: () => dataSource.options, dataSourceFactory: async () => dataSource }),
        {
          module: ServiceRoot,
          global: true,
          providers: [{ provide: APP_CONFIG, useValue: config }, Transactions],
          exports: [APP_CONFIG, Transactions],
        },
        IdempotencyModule,
        MerchantsModule,
        StoresModule,
        ...imports,
      ],
    }).compile();
    // start-up hooks (the catalog's referrers register their checks), as the app runs them
    await module.init();
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return {
    get: <T>(type: Type<T>) => module.get(type, { strict: false }),
    dataSource,
    // TypeORM's module destroys the data source on shutdown, which closes the embedded database too
    close: () => module.close(),
  };
}

/**
 * One service module for the enclosing `describe` block: started before its tests, closed after them. Use the
 * returned object only inside tests and hooks.
 */
export function useServiceModule(imports: readonly Import[]): ServiceModule {
  let current: ServiceModule | undefined;
  beforeAll(async () => {
    current = await startServiceModule(imports);
  });
  afterAll(async () => {
    await current?.close();
  });
  const started = (): ServiceModule => {
    if (!current) throw new Error('useServiceModule(): the module is used before beforeAll started it');
    return current;
  };
  return {
    get: (type) => started().get(type),
    get dataSource() {
      return started().dataSource;
    },
    close: () => started().close(),
  };
}
