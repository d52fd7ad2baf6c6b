import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { hkdfSync } from 'node:crypto';
import { catchError, from, mergeMap, type Observable, of } from 'rxjs';
import { seal, unseal } from '../common/crypto/seal.js';
import { canonicalJson } from '../common/http/canonical-json.js';
import { sha256 } from '../common/crypto/sha256.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { bearerToken } from '../auth/bearer-token.js';
import { digestSecret } from '../common/crypto/key-secret.js';
import { IdempotencyKeysService } from './idempotency-keys.service.js';
import { IDEMPOTENT_ROUTE, type IdempotentRoute } from './idempotent-routes.js';
import type { Principal } from '../auth/principal.js';

const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Printable ASCII, as Stripe takes it: a UUID is the usual choice. */
const WELL_FORMED_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the routes marked `@Idempotent()`, and only there (docs/decisions/007-idempotent-creates.md).
 * The first request with a key claims it for its credential; when it succeeds, its answer is kept for 24 hours, sealed, and
 * every later request with the same key and the same method, path and body (its JSON, whatever the order of its keys) gets that answer again (with
 * `Idempotent-Replayed: true`) instead of creating anything. The same key with another request is a 409, and so is a
 * key whose first request is still running. A request that fails gives its key up, so a retry runs afresh.
 *
 * The answer may hold a secret (a new API key's): it is sealed under a key derived from the caller's own secret and
 * the idempotency key, neither of which is stored, so the table holds nothing that opens without both.
 *
 * A route may add its `IdempotentRoute` (`@Idempotent(Route)`): the person its request names, kept only as the store's
 * keyed digest of her id (in the request's digest too) so that her erasure deletes the request; and how a replay
 * brings the recorded answer to the resource as it is now (a key revoked since shows it, and no longer its secret).
 */
@Injectable()
export class IdempotentCreates implements NestInterceptor {
  /** Each handler's IdempotentRoute (null: none), resolved on its first request with a key. */
  private readonly routes = new WeakMap<object, IdempotentRoute | null>();

  constructor(
    private readonly keys: IdempotencyKeysService,
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
    if (header === undefined) return next.handle();
    if (typeof header !== 'string' || !WELL_FORMED_KEY.test(header)) {
      throw ProblemError.field(IDEMPOTENCY_HEADER, 'invalid', `${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters`);
    }
    const caller = callerOf(request);
    if (!caller) return next.handle();

    const route = this.routeOf(context);
    const subject = (await route?.subject?.(request)) ?? null;
    const keyDigest = sha256(header);
    // The body's content, not its spelling: the same fields in another order are the same request. A person's id it
    // names is digested as the store's keyed digest of it, never as itself.
    const body: unknown = subject ? subject.body : (request.body ?? null);
    const requestDigest = sha256(`${request.method} ${request.path}\n${canonicalJson(body)}`);
    const context_ = keyDigest.toString('hex');
    const sealKey = Buffer.from(hkdfSync('sha256', `${caller.secret}\n${header}`, keyDigest, 'size-fit idempotent answer', 32));

    for (let attempt = 0; !(await this.keys.claim(caller.credential, keyDigest, requestDigest, subject?.digest ?? null)); attempt++) {
      const held = await this.keys.find(caller.credential, keyDigest);
      if (!held) {
        // Given up between our claim and our read: claim again (a failing first request cannot loop us for long).
        if (attempt < 3) continue;
        throw inUse();
      }
      if (!held.requestDigest.equals(requestDigest)) {
        throw new ProblemError(
          'idempotency_key_reused',
          `This ${IDEMPOTENCY_HEADER} came with another request; use a new key for a new request`,
        );
      }
      if (!held.sealedAnswer) throw inUse();
      const recorded: unknown = JSON.parse(unseal(sealKey, context_, held.sealedAnswer));
      const answer = route?.replay ? await route.replay(recorded, request) : recorded;
      context.switchToHttp().getResponse<Response>().setHeader(REPLAYED_HEADER, 'true');
      return of(answer);
    }

    return next.handle().pipe(
      mergeMap((answer) =>
        from(this.keys.answer(caller.credential, keyDigest, seal(sealKey, context_, JSON.stringify(answer) ?? 'null')).then(() => answer)),
      ),
      catchError((error: unknown) =>
        from(
          this.keys.release(caller.credential, keyDigest).then(
            () => Promise.reject(error),
            () => Promise.reject(error),
          ),
        ),
      ),
    );
  }

  private routeOf(context: ExecutionContext): IdempotentRoute | null {
    const handler = context.getHandler();
    const known = this.routes.get(handler);
    if (known !== undefined) return known;
    const type = this.reflector.get<Type<IdempotentRoute> | undefined>(IDEMPOTENT_ROUTE, handler);
    const route = type ? this.moduleRef.get(type, { strict: false }) : null;
    this.routes.set(handler, route);
    return route;
  }
}

/** The credential the key belongs to, and its secret (from the request: never stored). */
function callerOf(request: Request): { credential: string; secret: string } | null {
  const principal = request.user as Principal | undefined;
  // The principal was authenticated from this very header.
  const secret = bearerToken(request.headers.authorization);
  if (!principal || secret === null) return null;
  if (principal.kind === 'operator') return { credential: `operator:${digestSecret(secret)}`, secret };
  return principal.keyId ? { credential: `key:${principal.keyId}`, secret } : null;
}

function inUse(): ProblemError {
  return new ProblemError(
    'idempotency_key_in_use',
    `A request with this ${IDEMPOTENCY_HEADER} is still running; retry shortly for its answer`,
    undefined,
    { 'Retry-After': '1' },
  );
}
