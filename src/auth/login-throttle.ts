import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore } from '../common/http/rate-limit-store.js';
import { digestSecret } from './key-secret.js';

/** An email's failures are remembered this long (a success forgets them)… */
const EMAIL_WINDOW_SECONDS = 24 * 60 * 60;
/** …and from the fifth on, each one makes the next attempt for the email wait: 4 s, 8 s, 16 s… up to 5 minutes. */
const FAILURES_PER_EMAIL = 5;
export const FIRST_EMAIL_DELAY_SECONDS = 4;
const MAX_EMAIL_DELAY_SECONDS = 5 * 60;
/** Failures allowed per client address in the window, across emails and sign-ups. */
const FAILURES_PER_ADDRESS = 20;
const ADDRESS_WINDOW_SECONDS = 15 * 60;

/**
 * Slows down password guessing without handing anyone a way to lock a person out.
 *
 * - Per email, from the fifth failure each one makes the next attempt wait, doubling up to five minutes: guessers
 *   spread over many addresses get about 300 tries a day, and the owner, typing the right password, waits minutes
 *   at most rather than being locked out.
 * - Per client address (the client's, with `TRUST_PROXY` set behind a proxy), past twenty failures in 15 minutes
 *   every attempt is refused until the window passes: one address trying many emails is a guesser.
 *
 * A success clears the email's count (not the address's: one right guess among many wrong ones should not reopen
 * the gate for the rest).
 */
export class LoginThrottle {
  private readonly failuresByEmail: RateLimiterAbstract;
  private readonly delayByEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;

  /** Counted in the shared store when there is one, so that several instances slow guessing down together. */
  constructor(store: RateLimitStore) {
    // Only counts: the delay decides, so the count never blocks on its own.
    this.failuresByEmail = store.limiter({ keyPrefix: 'login-email', points: 1_000_000, durationSeconds: EMAIL_WINDOW_SECONDS });
    this.delayByEmail = store.limiter({ keyPrefix: 'login-email-delay', points: 1, durationSeconds: MAX_EMAIL_DELAY_SECONDS });
    this.byAddress = store.limiter({ keyPrefix: 'login-address', points: FAILURES_PER_ADDRESS, durationSeconds: ADDRESS_WINDOW_SECONDS });
  }

  /** Seconds to wait before trying again, or 0 when an attempt may go ahead. */
  async waitSeconds(email: string | null, address: string): Promise<number> {
    const [delay, forAddress] = await Promise.all([
      email === null ? null : this.delayByEmail.get(emailKey(email)),
      this.byAddress.get(address),
    ]);
    const blocked = [
      delay && delay.consumedPoints > 1 ? delay.msBeforeNext : 0,
      forAddress && forAddress.consumedPoints >= FAILURES_PER_ADDRESS ? forAddress.msBeforeNext : 0,
    ];
    return Math.ceil(Math.max(...blocked) / 1000);
  }

  async failed(email: string | null, address: string): Promise<void> {
    const [count] = await Promise.all([
      email === null ? null : this.failuresByEmail.penalty(emailKey(email), 1),
      this.byAddress.penalty(address, 1),
    ]);
    if (email === null || count === null) return;
    const delay = emailDelaySeconds(count.consumedPoints);
    if (delay > 0) await this.delayByEmail.block(emailKey(email), delay);
  }

  async succeeded(email: string): Promise<void> {
    await Promise.all([this.failuresByEmail.delete(emailKey(email)), this.delayByEmail.delete(emailKey(email))]);
  }
}

/** The wait after an email's `failures`-th failure in the window: none before the fifth, then doubling. */
function emailDelaySeconds(failures: number): number {
  if (failures < FAILURES_PER_EMAIL) return 0;
  return Math.min(FIRST_EMAIL_DELAY_SECONDS * 2 ** (failures - FAILURES_PER_EMAIL), MAX_EMAIL_DELAY_SECONDS);
}

/** Counters are named by a digest of the email: a shared store never holds the addresses people typed. */
const emailKey = (email: string): string => digestSecret(email);
