import { Inject, Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitStore } from '../common/http/rate-limit-store.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import { presentedKey, unauthenticated } from './bearer-token.js';
import { digestSecret } from '../common/crypto/key-secret.js';

const WINDOW_SECONDS = 60;

/** A failed authentication costs its address this many requests in all: guessing keys runs dry long before real use. */
export const FAILED_AUTHENTICATION_COST = 5;

/** One rate limit: its name in the `RateLimit` headers, its budget per window, and its counters. */
interface Budget {
  readonly name: 'key' | 'address';
  readonly points: number;
  readonly limiter: RateLimiterAbstract;
}

/**
 * The first stage of every `/v1` request, before its body is read and before any database lookup:
 * 1. the client address spends one request of its budget (`RATE_LIMIT_PER_ADDRESS_PER_MINUTE`), whatever it sends;
 * 2. an `Authorization` header that holds no key of ours (wrong scheme, shape or checksum) is a 401 at once;
 * 3. a well-formed key spends one request of its own budget (`RATE_LIMIT_PER_MINUTE`), counted on its digest, so
 *    no spelling of the header counts apart;
 * 4. every 401, here or from the access guard later (an unknown, revoked or expired key), costs the address
 *    `FAILED_AUTHENTICATION_COST` requests in all.
 * Every answer, refusals included, carries `RateLimit-Policy` and `RateLimit` for the budgets it spent; over one,
 * 429 with `Retry-After`. Counters are shared through Redis when `REDIS_URL` is set.
 */
@Injectable()
export class ApiGateMiddleware implements NestMiddleware {
  private readonly logger = new Logger(ApiGateMiddleware.name);
  private readonly byAddress: Budget | null;
  private readonly byKey: Budget | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig, store: RateLimitStore) {
    const budget = (name: Budget['name'], points: number): Budget | null =>
      points > 0 ? { name, points, limiter: store.limiter({ keyPrefix: `api-${name}`, points, durationSeconds: WINDOW_SECONDS }) } : null;
    this.byAddress = budget('address', config.rateLimitPerAddressPerMinute);
    this.byKey = budget('key', config.rateLimitPerMinute);
  }

  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    const address = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    const presented = presentedKey(request.headers.authorization);
    const spent: Array<[Budget, RateLimiterRes]> = [];
    const spend = async (budget: Budget | null, tracker: string): Promise<void> => {
      if (budget === null) return;
      try {
        spent.push([budget, await budget.limiter.consume(tracker)]);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        throw limited([...spent, [budget, error]], error.msBeforeNext);
      }
    };

    this.chargeFailedAuthentication(response, address);
    await spend(this.byAddress, address);
    if (presented.kind === 'key') await spend(this.byKey, digestSecret(presented.secret));
    setRateLimitHeaders(response, spent);
    if (presented.kind === 'malformed') throw unauthenticated();
    next();
  }

  /** Once the answer is a 401, whoever gave it: the address pays for the failed attempt. */
  private chargeFailedAuthentication(response: Response, address: string): void {
    const budget = this.byAddress;
    if (budget === null) return;
    response.once('finish', () => {
      if (response.statusCode !== 401) return;
      budget.limiter.penalty(address, FAILED_AUTHENTICATION_COST - 1).catch((error: unknown) => {
        this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'failed authentication not counted');
      });
    });
  }
}

function setRateLimitHeaders(response: Response, spent: ReadonlyArray<[Budget, RateLimiterRes]>): void {
  if (spent.length === 0) return;
  response.setHeader('RateLimit-Policy', policyHeader(spent));
  response.setHeader('RateLimit', rateLimitHeader(spent));
}

const policyHeader = (spent: ReadonlyArray<[Budget, RateLimiterRes]>): string =>
  spent.map(([budget]) => `"${budget.name}";q=${budget.points};w=${WINDOW_SECONDS}`).join(', ');

const rateLimitHeader = (spent: ReadonlyArray<[Budget, RateLimiterRes]>): string =>
  spent.map(([budget, res]) => `"${budget.name}";r=${Math.max(0, res.remainingPoints)};t=${seconds(res.msBeforeNext)}`).join(', ');

function limited(spent: ReadonlyArray<[Budget, RateLimiterRes]>, msBeforeNext: number): ProblemError {
  const retryAfter = String(seconds(msBeforeNext));
  return new ProblemError('rate_limited', `Too many requests; retry after ${retryAfter} s`, undefined, {
    'Retry-After': retryAfter,
    'RateLimit-Policy': policyHeader(spent),
    RateLimit: rateLimitHeader(spent),
  });
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
