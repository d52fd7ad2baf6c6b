import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { type Page, PageQuery } from '../common/http/pagination.js';
import { RequireScope } from '../auth/access.decorators.js';
import { ConsoleAccountsService } from './console-accounts.service.js';
import { ConsoleAccountResponse } from './dto/console-account.response.js';
import { CurrentPrincipal, type MerchantPrincipal } from '../auth/principal.js';

/** Who can sign in to the merchant's seller console, for its admins to review and remove. */
@ApiTags('Console accounts')
@Controller('v1/console-accounts')
export class ConsoleAccessController {
  constructor(private readonly accounts: ConsoleAccountsService) {}

  @Get()
  @RequireScope('admin', { unrestricted: true })
  @ApiOperation({
    summary: 'List console accounts',
    description: 'Everyone who can sign in to this merchant’s console, newest first. Accounts whose key has expired are left out.',
  })
  @ApiPage(ConsoleAccountResponse)
  list(@CurrentPrincipal() principal: MerchantPrincipal, @Query() page: PageQuery): Promise<Page<ConsoleAccountResponse>> {
    return this.accounts.list(principal.merchantId, page);
  }

  @Delete(':account_id')
  @HttpCode(204)
  @RequireScope('admin', { unrestricted: true })
  @ApiOperation({ summary: 'Remove a console account', description: 'Its sessions end at once; its next request is signed out.' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems({ code: 'not_found', when: 'No such console account of this merchant' })
  async remove(@CurrentPrincipal() principal: MerchantPrincipal, @Param('account_id') accountId: string): Promise<void> {
    await this.accounts.remove(principal.merchantId, accountId);
  }
}
