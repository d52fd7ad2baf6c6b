import { Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { CatalogImportService } from '../platform/catalog-import.service.js';
import { PlatformNoticesService } from '../platform/platform-notices.service.js';
import { PlatformService } from '../platform/platform.service.js';
import type { Store } from '../stores/store.entity.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { CurrentPage, PageSender } from './console-pages.js';
import type { PageContext } from './pages/layout.js';
import { platformPage } from './pages/platform-page.js';

/** The notifications page shows this many, newest first. */
const RECENT = 50;

/** A store's link to its shop: the connection, the notifications the shop sent and how each ended, the dead letters. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsolePlatformController {
  constructor(
    private readonly platform: PlatformService,
    private readonly notices: PlatformNoticesService,
    private readonly catalogImport: CatalogImportService,
    private readonly pages: PageSender,
  ) {}

  @Get('platform')
  @ConsolePage({ signedIn: true, store: true })
  async show(
    @CurrentPage() page: PageContext,
    @CurrentStore() store: Store,
    @Query('retried') retried: unknown,
    @Query('importing') importing: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const [connection, notices, deadLetters, catalog] = await Promise.all([
      this.platform.connection(store),
      this.notices.recent(store, RECENT),
      this.notices.deadLetters(store),
      this.catalogImport.status(store),
    ]);
    this.pages.send(
      response,
      200,
      platformPage(page, {
        store,
        connection,
        address: this.notices.address(),
        notices,
        deadLetters,
        retried: retried === '1' ? 'retried' : retried === '0' ? 'gone' : undefined,
        catalog,
        importing: importing === '1',
      }),
    );
  }

  @Post('platform/import')
  @ConsolePage({ signedIn: true, store: true })
  async importAgain(@CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    if ((await this.platform.connection(store)) === null) return this.pages.redirect(response, `/console/stores/${store.id}/platform`);
    await this.catalogImport.restart(store);
    this.pages.redirect(response, `/console/stores/${store.id}/platform?importing=1`);
  }

  @Post('platform/dead-letters/:job/retry')
  @ConsolePage({ signedIn: true, store: true })
  async retry(@CurrentStore() store: Store, @Param('job') job: string, @Res() response: Response): Promise<void> {
    const retried = await this.notices.retry(store, job);
    this.pages.redirect(response, `/console/stores/${store.id}/platform?retried=${retried ? 1 : 0}`);
  }
}
