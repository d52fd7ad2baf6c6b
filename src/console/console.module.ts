import { Module, type OnModuleInit } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EventsModule } from '../events/events.module.js';
import { ExperimentsModule } from '../experiments/experiments.module.js';
import { ConsoleAccountsModule } from '../console-accounts/console-accounts.module.js';
import { FitModule } from '../fit/fit.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { ConsoleAccountsController } from './console-accounts.controller.js';
import { ConsoleAssetsController, ConsoleNotFoundController } from './console-assets.controller.js';
import { ConsoleCatalogController } from './console-catalog.controller.js';
import { ConsoleExperimentsController } from './console-experiments.controller.js';
import { ConsoleStatusController } from './console-status.controller.js';
import { RecentRefusals } from './status/recent-refusals.js';
import { consoleAssets } from './console-assets.js';
import { PROBLEM_OBSERVER } from '../common/problems/problem-observer.js';
import { PROBLEM_PAGES } from '../common/problems/problem-pages.js';
import { ConsolePageFilter, ConsoleProblemPages } from './console-page.filter.js';
import { PageSender } from './console-pages.js';
import { ConsoleStoresController } from './console-stores.controller.js';
import { PlatformController } from './platform.controller.js';
import { ConsolePlatformController } from './console-platform.controller.js';
import { PlatformModule } from '../platform/platform.module.js';

/** The seller console at /console (docs/decisions/005-seller-console.md). */
@Module({
  imports: [
    ApiKeysModule,
    ConsoleAccountsModule,
    StoresModule,
    MetricsModule,
    FitModule,
    CatalogModule,
    EventsModule,
    ExperimentsModule,
    PlatformModule,
  ],
  // ConsoleNotFoundController last: its catch-all must not shadow the pages.
  controllers: [
    ConsoleAccountsController,
    ConsoleStoresController,
    ConsoleCatalogController,
    ConsoleExperimentsController,
    ConsoleStatusController,
    PlatformController,
    ConsolePlatformController,
    ConsoleAssetsController,
    ConsoleNotFoundController,
  ],
  providers: [
    PageSender,
    RecentRefusals,
    ConsolePageFilter,
    { provide: PROBLEM_PAGES, useClass: ConsoleProblemPages },
    { provide: PROBLEM_OBSERVER, useExisting: RecentRefusals },
  ],
  // The service's error filter answers console addresses that reach no route with the console's pages, and tells the
  // status panel's record of each problem it answers.
  exports: [PROBLEM_PAGES, PROBLEM_OBSERVER],
})
export class ConsoleModule implements OnModuleInit {
  /** Reads the stylesheet and scripts at start-up, so that a deployment without them fails to start, not to serve. */
  onModuleInit(): void {
    consoleAssets();
  }
}
