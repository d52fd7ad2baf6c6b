import { createHash } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../../config/app.config.js';
import { ProblemError } from '../problems/problem.error.js';
import { RateLimitStore } from './rate-limit-store.js';

const WINDOW_SECONDS = 60;

/**
 * Rate limit per credential (the digest of the bearer key, else the client address) across all /v1 routes, with
 * `Retry-After` and the IETF `RateLimit` / `RateLimit-Policy` headers. It runs before authentication, so a flood of
 * bad keys stops before it reaches the database. Counters are shared through Redis when `REDIS_URL` is set.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiter: RateLimiterAbstract | null;
  private readonly policy: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig, store: RateLimitStore) {
    const points = config.rateLimitPerMinute;
    this.limiter = points > 0 ? store.limiter({ keyPrefix: 'api', points, durationSeconds: WINDOW_SECONDS }) : null;
    this.policy = `"default";q=${points};w=${WINDOW_SECONDS}`;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (this.limiter === null || !request.path.startsWith('/v1/')) return true;
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader('RateLimit-Policy', this.policy);
    try {
      const spent = await this.limiter.consume(tracker(request));
      response.setHeader('RateLimit', `"default";r=${spent.remainingPoints};t=${seconds(spent.msBeforeNext)}`);
      return true;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const retryAfter = String(seconds(error.msBeforeNext));
      throw new ProblemError('rate_limited', `Too many requests; retry after ${retryAfter} s`, undefined, {
        'Retry-After': retryAfter,
        RateLimit: `"default";r=0;t=${retryAfter}`,
      });
    }
  }
}

function tracker(request: Request): string {
  const authorization = request.headers.authorization;
  return authorization
    ? `key:${createHash('sha256').update(authorization).digest('hex')}`
    : `ip:${request.ip ?? request.socket.remoteAddress ?? 'unknown'}`;
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
