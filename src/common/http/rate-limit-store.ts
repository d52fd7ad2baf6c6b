import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../../config/app.config.js';

interface LimiterOptions {
  /** Names the counters, so that limiters sharing a store never mix. */
  readonly keyPrefix: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * Where rate-limit counters live: this process's memory, or Redis when `REDIS_URL` is set so that every instance
 * counts against the same limits. If Redis stops answering, each instance falls back to its own memory counters
 * (the limits then hold per instance) rather than refusing or waving through every request.
 */
@Injectable()
export class RateLimitStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimitStore');
  private readonly redis: Redis | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.redis =
      config.redisUrl === null
        ? null
        : // Without a queue, commands fail at once while Redis is away; the timeout bounds a Redis that stops answering.
          // It is generous: after the event loop was busy, the timer may run before Redis's waiting answer is read.
          new Redis(config.redisUrl, {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 1,
            connectTimeout: 2_000,
            commandTimeout: 2_000,
            lazyConnect: true,
          });
    // ioredis reports connection trouble as 'error' events; without a listener they would crash the process.
    this.redis?.on('error', (error: Error) => this.logger.warn({ reason: error.message }, 'rate-limit store unreachable'));
  }

  /**
   * Connects before the service takes requests: otherwise the first ones, sent while the connection is still being
   * made, would be counted by this instance alone. A Redis that cannot be reached delays nothing (see above).
   */
  async onModuleInit(): Promise<void> {
    await this.redis?.connect().catch(() => undefined); // reported by the 'error' listener; ioredis keeps retrying
  }

  limiter(options: LimiterOptions): RateLimiterAbstract {
    const memory = new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds });
    if (this.redis === null) return memory;
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `size-fit:${options.keyPrefix}`,
      points: options.points,
      duration: options.durationSeconds,
      insuranceLimiter: memory,
    });
  }

  async onModuleDestroy(): Promise<void> {
    if (this.redis === null) return;
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
