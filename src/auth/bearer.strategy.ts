import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { OperatorKeyService } from '../api-keys/operator-key.service.js';
import type { Principal } from './principal.js';

/** `Authorization: Bearer <secret>` → the operator, a merchant key, or nobody. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly operatorKey: OperatorKeyService,
  ) {
    super();
  }

  async validate(secret: string): Promise<Principal | false> {
    if (this.operatorKey.matches(secret)) return { kind: 'operator' };
    const key = await this.apiKeys.authenticate(secret);
    if (!key) return false;
    return {
      kind: 'merchant',
      keyId: key.id,
      merchantId: key.merchantId,
      storeId: key.storeId,
      scopes: key.scopes,
      boundStore: key.store,
    };
  }
}
