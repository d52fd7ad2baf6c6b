import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorators.js';
import { CurrentStore } from '../auth/principal.js';
import type { Store } from '../stores/store.entity.js';
import { SessionsService } from './sessions.service.js';

/** Returning shoppers: erasing one on request. */
@ApiTags('Fit')
@Controller('v1/stores/:store_id/shoppers')
export class ShoppersController {
  constructor(private readonly sessions: SessionsService) {}

  @Delete(':shopper_ref')
  @HttpCode(204)
  @RequireScope('fit', { store: true })
  @ApiOperation({
    summary: 'Erase a returning shopper',
    description:
      'The store’s sessions no longer name the shopper, and what her outcomes said about her is deleted: her next ' +
      'session starts afresh. 204 whether or not the store knew her (her id is never stored, so there is nothing to ' +
      'look up). The id appears in this path only; request logs show it redacted.',
  })
  @ApiNoContentResponse({ description: 'Erased (or never known).' })
  async erase(@CurrentStore() store: Store, @Param('shopper_ref') ref: string): Promise<void> {
    await this.sessions.forgetShopper(store, ref);
  }
}
