import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { createTenant, expectProblem, issueKey, type Tenant } from '../../support/fixtures.js';
import { eventBody, INTEGRATION_TYPES, uniqueId } from '../../support/event-fixtures.js';
import { createShop, sessionEvents, type Shop } from '../../support/session-fixtures.js';

/**
 * Many clients at once, over real sockets: the properties hold whether the database runs requests in parallel
 * (PostgreSQL) or one after another (the embedded database has one connection).
 */

const CLIENTS = 50;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read field by field, as supertest's own type does
  body: any;
  /** When the request was handed to the socket, and when its answer was complete (performance.now()). */
  sentAt: number;
  answeredAt: number;
}

describe('concurrency', () => {
  // No rate limit: fifty clients of one key are the point here, not the budget.
  const t = useApp({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 });
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + 10 });
  let base: { host: string; port: number };

  beforeAll(async () => {
    const server = t.app.getHttpServer() as unknown as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as AddressInfo;
    base = { host: address.address, port: address.port };
  });
  afterAll(() => agent.destroy());

  /** One request on the shared keep-alive agent; the JSON answer parsed. */
  function call(method: string, path: string, secret: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const sentAt = performance.now();
      const req = httpRequest(
        {
          ...base,
          agent,
          method,
          path,
          headers: {
            ...bearer(secret),
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: kept as text, the assertions will show it
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, sentAt, answeredAt: performance.now() });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const db = () => t.app.get(DataSource);
  const eventsPath = (shop: Shop) => `/v1/stores/${shop.storeId}/events`;

  async function newShop(): Promise<Shop & { tenant: Tenant }> {
    const tenant = await createTenant(t);
    return { ...(await createShop(t, tenant.storeId, tenant.admin.secret)), tenant };
  }

  async function eventRows(shop: Shop, source: string, externalId: string): Promise<{ id: string; quantity: number | null }[]> {
    return db().query(`SELECT id, quantity FROM events WHERE store_id = $1 AND source = $2 AND external_id = $3`, [
      shop.storeId,
      source,
      externalId,
    ]);
  }

  /** Fails with the answer itself, so that a 5xx shows what the service said. */
  function expectNoServerError(answer: Answer): void {
    if (answer.status >= 500) expect({ status: answer.status, body: answer.body }).toEqual({ status: 'below 500' });
  }

  // ——— events ———

  it(`gives one 201 to ${CLIENTS} concurrent identical deliveries, 200 with the same stored event to the rest, and stores one row`, async () => {
    const shop = await newShop();
    const body = eventBody('purchase', shop);
    const answers = await Promise.all(Array.from({ length: CLIENTS }, () => call('POST', eventsPath(shop), shop.secret, body)));

    answers.forEach(expectNoServerError);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(CLIENTS - 1).fill(200), 201]);
    const winner = answers.find((a) => a.status === 201) as Answer;
    for (const answer of answers) expect(answer.body).toEqual(winner.body);
    const rows = await eventRows(shop, body.source as string, body.external_id as string);
    expect(rows.map((row) => row.id)).toEqual([winner.body.id]);
  });

  it(`gives one 201 to ${CLIENTS} concurrent conflicting deliveries of one key, 409 event_conflict to the rest, and stores the winner only`, async () => {
    const shop = await newShop();
    const body = eventBody('purchase', shop);
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => call('POST', eventsPath(shop), shop.secret, { ...body, quantity: i + 1 })),
    );

    answers.forEach(expectNoServerError);
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(CLIENTS - 1).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, 'event_conflict');
    const winner = answers.find((a) => a.status === 201) as Answer;
    const rows = await eventRows(shop, body.source as string, body.external_id as string);
    expect(rows).toEqual([{ id: winner.body.id, quantity: winner.body.quantity }]);
  });

  it('stores each key once when two batches carry overlapping keys in opposite orders, without a deadlock surfacing', async () => {
    const shop = await newShop();
    for (let round = 0; round < 3; round++) {
      // 60 shared keys, and 20 of each batch's own
      const shared = Array.from({ length: 60 }, (_, i) => eventBody(INTEGRATION_TYPES[i % INTEGRATION_TYPES.length], shop));
      const own = () => Array.from({ length: 20 }, () => eventBody('fit_viewed', shop));
      const first = [...own(), ...shared];
      const second = [...shared.slice().reverse(), ...own()];
      const answers = await Promise.all([
        call('POST', `${eventsPath(shop)}/batch`, shop.secret, { events: first }),
        call('POST', `${eventsPath(shop)}/batch`, shop.secret, { events: second }),
      ]);
      answers.forEach(expectNoServerError);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);

      const created = new Map<string, number>();
      for (const answer of answers) {
        for (const result of answer.body.results as { status: number; event?: { external_id: string } }[]) {
          expect([200, 201]).toContain(result.status);
          const key = result.event?.external_id as string;
          created.set(key, (created.get(key) ?? 0) + (result.status === 201 ? 1 : 0));
        }
      }
      expect(created.size).toBe(100);
      expect([...created.values()].every((n) => n === 1)).toBe(true);
      const [stored] = await db().query(
        `SELECT count(*)::int AS rows, count(DISTINCT external_id)::int AS keys FROM events WHERE store_id = $1 AND external_id = ANY($2)`,
        [shop.storeId, [...created.keys()]],
      );
      expect(stored).toEqual({ rows: 100, keys: 100 });
    }
  });

  it('serves a burst of batches larger than its connection pool, each request waiting its turn rather than refused as 503', async () => {
    const shop = await newShop();
    const batches = 4 * CLIENTS;
    const answers = await Promise.all(
      Array.from({ length: batches }, () =>
        call('POST', `${eventsPath(shop)}/batch`, shop.secret, {
          events: Array.from({ length: 25 }, (_, i) => eventBody(INTEGRATION_TYPES[i % INTEGRATION_TYPES.length], shop)),
        }),
      ),
    );

    answers.forEach(expectNoServerError);
    expect(answers.map((a) => a.status)).toEqual(Array(batches).fill(200));
    const [stored] = await db().query(`SELECT count(*)::int AS rows FROM events WHERE store_id = $1`, [shop.storeId]);
    expect(stored.rows).toBe(batches * 25);
  });

  // ——— sessions ———

  it(`lets exactly one of ${CLIENTS} concurrent decisions on one session through, refuses the rest with 409, and stores one decision`, async () => {
    const shop = await newShop();
    const started = await t
      .http()
      .post(`/v1/stores/${shop.storeId}/sessions`)
      .set(bearer(shop.secret))
      .send({ product_id: shop.productId });
    expect(started.status).toBe(201);
    const sessionPath = `/v1/stores/${shop.storeId}/sessions/${started.body.id}`;
    const answered = await t
      .http()
      .post(`${sessionPath}/answers`)
      .set(bearer(shop.secret))
      .send({ answers: { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' } });
    expect(answered.status).toBe(200);

    const labels = ['S', 'M', 'L', 'XL'] as const;
    const bodies = Array.from({ length: CLIENTS }, (_, i) =>
      i % 2 ? { size_label: labels[i % 4] } : { variant_id: shop.variants[labels[(i >> 1) % 4]] },
    );
    const answers = await Promise.all(bodies.map((body) => call('POST', `${sessionPath}/decision`, shop.secret, body)));

    answers.forEach(expectNoServerError);
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(CLIENTS - 1).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, 'session_state_conflict');
    const winner = answers.find((a) => a.status === 200) as Answer;
    const read = await t.http().get(sessionPath).set(bearer(shop.secret));
    expect(read.body).toEqual(winner.body);
    expect(read.body.state).toBe('completed');

    const decisions = (await sessionEvents(t, started.body.id)).filter((e) =>
      ['recommendation_accepted', 'recommendation_overridden'].includes(e.type),
    );
    expect(decisions).toHaveLength(1);
    expect(decisions[0].type).toBe(`recommendation_${winner.body.outcome}`);
    expect(decisions[0].variant_id).toBe(winner.body.decision.variant_id);
  });

  // ——— credentials ———

  it(`refuses with 401 every request sent after a key's revocation answered, while ${CLIENTS} clients use the key`, async () => {
    const shop = await newShop();
    const key = await issueKey(t, shop.tenant.admin.secret, { scopes: ['events', 'catalog'], store_id: shop.storeId });
    const sent: (Answer & { what: 'event' | 'list'; externalId?: string })[] = [];
    let revokedAt = Number.POSITIVE_INFINITY;
    let revocationStartedAt = Number.POSITIVE_INFINITY;
    let stop = false;

    // Each client sends one request after another: an event, or a read of the catalog.
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        if ((n + i) % 2) {
          const body = eventBody('fit_viewed', shop, { external_id: uniqueId('revoke') });
          sent.push({ ...(await call('POST', eventsPath(shop), key.secret, body)), what: 'event', externalId: body.external_id as string });
        } else {
          sent.push({ ...(await call('GET', `/v1/stores/${shop.storeId}/products?limit=5`, key.secret)), what: 'list' });
        }
      }
    };
    const revoker = async () => {
      // let the clients get going, then revoke with the admin key while they keep sending
      while (sent.filter((a) => a.status < 300).length < 2 * CLIENTS) await new Promise((r) => setTimeout(r, 5));
      revocationStartedAt = performance.now();
      const revoked = await call('DELETE', `/v1/api-keys/${key.id}`, shop.tenant.admin.secret);
      revokedAt = performance.now();
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      // keep the clients going until each has sent several requests after the revocation
      while (sent.filter((a) => a.sentAt > revokedAt).length < 4 * CLIENTS) await new Promise((r) => setTimeout(r, 5));
      stop = true;
    };
    await Promise.all([revoker(), ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);

    sent.forEach(expectNoServerError);
    const before = sent.filter((a) => a.answeredAt < revocationStartedAt);
    const after = sent.filter((a) => a.sentAt > revokedAt);
    const inFlight = sent.filter((a) => !before.includes(a) && !after.includes(a));
    // answered before the revocation began: the key was good
    expect(before.length).toBeGreaterThanOrEqual(2 * CLIENTS);
    for (const answer of before) expect([200, 201]).toContain(answer.status);
    // overlapping it: either way, but nothing else
    for (const answer of inFlight) expect([200, 201, 401]).toContain(answer.status);
    // sent after it answered: refused, every one
    expect(after.length).toBeGreaterThanOrEqual(4 * CLIENTS);
    const late = after.filter((a) => a.status !== 401);
    expect(late.map((a) => ({ status: a.status, what: a.what, sentAfterMs: a.sentAt - revokedAt }))).toEqual([]);
    for (const answer of after) expectProblem(answer, 401, 'unauthenticated');

    // and no event sent after the revocation was stored
    const refusedIds = after.filter((a) => a.what === 'event').map((a) => a.externalId as string);
    const [stored] = await db().query(`SELECT count(*)::int AS n FROM events WHERE store_id = $1 AND external_id = ANY($2)`, [
      shop.storeId,
      refusedIds,
    ]);
    expect(stored.n).toBe(0);
    // every event that got a 201 is there
    const acceptedIds = sent.filter((a) => a.what === 'event' && a.status === 201).map((a) => a.externalId as string);
    const [kept] = await db().query(`SELECT count(*)::int AS n FROM events WHERE store_id = $1 AND external_id = ANY($2)`, [
      shop.storeId,
      acceptedIds,
    ]);
    expect(kept.n).toBe(acceptedIds.length);
  });
});
