import { Controller, Get, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import { EventsService } from '../events/events.service.js';
import type { Store } from '../stores/store.entity.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { CurrentPage, PageSender } from './console-pages.js';
import type { PageContext } from './pages/layout.js';
import { statusPage } from './pages/status-page.js';
import { RecentRefusals } from './status/recent-refusals.js';

/** How far back "last event of each kind" looks. */
const LOOK_BACK_DAYS = 30;
const DAY_MS = 86_400_000;

/** Whether a store's integration works: the events it receives and the requests the service refused it. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/stores/:store_id')
export class ConsoleStatusController {
  constructor(
    private readonly events: EventsService,
    private readonly refusals: RecentRefusals,
    private readonly pages: PageSender,
  ) {}

  @Get('status')
  @ConsolePage({ signedIn: true, store: true })
  async show(@CurrentPage() page: PageContext, @CurrentStore() store: Store, @Res() response: Response): Promise<void> {
    const now = new Date();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const activity = await this.events.activity(store, today, new Date(now.getTime() - LOOK_BACK_DAYS * DAY_MS));
    this.pages.send(
      response,
      200,
      statusPage(page, {
        store,
        activity,
        lookBackDays: LOOK_BACK_DAYS,
        refusals: this.refusals.of(store.id),
        refusalsSince: this.refusals.since,
        now,
      }),
    );
  }
}
