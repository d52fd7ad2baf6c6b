/**
 * A thin client for the Size-Fit API, typed by the paths generated from its OpenAPI document (`schema.ts`), on top
 * of openapi-fetch:
 *
 *   const sizeFit = createSizeFitClient({ baseUrl: 'https://size-fit.example', apiKey: process.env.SIZE_FIT_KEY });
 *   const product = await sizeFit.POST('/v1/stores/{store_id}/products', {
 *     params: { path: { store_id: storeId } },
 *     body: { title: 'Crew tee', product_type_id: typeId, size_chart_id: chartId },
 *   });
 *
 * - `GET`/`POST`/`PATCH`/`DELETE` take openapi-fetch's arguments and resolve to the answer's body, typed by its path
 *   and method; a problem-details answer is thrown as a `SizeFitProblem` (status, code, errors, request_id).
 * - Network errors, 429 (after `Retry-After`) and 503 are retried; every POST carries an `Idempotency-Key`, the same
 *   on each retry of one call (`retrying-fetch.ts`).
 * - `list(path, init)` walks a cursor-paginated list; `sendEvents(storeId, events)` sends any number of events
 *   through the batch route, 500 at a time; `assign(storeId, { shopper_ref, product_id })` gives the shopper's arm
 *   for a product page.
 * - `raw` is the openapi-fetch client itself ({ data, error, response }), for the status or headers of an answer.
 *
 * The key is a server-side secret: this client belongs in a backend, never in a browser or an app.
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { type FetchFunction, type RetryOptions, retryingFetch } from './retrying-fetch.js';
import type { components, paths } from './schema.js';

export type { FetchFunction, RetryInfo, RetryOptions } from './retrying-fetch.js';
export { IDEMPOTENCY_KEY_HEADER } from './retrying-fetch.js';
export type { components, paths } from './schema.js';

/** The document's schemas by name: `Schemas['EventRequest']`, `Schemas['SessionResponse']`, … */
export type Schemas = components['schemas'];
export type ProblemDetails = Schemas['ProblemDetails'];
export type ProblemCode = ProblemDetails['code'];
export type ProblemFieldError = Schemas['ProblemFieldError'];
export type EventRequest = Schemas['EventRequest'];
export type EventResult = Schemas['EventResultResponse'];
export type AssignmentRequest = Schemas['AssignmentRequest'];
export type Assignment = Schemas['AssignmentResponse'];
/** What the product page offers: `size_help`, `no_size_help` (a holdout: no size help entry point), `chart_only`. */
export type Treatment = Assignment['treatment'];

/** The batch route's limit. */
export const MAX_EVENTS_PER_BATCH = 500;

/**
 * The secret of a key just created (`POST /v1/api-keys`, or a new merchant's `api_key`). A create retried with its
 * `Idempotency-Key` gets the key as it is now, and once the key is revoked or expired that answer holds no secret:
 * then this throws rather than hand over a secret that opens nothing.
 */
export function secretOf(key: Schemas['CreatedApiKeyResponse']): string {
  if (key.secret === undefined) throw new Error(`API key ${key.prefix}… came back without its secret: it was revoked or has expired since`);
  return key.secret;
}

/** A problem-details answer (RFC 9457) of the service. Branch on `status` and `code`, never on `detail`. */
export class SizeFitProblem extends Error {
  override readonly name = 'SizeFitProblem';
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string | undefined;
  /** One entry per offending field, with a 400 that names fields and with a 409 `duplicate`; else empty. */
  readonly errors: ProblemFieldError[];
  /** The answer's `Request-Id`: quote it when asking about a failure. */
  readonly request_id: string;
  /** With a 409 `duplicate`: the resource that already holds the `external_id`. */
  readonly existing_id: string | undefined;
  readonly problem: ProblemDetails;

  constructor(
    problem: ProblemDetails,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: ${problem.status} ${problem.code}${problem.detail ? ` (${problem.detail})` : ''}`);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.request_id = problem.request_id;
    this.existing_id = problem.existing_id;
    this.problem = problem;
  }
}

/** An error answer that is not a problem document (a proxy's 502 page, say). */
export class SizeFitResponseError extends Error {
  override readonly name = 'SizeFitResponseError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: ${status}, not a problem document`);
  }
}

export function isProblem(value: unknown): value is ProblemDetails {
  return (
    typeof value === 'object' &&
    value !== null &&
    'status' in value &&
    typeof value.status === 'number' &&
    'code' in value &&
    typeof value.code === 'string' &&
    'request_id' in value &&
    typeof value.request_id === 'string'
  );
}

function isPage(value: unknown): value is Page<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'data' in value &&
    Array.isArray(value.data) &&
    'has_more' in value &&
    typeof value.has_more === 'boolean' &&
    'next_cursor' in value &&
    (value.next_cursor === null || typeof value.next_cursor === 'string')
  );
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type Media = `${string}/${string}`;

/** The paths that have this method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The init argument: required when the operation has required parameters or a required body (as in openapi-fetch). */
type InitArgs<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Success<R> = R extends { data: infer D } ? D : never;

/** The body of a successful answer to `method path` (`undefined` for a 204). */
export type ResponseOf<P extends PathsWith<M>, M extends Method, Init = object> = Success<
  FetchResponse<Extract<paths[P][M], Record<string | number, unknown>>, Init, Media>
>;
/** The JSON body a create or update takes. */
export type RequestBodyOf<P extends PathsWith<M>, M extends Method> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

type Call<M extends Method> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitArgs<Init>
) => Promise<ResponseOf<P, M, Init>>;

type Page<T> = { data: T[]; has_more: boolean; next_cursor: string | null };
type ListBody<P extends PathsWith<'get'>> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
/** The list routes: their answer is `{ data, has_more, next_cursor }`. */
export type ListPath = { [P in PathsWith<'get'>]: ListBody<P> extends Page<unknown> ? P : never }[PathsWith<'get'>];
/** An item of a list route. */
export type ListItem<P extends ListPath> = ListBody<P> extends Page<infer T> ? T : never;

export interface SizeFitClientOptions {
  /** Where the service is: `https://size-fit.example` (no `/v1`). */
  readonly baseUrl: string;
  /** An API key (`sfk_…`, or the operator's `sfo_…` to create merchants). Keep it on the server. */
  readonly apiKey: string;
  /** Default `globalThis.fetch`. */
  readonly fetch?: FetchFunction;
  /** Retries of network errors, 429 and 503; `false` turns them off. */
  readonly retry?: RetryOptions | false;
  /** Sent with every request (a `User-Agent`, a `Request-Id`). */
  readonly headers?: Record<string, string>;
}

export interface SizeFitClient {
  readonly GET: Call<'get'>;
  readonly POST: Call<'post'>;
  readonly PATCH: Call<'patch'>;
  readonly DELETE: Call<'delete'>;
  /** Every item of a list route, page after page (`limit` sets the page size). */
  list<P extends ListPath, Init extends MaybeOptionalInit<paths[P], 'get'>>(
    path: P,
    ...init: InitArgs<Init>
  ): AsyncGenerator<ListItem<P>, void, undefined>;
  /**
   * Sends events through `POST /v1/stores/{store_id}/events/batch`, at most 500 a request, and gives one result per
   * event, in order: `status` 201 (stored now), 200 (stored before: a retry), 400 or 409 with its `error`.
   */
  sendEvents(storeId: string, events: readonly EventRequest[]): Promise<EventResult[]>;
  /**
   * The shopper's arm for the product page being shown (`POST /v1/stores/{store_id}/assignments`); the first call
   * records her exposure to the experiment running on the product. `treatment` says what to show: no size help entry
   * point for `no_size_help`, the widget otherwise. Outside any running experiment: `size_help`, with
   * `experiment_id` and `arm` null.
   */
  assign(storeId: string, request: AssignmentRequest): Promise<Assignment>;
  /** The openapi-fetch client underneath (same retries and headers), answering `{ data, error, response }`. */
  readonly raw: Client<paths>;
}

export function createSizeFitClient(options: SizeFitClientOptions): SizeFitClient {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), options.retry),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
  });

  // openapi-fetch's generic signatures cannot be forwarded through a wrapper as they are: the calls below are typed
  // by `Call<M>` (the same parameters as openapi-fetch's, resolving to the success body), and reach it untyped here.
  const untyped = raw.request as unknown as (
    method: Method,
    path: string,
    init?: Record<string, unknown>,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  async function send(method: Method, path: string, init?: Record<string, unknown>): Promise<unknown> {
    const { data, error, response } = await untyped(method, path, init);
    if (response.ok) return data;
    const label = method.toUpperCase();
    if (isProblem(error)) throw new SizeFitProblem(error, label, new URL(response.url || path, options.baseUrl).pathname);
    throw new SizeFitResponseError(response.status, error, label, path);
  }
  const call = <M extends Method>(method: M) =>
    ((path: string, init?: Record<string, unknown>) => send(method, path, init)) as unknown as Call<M>;

  const GET = call('get');
  const POST = call('post');

  async function* list(path: string, init?: { params?: { query?: Record<string, unknown> } }): AsyncGenerator<unknown, void, undefined> {
    let cursor: string | null = null;
    do {
      const params = init?.params ?? {};
      const query = cursor === null ? params.query : { ...params.query, starting_after: cursor };
      const page = await send('get', path, { ...init, params: { ...params, query } });
      if (!isPage(page)) throw new SizeFitResponseError(200, page, 'GET', path);
      yield* page.data;
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor !== null);
  }

  async function sendEvents(storeId: string, events: readonly EventRequest[]): Promise<EventResult[]> {
    const results: EventResult[] = [];
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_BATCH) {
      const batch = await POST('/v1/stores/{store_id}/events/batch', {
        params: { path: { store_id: storeId } },
        body: { events: events.slice(start, start + MAX_EVENTS_PER_BATCH) },
      });
      results.push(...batch.results);
    }
    return results;
  }

  const assign = (storeId: string, request: AssignmentRequest): Promise<Assignment> =>
    POST('/v1/stores/{store_id}/assignments', { params: { path: { store_id: storeId } }, body: request });

  return {
    GET,
    POST,
    PATCH: call('patch'),
    DELETE: call('delete'),
    list: list as SizeFitClient['list'],
    sendEvents,
    assign,
    raw,
  };
}
