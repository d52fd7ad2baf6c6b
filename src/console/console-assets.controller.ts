import { All, Controller, Get, NotFoundException, Param, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { consoleAssets } from './console-assets.js';
import { ConsolePageFilter } from './console-page.filter.js';

/** The console's stylesheet and scripts, cached for a year: their URLs change with their content. */
@ApiExcludeController()
@Controller('console/assets')
export class ConsoleAssetsController {
  @Get(':name')
  @Public()
  serve(@Param('name') name: string, @Res() response: Response): void {
    const asset = consoleAssets().get(name);
    if (!asset) throw new NotFoundException();
    response.status(200).type(asset.type).setHeader('Cache-Control', 'public, max-age=31536000, immutable').send(asset.body);
  }
}

/** Any other address under /console: the console's own not-found page, not the API's JSON. Registered last. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console')
export class ConsoleNotFoundController {
  @All('*path')
  @Public()
  notFound(): never {
    throw new ProblemError('not_found', 'There is no page at this address. It may have moved, or the link may be mistyped.');
  }
}
