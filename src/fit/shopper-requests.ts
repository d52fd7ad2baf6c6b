import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { IdempotentRoute, NamedSubject } from '../idempotency/idempotent-routes.js';
import { isPlainObject } from '../common/validation/plain-object.js';
import { Transactions } from '../database/transactions.js';
import { ShoppersRepository } from './shoppers.repository.js';

/**
 * A session create that names a returning shopper (`shopper_ref`), as its `Idempotency-Key` keeps it: by her digest in
 * the store (the HMAC her sessions carry), never by her id, so that nothing kept spells it and her erasure deletes
 * the request with its answer (docs/decisions/007-idempotent-creates.md).
 */
@Injectable()
export class ShopperRequests implements IdempotentRoute {
  constructor(
    private readonly transactions: Transactions,
    private readonly shoppers: ShoppersRepository,
  ) {}

  async subject(request: Request): Promise<NamedSubject | null> {
    const body: unknown = request.body;
    const store = request.store;
    // Read before validation: anything but a string is refused by it (and its key given up) before it is kept.
    if (!store || !isPlainObject(body) || typeof body.shopper_ref !== 'string') return null;
    const ref = body.shopper_ref;
    const digest = await this.transactions.run((manager) => this.shoppers.digest(manager, store.id, ref));
    return { digest, body: { ...body, shopper_ref: digest.toString('hex') } };
  }
}
