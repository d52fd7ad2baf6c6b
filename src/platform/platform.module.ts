import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module.js';
import { ConsoleAccountsModule } from '../console-accounts/console-accounts.module.js';
import { EventsModule } from '../events/events.module.js';
import { FitModule } from '../fit/fit.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { CatalogImportService } from './catalog-import.service.js';
import { CatalogSyncService } from './catalog-sync.service.js';
import { PlatformConnectionsRepository } from './platform-connections.repository.js';
import { PlatformImportsRepository } from './platform-imports.repository.js';
import { PlatformNoticesController } from './platform-notices.controller.js';
import { PlatformNoticesRepository } from './platform-notices.repository.js';
import { PlatformNoticesService } from './platform-notices.service.js';
import { PLATFORM_ENTITIES } from './platform.entities.js';
import { PlatformService } from './platform.service.js';

/**
 * A store's link to its shop on the e-commerce platform (docs/platform-sync.md): the OAuth connection the console
 * makes, and what the connected shop then tells the service: its notifications, kept and processed by durable jobs.
 */
@Module({
  imports: [TypeOrmModule.forFeature(PLATFORM_ENTITIES), ConsoleAccountsModule, StoresModule, CatalogModule, EventsModule, FitModule],
  controllers: [PlatformNoticesController],
  providers: [
    PlatformService,
    PlatformConnectionsRepository,
    PlatformNoticesService,
    PlatformNoticesRepository,
    CatalogImportService,
    CatalogSyncService,
    PlatformImportsRepository,
  ],
  exports: [PlatformService, PlatformNoticesService, CatalogImportService],
})
export class PlatformModule {}
