import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitStore } from '../common/http/rate-limit-store.js';
import { digestSecret } from '../common/crypto/key-secret.js';

/** An email's failures are remembered this long (a success forgets them)… */
const EMAIL_WINDOW_SECONDS = 24 * 60 * 60;
/** …and from the fifth on, each one makes the next attempt for the email wait: 4 s, 8 s, 16 s… up to 5 minutes. */
const FAILURES_PER_EMAIL = 5;
export const FIRST_EMAIL_DELAY_SECONDS = 4;
const MAX_EMAIL_DELAY_SECONDS = 5 * 60;
/** Failures allowed per client address in the window, across emails and sign-ups. */
const FAILURES_PER_ADDRESS = 20;
const ADDRESS_WINDOW_SECONDS = 15 * 60;

/** From an email's sixth attempt on, one at a time: an attempt holds its email this long at most while it is checked. */
const IN_FLIGHT_SECONDS = 10;

/** An attempt that may go ahead, its counts taken: settle it with `failed` or `succeeded`. */
interface Attempt {
  readonly ok: true;
  readonly email: string | null;
  readonly address: string;
  /** Its place among the email's attempts since the last success (0 without an email). */
  readonly count: number;
}

/** An attempt that may not go ahead yet. */
interface TooSoon {
  readonly ok: false;
  readonly retryAfterSeconds: number;
}

/**
 * Slows down password guessing without handing anyone a way to lock a person out.
 *
 * - Per email, from the fifth failure each one makes the next attempt wait, doubling up to five minutes: guessers
 *   spread over many addresses get about 300 tries a day, and the owner, typing the right password, waits minutes
 *   at most rather than being locked out.
 * - Per client address (the client's, with `TRUST_PROXY` set behind a proxy), past twenty failures in 15 minutes
 *   every attempt is refused until the window passes: one address trying many emails is a guesser.
 *
 * An attempt is counted when it arrives, before its password is checked (`attempt`), and given back if it succeeds:
 * attempts sent all at once are held to the same numbers as attempts sent one after another (the address's twenty,
 * and from an email's sixth attempt, one at a time). A success clears the email's count (not the address's: one
 * right guess among many wrong ones should not reopen the gate for the rest).
 */
export class LoginThrottle {
  private readonly attemptsByEmail: RateLimiterAbstract;
  private readonly delayByEmail: RateLimiterAbstract;
  private readonly inFlightByEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;

  /** Counted in the shared store when there is one, so that several instances slow guessing down together. */
  constructor(store: RateLimitStore) {
    // Only counts: the delay decides, so the count never blocks on its own.
    this.attemptsByEmail = store.limiter({ keyPrefix: 'login-email', points: 1_000_000, durationSeconds: EMAIL_WINDOW_SECONDS });
    this.delayByEmail = store.limiter({ keyPrefix: 'login-email-delay', points: 1, durationSeconds: MAX_EMAIL_DELAY_SECONDS });
    this.inFlightByEmail = store.limiter({ keyPrefix: 'login-email-in-flight', points: 1, durationSeconds: IN_FLIGHT_SECONDS });
    this.byAddress = store.limiter({ keyPrefix: 'login-address', points: FAILURES_PER_ADDRESS, durationSeconds: ADDRESS_WINDOW_SECONDS });
  }

  /** Takes an attempt's place in the counts before its secret is checked, or says how long to wait (taking nothing). */
  async attempt(email: string | null, address: string): Promise<Attempt | TooSoon> {
    const key = email === null ? null : emailKey(email);
    if (key !== null) {
      const waiting = await this.waitFor(key);
      if (waiting) return tooSoon(waiting.msBeforeNext);
    }
    const refused = await rejection(this.byAddress.consume(address));
    if (refused) return tooSoon(refused.msBeforeNext);
    if (key === null) return { ok: true, email, address, count: 0 };

    const { consumedPoints: count } = await this.attemptsByEmail.penalty(key, 1);
    if (count > FAILURES_PER_EMAIL) {
      const busy = await rejection(this.inFlightByEmail.consume(key));
      // Holding the email now: a failure that ended while this attempt was on its way (after the check above) has
      // made it wait since, and a failure makes the email wait before it lets the next attempt hold it.
      const refusal = busy ?? (await this.waitFor(key));
      if (refusal) {
        await Promise.all([
          this.attemptsByEmail.reward(key, 1),
          this.byAddress.reward(address, 1),
          ...(busy ? [] : [this.inFlightByEmail.delete(key)]),
        ]);
        return tooSoon(refusal.msBeforeNext);
      }
    }
    return { ok: true, email, address, count };
  }

  /** The attempt was wrong: it stays counted, and from an email's fifth it makes the next one wait. */
  async failed(attempt: Attempt): Promise<void> {
    if (attempt.email === null) return;
    const key = emailKey(attempt.email);
    const delay = emailDelaySeconds(attempt.count);
    if (delay > 0) await this.delayByEmail.block(key, delay);
    // only the attempt that holds the email lets go of it: one of the first five ending must not let a second in
    if (attempt.count > FAILURES_PER_EMAIL) await this.inFlightByEmail.delete(key);
  }

  /** The wait a failure set on the email and that has not passed, or null. */
  private async waitFor(key: string): Promise<RateLimiterRes | null> {
    const delay = await this.delayByEmail.get(key);
    return delay && delay.consumedPoints > 1 ? delay : null;
  }

  /** The attempt was right: the address gets its place back, and the email starts afresh. */
  async succeeded(attempt: Attempt): Promise<void> {
    const key = attempt.email === null ? null : emailKey(attempt.email);
    await Promise.all([
      this.byAddress.reward(attempt.address, 1),
      ...(key === null ? [] : [this.attemptsByEmail, this.delayByEmail, this.inFlightByEmail].map((limiter) => limiter.delete(key))),
    ]);
  }
}

const tooSoon = (ms: number): TooSoon => ({ ok: false, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) });

/** The limiter's refusal of a consume, or null when it went through (any other error is thrown). */
async function rejection(consumed: Promise<RateLimiterRes>): Promise<RateLimiterRes | null> {
  try {
    await consumed;
    return null;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}

/** The wait after an email's `failures`-th failure in the window: none before the fifth, then doubling. */
function emailDelaySeconds(failures: number): number {
  if (failures < FAILURES_PER_EMAIL) return 0;
  return Math.min(FIRST_EMAIL_DELAY_SECONDS * 2 ** (failures - FAILURES_PER_EMAIL), MAX_EMAIL_DELAY_SECONDS);
}

/** Counters are named by a digest of the email: a shared store never holds the addresses people typed. */
const emailKey = (email: string): string => digestSecret(email);
