import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { EntityManager } from 'typeorm';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';

/** The metadata through which `@Idempotent(route)` names the route's `IdempotentRoute`. */
export const IDEMPOTENT_ROUTE = 'size-fit:idempotent-route';

/** The person a request names (a returning shopper), as the idempotency keys keep her: never by her id. */
export interface NamedSubject {
  /** Her digest under a key of the store (an HMAC): what her erasure names when it deletes the requests that named her. */
  readonly digest: Buffer;
  /** The request's body with her id replaced by `digest`: what the request's digest is taken of. */
  readonly body: unknown;
}

/**
 * What a route adds to `Idempotency-Key` (docs/decisions/007-idempotent-creates.md), given as `@Idempotent(Route)`:
 * a provider of the route's module, usually the route's service.
 */
export interface IdempotentRoute {
  /**
   * The person the request names, if any (read before the body is validated: `null` for anything else). Her id is
   * then kept nowhere, not even inside the request's digest, and her erasure forgets the request and its answer.
   */
  subject?(request: Request): Promise<NamedSubject | null>;
  /** A replay's answer: the recorded one, brought to the resource as it is now where that matters. */
  replay?(answer: unknown, request: Request): Promise<unknown>;
}

/** The requests that named a person, for her erasure. */
@Injectable()
export class IdempotentRequests {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  /**
   * Deletes every kept request that named the subject of this digest, its answer with it, in the erasure's
   * transaction: a retry of one of them afterwards is a new request.
   */
  forget(manager: EntityManager, subjectDigest: Buffer): Promise<void> {
    return this.keys.forgetSubject(manager, subjectDigest);
  }
}
