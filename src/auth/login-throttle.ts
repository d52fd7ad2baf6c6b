import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore } from '../common/http/rate-limit-store.js';
import { digestSecret } from './key-secret.js';

const WINDOW_SECONDS = 15 * 60;
/** Failures allowed per email in the window, whether or not an account has that email. */
export const FAILURES_PER_EMAIL = 5;
/** Failures allowed per client address in the window, across emails. */
export const FAILURES_PER_ADDRESS = 20;

/**
 * Slows down password guessing: past either limit, every attempt is refused until the window passes, without a
 * password being checked. A success clears the email's count (not the address's: one right guess among many
 * wrong ones should not reopen the gate for the rest).
 */
export class LoginThrottle {
  private readonly byEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;

  /** Counted in the shared store when there is one, so that several instances slow guessing down together. */
  constructor(store: RateLimitStore) {
    this.byEmail = store.limiter({ keyPrefix: 'login-email', points: FAILURES_PER_EMAIL, durationSeconds: WINDOW_SECONDS });
    this.byAddress = store.limiter({ keyPrefix: 'login-address', points: FAILURES_PER_ADDRESS, durationSeconds: WINDOW_SECONDS });
  }

  /** Seconds to wait before trying again, or 0 when an attempt may go ahead. */
  async waitSeconds(email: string | null, address: string): Promise<number> {
    const [forEmail, forAddress] = await Promise.all([
      email === null ? null : this.byEmail.get(emailKey(email)),
      this.byAddress.get(address),
    ]);
    const blocked = [
      forEmail && forEmail.consumedPoints >= FAILURES_PER_EMAIL ? forEmail.msBeforeNext : 0,
      forAddress && forAddress.consumedPoints >= FAILURES_PER_ADDRESS ? forAddress.msBeforeNext : 0,
    ];
    return Math.ceil(Math.max(...blocked) / 1000);
  }

  async failed(email: string | null, address: string): Promise<void> {
    await Promise.all([
      email === null ? null : this.byEmail.penalty(emailKey(email), 1),
      this.byAddress.penalty(address, 1),
    ]);
  }

  async succeeded(email: string): Promise<void> {
    await this.byEmail.delete(emailKey(email));
  }
}

/** Counters are named by a digest of the email: a shared store never holds the addresses people typed. */
const emailKey = (email: string): string => digestSecret(email);
