import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, OperatorOnly, RequireScope } from '../auth/access.decorators.js';
import { CurrentPrincipal, type MerchantPrincipal } from '../auth/principal.js';
import { CreatedMerchants } from './created-merchants.js';
import { CreatedMerchantResponse, CreateMerchantRequest, MerchantResponse } from './dto/merchant.dto.js';
import { MerchantsService } from './merchants.service.js';

@ApiTags('Merchants')
@Controller('v1')
export class MerchantsController {
  constructor(private readonly merchants: MerchantsService) {}

  @Post('merchants')
  // a replay shows the admin key as it is now
  @Idempotent(CreatedMerchants)
  @OperatorOnly()
  @ApiOperation({
    summary: 'Create a merchant',
    description: 'Answers with the merchant and its first unrestricted admin key, whose secret is shown only here.',
  })
  @ApiCreatedResponse({ type: CreatedMerchantResponse })
  create(@Body() body: CreateMerchantRequest): Promise<CreatedMerchantResponse> {
    return this.merchants.create(body.name);
  }

  @Get('merchant')
  @RequireScope('admin')
  @ApiOperation({ summary: "The calling key's merchant" })
  @ApiOkResponse({ type: MerchantResponse })
  get(@CurrentPrincipal() principal: MerchantPrincipal): Promise<MerchantResponse> {
    return this.merchants.get(principal.merchantId);
  }
}
