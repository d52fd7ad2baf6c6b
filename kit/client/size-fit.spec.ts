import { describe, expect, it } from '@jest/globals';
import { serverDelayMs } from './retrying-fetch.js';
import { createSizeFitClient, type EventRequest, type RetryInfo, SizeFitProblem, SizeFitResponseError } from './size-fit.js';

const STORE = '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';

interface Sent {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: unknown;
}

/** A scripted service: each request gets the next answer (a Response, or an Error thrown as a network failure). */
function scripted(...answers: Array<Response | Error | ((sent: Sent) => Response)>) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const text = await request.text();
    const entry = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    sent.push(entry);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer scripted');
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer(entry) : answer;
  };
  return { sent, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `/problems/${code}`, title: code, status, code, request_id: `req-${code}`, ...extra }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });
const store = { id: STORE, name: 'Acme EU', currency: 'EUR', unit_system: 'metric', platform: null, platform_shop: null };

function client(fetch: (request: Request) => Promise<Response>, retry: { retries?: number; maxDelayMs?: number } = {}) {
  const waits: RetryInfo[] = [];
  const sizeFit = createSizeFitClient({
    baseUrl: 'http://size-fit.test/',
    apiKey: 'sfk_test',
    fetch,
    retry: { ...retry, onRetry: (info) => waits.push(info), sleep: async () => undefined },
  });
  return { sizeFit, waits };
}

describe('createSizeFitClient: answers', () => {
  it('resolves to the typed body, with the key in the Authorization header', async () => {
    const service = scripted(json(200, store));
    const { sizeFit } = client(service.fetch);
    const got = await sizeFit.GET('/v1/stores/{store_id}', { params: { path: { store_id: STORE } } });
    expect(got.name).toBe('Acme EU');
    expect(service.sent[0]?.url.href).toBe(`http://size-fit.test/v1/stores/${STORE}`);
    expect(service.sent[0]?.headers.get('authorization')).toBe('Bearer sfk_test');
  });

  it('throws a problem answer as a SizeFitProblem with its status, code, errors and request_id', async () => {
    const errors = [{ field: 'name', code: 'required', message: 'name is required' }];
    const service = scripted(problem(400, 'validation_failed', { errors }));
    const { sizeFit, waits } = client(service.fetch);
    const failure = await sizeFit.POST('/v1/stores', { body: { name: '' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SizeFitProblem);
    expect(failure).toMatchObject({ status: 400, code: 'validation_failed', errors, request_id: 'req-validation_failed' });
    expect(String(failure)).toContain('POST /v1/stores: 400 validation_failed');
    expect(waits).toEqual([]);
  });

  it('carries existing_id of a 409 duplicate', async () => {
    const service = scripted(problem(409, 'duplicate', { existing_id: STORE }));
    const { sizeFit } = client(service.fetch);
    await expect(
      sizeFit.POST('/v1/stores/{store_id}/products', {
        params: { path: { store_id: STORE } },
        body: { title: 'Tee', product_type_id: STORE, size_chart_id: STORE, external_id: 'gid-1' },
      }),
    ).rejects.toMatchObject({ status: 409, code: 'duplicate', existing_id: STORE });
  });

  it('throws an error answer that is not a problem as a SizeFitResponseError', async () => {
    const service = scripted(new Response('<html>Bad gateway</html>', { status: 502, headers: { 'Content-Type': 'text/html' } }));
    const { sizeFit } = client(service.fetch);
    await expect(sizeFit.GET('/v1/merchant')).rejects.toEqual(expect.any(SizeFitResponseError));
  });

  it('resolves a 204 to undefined', async () => {
    const service = scripted(new Response(null, { status: 204 }));
    const { sizeFit } = client(service.fetch);
    await expect(
      sizeFit.DELETE('/v1/stores/{store_id}/product-types/{id}', { params: { path: { store_id: STORE, id: STORE } } }),
    ).resolves.toBeUndefined();
  });
});

describe('createSizeFitClient: retries', () => {
  it('retries a 429 after its Retry-After, with the same Idempotency-Key on every attempt of one POST', async () => {
    const service = scripted(
      problem(429, 'rate_limited', {}, { 'Retry-After': '2' }),
      problem(429, 'rate_limited', {}, { RateLimit: '"address";r=10;t=50, "key";r=0;t=7' }),
      json(201, store),
    );
    const { sizeFit, waits } = client(service.fetch);
    await expect(sizeFit.POST('/v1/stores', { body: { name: 'Acme EU' } })).resolves.toMatchObject({ id: STORE });
    const keys = service.sent.map((sent) => sent.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(service.sent.map((sent) => sent.body)).toEqual([{ name: 'Acme EU' }, { name: 'Acme EU' }, { name: 'Acme EU' }]);
    expect(waits.map(({ attempt, delayMs, reason }) => ({ attempt, delayMs, reason }))).toEqual([
      { attempt: 1, delayMs: 2000, reason: 429 },
      { attempt: 2, delayMs: 7000, reason: 429 },
    ]);
  });

  it('uses a new Idempotency-Key for each call, and none on a GET', async () => {
    const service = scripted(json(201, store), json(201, store), json(200, store));
    const { sizeFit } = client(service.fetch);
    await sizeFit.POST('/v1/stores', { body: { name: 'One' } });
    await sizeFit.POST('/v1/stores', { body: { name: 'Two' } });
    await sizeFit.GET('/v1/stores/{store_id}', { params: { path: { store_id: STORE } } });
    const [first, second, read] = service.sent.map((sent) => sent.headers.get('idempotency-key'));
    expect(first).not.toBe(second);
    expect(read).toBeNull();
  });

  it('keeps an Idempotency-Key the caller chose', async () => {
    const service = scripted(new TypeError('fetch failed'), json(201, store));
    const { sizeFit } = client(service.fetch);
    await sizeFit.POST('/v1/stores', { params: { header: { 'Idempotency-Key': 'order-1001-store' } }, body: { name: 'One' } });
    expect(service.sent.map((sent) => sent.headers.get('idempotency-key'))).toEqual(['order-1001-store', 'order-1001-store']);
  });

  it('retries network errors, 503 and 409 idempotency_key_in_use, then gives the answer', async () => {
    const service = scripted(
      new TypeError('fetch failed'),
      problem(503, 'unavailable'),
      problem(409, 'idempotency_key_in_use', {}, { 'Retry-After': '1' }),
      json(201, store),
    );
    const { sizeFit, waits } = client(service.fetch);
    await expect(sizeFit.POST('/v1/stores', { body: { name: 'Acme EU' } })).resolves.toMatchObject({ id: STORE });
    expect(waits.map((wait) => wait.reason)).toEqual(['network_error', 503, 409]);
    expect(waits[2]?.delayMs).toBe(1000);
  });

  it('gives up after the last retry: the network error, or the last answer as a problem', async () => {
    const down = scripted(new TypeError('a'), new TypeError('b'), new TypeError('c'));
    await expect(client(down.fetch, { retries: 2 }).sizeFit.GET('/v1/merchant')).rejects.toThrow('c');
    const busy = scripted(problem(503, 'unavailable'), problem(503, 'unavailable'));
    await expect(client(busy.fetch, { retries: 1 }).sizeFit.GET('/v1/merchant')).rejects.toMatchObject({
      status: 503,
      code: 'unavailable',
    });
  });

  it('does not wait longer than maxDelayMs: the 429 is thrown', async () => {
    const service = scripted(problem(429, 'rate_limited', {}, { 'Retry-After': '120' }));
    const { sizeFit, waits } = client(service.fetch, { maxDelayMs: 60_000 });
    await expect(sizeFit.GET('/v1/merchant')).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    expect(waits).toEqual([]);
  });

  it('never retries other answers (a 409 conflict, a 500)', async () => {
    const service = scripted(problem(409, 'event_conflict'), problem(500, 'internal_error'));
    const { sizeFit, waits } = client(service.fetch);
    const event: EventRequest = { source: 'shop', external_id: 'x', type: 'fit_viewed', occurred_at: new Date().toISOString() };
    await expect(
      sizeFit.POST('/v1/stores/{store_id}/events', { params: { path: { store_id: STORE } }, body: event }),
    ).rejects.toMatchObject({
      code: 'event_conflict',
    });
    await expect(sizeFit.GET('/v1/merchant')).rejects.toMatchObject({ code: 'internal_error' });
    expect(waits).toEqual([]);
  });

  it('reads Retry-After as seconds or a date, else the spent RateLimit budget', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(serverDelayMs(new Headers({ 'Retry-After': '3' }), now)).toBe(3000);
    expect(serverDelayMs(new Headers({ 'Retry-After': 'Wed, 25 Nov 2026 10:00:05 GMT' }), now)).toBe(5000);
    expect(serverDelayMs(new Headers({ RateLimit: '"address";r=0;t=12, "key";r=0;t=30' }), now)).toBe(30_000);
    expect(serverDelayMs(new Headers({ RateLimit: '"address";r=4;t=12' }), now)).toBeNull();
    expect(serverDelayMs(new Headers(), now)).toBeNull();
  });
});

describe('createSizeFitClient: lists and batches', () => {
  it('walks a list page after page, passing next_cursor as starting_after', async () => {
    const page = (ids: string[], next: string | null) =>
      json(200, { data: ids.map((id) => ({ ...store, id, name: id })), has_more: next !== null, next_cursor: next });
    const service = scripted(page(['a', 'b'], 'b'), page(['c', 'd'], 'd'), page(['e'], null));
    const { sizeFit } = client(service.fetch);
    const names: string[] = [];
    for await (const each of sizeFit.list('/v1/stores', { params: { query: { limit: 2 } } })) names.push(each.name);
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(service.sent.map((sent) => sent.url.search)).toEqual(['?limit=2', '?limit=2&starting_after=b', '?limit=2&starting_after=d']);
  });

  it('stops early when the caller breaks out', async () => {
    const service = scripted(json(200, { data: [store, store], has_more: true, next_cursor: STORE }));
    const { sizeFit } = client(service.fetch);
    for await (const each of sizeFit.list('/v1/stores')) {
      expect(each.id).toBe(STORE);
      break;
    }
    expect(service.sent).toHaveLength(1);
  });

  it('sends events in batches of at most 500 and gives one result per event, in order', async () => {
    const events: EventRequest[] = Array.from({ length: 1201 }, (_, index) => ({
      source: 'shop',
      external_id: `view-${index}`,
      type: 'fit_viewed',
      occurred_at: '2026-11-25T10:00:00.000Z',
    }));
    const answer = (sent: Sent) => {
      const batch = sent.body as { events: EventRequest[] };
      return json(200, { results: batch.events.map((event) => ({ status: 201, event: { external_id: event.external_id } })) });
    };
    const service = scripted(answer, answer, answer);
    const { sizeFit } = client(service.fetch);
    const results = await sizeFit.sendEvents(STORE, events);
    expect(service.sent.map((sent) => (sent.body as { events: unknown[] }).events.length)).toEqual([500, 500, 201]);
    expect(service.sent[0]?.url.pathname).toBe(`/v1/stores/${STORE}/events/batch`);
    expect(results.map((result) => result.event?.external_id)).toEqual(events.map((event) => event.external_id));
    await expect(sizeFit.sendEvents(STORE, [])).resolves.toEqual([]);
  });
});

describe('createSizeFitClient: assignments', () => {
  it('asks for the shopper’s arm on a product page and gives the typed treatment', async () => {
    const answer = { experiment_id: STORE, arm: 'holdout', treatment: 'no_size_help' };
    const service = scripted(json(200, answer));
    const { sizeFit } = client(service.fetch);
    const assignment = await sizeFit.assign(STORE, { shopper_ref: 'cust_8f3a2c', product_id: STORE });
    expect(assignment).toEqual(answer);
    const [sent] = service.sent;
    expect(sent?.method).toBe('POST');
    expect(sent?.url.pathname).toBe(`/v1/stores/${STORE}/assignments`);
    expect(sent?.body).toEqual({ shopper_ref: 'cust_8f3a2c', product_id: STORE });
    expect(sent?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('throws a refusal as a SizeFitProblem, and retries a 503 like any call', async () => {
    const errors = [{ field: 'product_id', code: 'not_found', message: 'product_id names no product of this store' }];
    const service = scripted(problem(503, 'unavailable'), problem(400, 'validation_failed', { errors }));
    const { sizeFit, waits } = client(service.fetch);
    await expect(sizeFit.assign(STORE, { shopper_ref: 'cust_1', product_id: STORE })).rejects.toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors,
    });
    expect(waits.map((wait) => wait.reason)).toEqual([503]);
  });
});

// Compiled by `npm run typecheck`, never run: the generated paths type every call.
export async function typedCalls(): Promise<void> {
  const { sizeFit } = client(globalThis.fetch);
  // @ts-expect-error: no such route
  await sizeFit.GET('/v1/nowhere');
  // @ts-expect-error: a product needs product_type_id and size_chart_id
  await sizeFit.POST('/v1/stores/{store_id}/products', { params: { path: { store_id: STORE } }, body: { title: 'Tee' } });
  // @ts-expect-error: the path parameters are required
  await sizeFit.GET('/v1/stores/{store_id}/metrics');
  // @ts-expect-error: metrics is not a list route
  sizeFit.list('/v1/stores/{store_id}/metrics', { params: { path: { store_id: STORE } } });
  const session = await sizeFit.GET('/v1/stores/{store_id}/sessions/{id}', { params: { path: { store_id: STORE, id: STORE } } });
  // @ts-expect-error: the recommendation is null until the session is answered
  void session.recommendation.size_label;
  const state: 'started' | 'recommended' | 'completed' = session.state;
  void state;
  // @ts-expect-error: an assignment names the shopper
  await sizeFit.assign(STORE, { product_id: STORE });
  const { treatment, arm } = await sizeFit.assign(STORE, { shopper_ref: 'cust_1', product_id: STORE });
  const shown: 'size_help' | 'no_size_help' | 'chart_only' = treatment;
  // @ts-expect-error: the arm is null outside an experiment
  void arm.length;
  void shown;
}
