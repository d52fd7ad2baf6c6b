/**
 * The fetch the Size-Fit client sends every request through: it retries what is safe to retry and marks each POST
 * with an `Idempotency-Key`, so that a retried create is recognised by the service as the same call.
 *
 * Retried: a network error (no answer at all), 429 `rate_limited` (after `Retry-After`, else the `RateLimit` reset),
 * 503 `unavailable` (the service could not reach its database and did nothing) and 409 `idempotency_key_in_use` (the
 * first attempt of this very call is still running: the next one gets its answer). Never retried: any other answer,
 * an aborted request, or a wait the service asks for that is longer than `maxDelayMs`.
 *
 * The service keeps `Idempotency-Key` on the POSTs that create and on a session's answers and decision
 * (docs/decisions/007-idempotent-creates.md): a decision retried after its answer was lost gets that answer again.
 * Events are deduplicated by their own `source` + `external_id`.
 */

/** The fetch the client calls: `globalThis.fetch`, or a caller's own (a test double, a proxy agent). */
export type FetchFunction = (input: Request) => Promise<Response>;

export interface RetryOptions {
  /** Further attempts after the first one. Default 3. */
  readonly retries?: number;
  /** The first back-off delay, doubled on each retry (with jitter) when the service names no delay. Default 250. */
  readonly baseDelayMs?: number;
  /** The longest wait before a retry; an answer asking for longer is returned (thrown) as it is. Default 30 000. */
  readonly maxDelayMs?: number;
  /** Called before each retry: for logs and metrics. */
  readonly onRetry?: (retry: RetryInfo) => void;
  /** How to wait (tests replace it). Default: a timer, cut short by the request's abort signal. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface RetryInfo {
  readonly method: string;
  readonly url: string;
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
  /** The status that caused it, or `network_error`. */
  readonly reason: 409 | 429 | 503 | 'network_error';
  /** The Idempotency-Key sent with every attempt of a POST; null for other methods. */
  readonly idempotencyKey: string | null;
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

const RETRIED_STATUSES = new Set([429, 503]);

/** 409 `idempotency_key_in_use`: the same call's first attempt has not answered yet. */
async function keyInUse(response: Response): Promise<boolean> {
  if (response.status !== 409 || !response.headers.get('Content-Type')?.includes('json')) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return typeof body === 'object' && body !== null && 'code' in body && body.code === 'idempotency_key_in_use';
}

export function retryingFetch(base: FetchFunction, options: RetryOptions | false = {}): FetchFunction {
  const retries = options === false ? 0 : (options.retries ?? 3);
  const baseDelayMs = options === false ? 0 : (options.baseDelayMs ?? 250);
  const maxDelayMs = options === false ? 0 : (options.maxDelayMs ?? 30_000);
  const onRetry = options === false ? undefined : options.onRetry;
  const sleep = (options === false ? undefined : options.sleep) ?? abortableSleep;

  return async (input: Request): Promise<Response> => {
    // One key per logical call, reused by every retry of it: the service answers a repeat with the first result.
    let idempotencyKey: string | null = null;
    let request = input;
    if (input.method === 'POST') {
      idempotencyKey = input.headers.get(IDEMPOTENCY_KEY_HEADER) ?? globalThis.crypto.randomUUID();
      const headers = new Headers(input.headers);
      headers.set(IDEMPOTENCY_KEY_HEADER, idempotencyKey);
      request = new Request(input, { headers });
    }

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        // A request's body can be read once: every attempt sends a copy.
        response = await base(attempt < retries ? request.clone() : request);
      } catch (error) {
        if (attempt >= retries || request.signal.aborted) throw error;
        const delayMs = backoff(baseDelayMs, attempt);
        onRetry?.({ method: request.method, url: request.url, attempt: attempt + 1, delayMs, reason: 'network_error', idempotencyKey });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (attempt >= retries || request.signal.aborted) return response;
      const retried = RETRIED_STATUSES.has(response.status) || (await keyInUse(response));
      if (!retried) return response;
      const delayMs = serverDelayMs(response.headers) ?? backoff(baseDelayMs, attempt);
      if (delayMs > maxDelayMs) return response;
      // Release the connection of the answer we drop.
      await response.body?.cancel();
      const reason = response.status === 429 ? 429 : response.status === 503 ? 503 : 409;
      onRetry?.({ method: request.method, url: request.url, attempt: attempt + 1, delayMs, reason, idempotencyKey });
      await sleep(delayMs, request.signal);
    }
  };
}

/** Full jitter over an exponential ceiling: retries of many clients spread out instead of arriving together. */
function backoff(baseDelayMs: number, attempt: number): number {
  return Math.round(Math.random() * baseDelayMs * 2 ** attempt);
}

/**
 * The wait the service asks for, in ms: `Retry-After` (seconds or an HTTP date), else the reset `t` of the exhausted
 * budget in `RateLimit: "address";r=0;t=12, "key";r=5;t=30` (the longest, if several are spent); null if neither.
 */
export function serverDelayMs(headers: Headers, now = Date.now()): number | null {
  const retryAfter = headers.get('Retry-After')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const rateLimit = headers.get('RateLimit');
  if (rateLimit) {
    let longest: number | null = null;
    for (const item of rateLimit.split(',')) {
      const remaining = /;\s*r=(\d+)/.exec(item);
      const reset = /;\s*t=(\d+)/.exec(item);
      if (remaining && reset && Number(remaining[1]) === 0) longest = Math.max(longest ?? 0, Number(reset[1]) * 1000);
    }
    if (longest !== null) return longest;
  }
  return null;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
