import { Controller, Get, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import type { ConsoleIdentity } from '../auth/principal.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { PageSender, SignedIn } from './console-pages.js';
import { CALLBACK_PATH, PlatformService } from '../platform/platform.service.js';

/** The platform's redirect back after the merchant approved the connection. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller()
export class PlatformController {
  constructor(
    private readonly platform: PlatformService,
    private readonly pages: PageSender,
  ) {}

  @Get(CALLBACK_PATH.slice(1))
  @ConsolePage({ signedIn: true })
  async callback(@SignedIn() identity: ConsoleIdentity, @Req() request: Request, @Res() response: Response): Promise<void> {
    // The raw query, not the parsed one: the signature covers exactly what the platform sent.
    const query = request.originalUrl.includes('?') ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1) : '';
    const storeId = await this.platform.complete(identity, query);
    this.pages.redirect(response, `/console/stores/${storeId}#platform`);
  }
}
