import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../src/common/crypto/key-secret.js';
import { MAX_ARRAY_ITEMS } from '../../src/common/http/json-body.js';
import { bearer, useApp } from '../support/app.js';
import { createTenant, expectErrors, expectProblem, issueKey } from '../support/fixtures.js';

/** Just under the 1 MiB batch limit: `{"events":[0,0,…]}`, about 520,000 items. */
const HUGE_LIST = `{"events":[${Array(520_000).fill('0').join(',')}]}`;

describe('large bodies never stall the service', () => {
  const t = useApp({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 });

  /** Sends the body `times` at once, on `path` with `headers`; resolves with the answers. */
  const flood = (path: string, headers: Record<string, string>, times = 8) =>
    Promise.all(
      Array.from({ length: times }, () => t.http().post(path).set(headers).set('Content-Type', 'application/json').send(HUGE_LIST)),
    );

  /**
   * The longest the event loop was held up while `work` ran, in milliseconds: the lesser of two runs. A stall the
   * service causes shows in both; a pause of the collector or of a machine running other suites rarely twice.
   */
  async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
    const first = await onceStalled(work);
    const second = await onceStalled(work);
    return { result: first.result, stallMs: Math.min(first.stallMs, second.stallMs) };
  }

  async function onceStalled<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    try {
      const result = await work();
      return { result, stallMs: delay.max / 1e6 };
    } finally {
      delay.disable();
    }
  }

  it('reads no body of a request without a valid key: 404 off any route, 401 on the batch route', async () => {
    const { storeId } = await createTenant(t);
    const batch = `/v1/stores/${storeId}/events/batch`;
    const { result, stallMs } = await longestStall(async () => [
      ...(await flood('/x/batch', {})),
      ...(await flood(`/v1/stores/${storeId}/x/batch`, {})),
      ...(await flood(batch, {})),
      ...(await flood(batch, { Authorization: 'Bearer not-a-key' })),
      ...(await flood(batch, bearer(generateSecret()))),
    ]);
    expect(result.map((answer) => answer.status)).toEqual([...Array(16).fill(404), ...Array(24).fill(401)]);
    // One such body took 750 ms to walk when the path of every item was spelled out; none is read now. What is left
    // (about 50 ms here) is the test's own sending and garbage collection; the bound leaves room for a busy machine.
    expect(stallMs).toBeLessThan(250);
  });

  it('refuses a list longer than any the API takes before reading it through, for a valid key too', async () => {
    const { storeId, admin } = await createTenant(t);
    const events = await issueKey(t, admin.secret, { scopes: ['events'], store_id: storeId });
    const { result, stallMs } = await longestStall(() => flood(`/v1/stores/${storeId}/events/batch`, bearer(events.secret)));
    for (const answer of result) expectErrors(answer, { events: 'too_many_items' });
    expect(result[0].body.errors[0].message).toBe(`events holds more than ${MAX_ARRAY_ITEMS} items`);
    // Parsing 1 MiB is the one cost left: a few milliseconds per body.
    expect(stallMs).toBeLessThan(250);
  });

  it('gives the large limit to the batch route alone: the same body elsewhere is 413', async () => {
    const { storeId, admin } = await createTenant(t);
    for (const path of ['/v1/stores', `/v1/stores/${storeId}/products`]) {
      const [answer] = await flood(path, bearer(admin.secret), 1);
      expectProblem(answer, 413, 'payload_too_large');
    }
  });
});
