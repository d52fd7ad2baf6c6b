import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';

/** How often expired idempotency keys are deleted. */
export const IDEMPOTENCY_SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Forgets idempotency keys 24 hours after their first use, as promised, whoever held them. A credential's own expired
 * keys are also dropped whenever it claims a new one; this catches the rest: keys of credentials that stopped sending
 * any (a revoked key's sealed answers among them). Every instance sweeps; the deletes skip rows another holds.
 */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencySweeper.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly keys: IdempotencyKeysRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), IDEMPOTENCY_SWEEP_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Deletes every expired key; how many went. A failure (the database away) is logged and left to the next sweep. */
  async sweep(): Promise<number> {
    try {
      const deleted = await this.keys.deleteExpired();
      if (deleted > 0) this.logger.log({ deleted }, 'expired idempotency keys deleted');
      return deleted;
    } catch (error) {
      this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'expired idempotency keys not deleted');
      return 0;
    }
  }
}
