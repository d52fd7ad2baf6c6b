/**
 * The simulation's HTTP client: every call goes through the service's public API over real HTTP, as an integration's
 * backend would make it, so the figures are those of the service as deployed, not of its engine alone.
 */

/** A failed call, with the service's problem answer, so a broken run says why. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
}

/** One credential's calls on the service at `baseUrl`. */
export class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
  ) {}

  /** The same service with another key. */
  as(secret: string): Api {
    return new Api(this.baseUrl, secret);
  }

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  post<T>(path: string, body: object): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  private async send<T>(method: string, path: string, body?: object): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.secret}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiError(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }
}

/** Runs `task` over `items` with at most `limit` at once; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `items` in consecutive pieces of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const pieces: T[][] = [];
  for (let i = 0; i < items.length; i += size) pieces.push(items.slice(i, i + size));
  return pieces;
}
