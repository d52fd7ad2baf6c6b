import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Page } from '../common/http/pagination.js';
import { ApiPage } from '../common/http/api-page.decorator.js';
import { ApiProblems } from '../common/openapi/api-problems.js';
import { Idempotent, RequireScope } from '../auth/access.decorators.js';
import { ApiKeysService } from './api-keys.service.js';
import { ApiKeyListQuery, CreateApiKeyRequest } from './dto/create-api-key.request.js';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key.response.js';
import { IssuedKeys } from './issued-keys.js';
import { CurrentPrincipal, type MerchantPrincipal } from '../auth/principal.js';

@ApiTags('API keys')
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  // a replay shows the key as it is now, its secret only while it is live
  @Idempotent(IssuedKeys)
  @RequireScope('admin', { unrestricted: true })
  @ApiOperation({ summary: 'Issue a key', description: 'The response carries the secret, once.' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  issue(@CurrentPrincipal() principal: MerchantPrincipal, @Body() body: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    return this.apiKeys.issue(principal, body);
  }

  @Get()
  @RequireScope('admin', { unrestricted: true })
  @ApiOperation({ summary: 'List keys', description: 'Newest first, revoked keys included. Never shows a secret.' })
  @ApiPage(ApiKeyResponse)
  list(@CurrentPrincipal() principal: MerchantPrincipal, @Query() page: ApiKeyListQuery): Promise<Page<ApiKeyResponse>> {
    return this.apiKeys.list(principal, page);
  }

  @Delete(':key_id')
  @HttpCode(200)
  @RequireScope('admin')
  @ApiOperation({
    summary: 'Revoke a key',
    description:
      'Every later request with the key gets 401. Revoking a revoked key changes nothing. A key cannot revoke ' +
      'itself (403 `cannot_revoke_self`). A store-bound admin key can revoke only keys of its own store.',
  })
  @ApiOkResponse({ type: ApiKeyResponse })
  @ApiProblems(
    { code: 'cannot_revoke_self', when: 'The key names itself: create its replacement first, then revoke it with that' },
    { code: 'not_found', when: 'No such key of this merchant (for a store-bound key: of its store)' },
  )
  revoke(@CurrentPrincipal() principal: MerchantPrincipal, @Param('key_id') keyId: string): Promise<ApiKeyResponse> {
    return this.apiKeys.revoke(principal, keyId);
  }
}
