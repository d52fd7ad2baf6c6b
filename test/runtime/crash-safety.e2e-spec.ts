/**
 * Crash safety: the service is killed with SIGKILL in the middle of event ingestion (single events at some
 * concurrency, and batches of 500 in flight), then started again on the same database. Whatever was acknowledged is
 * stored exactly once, a batch is stored wholly or not at all, the metrics summaries agree with the stored events,
 * and every delivery the kill cut off can be retried and is stored once.
 *
 * Runs on PostgreSQL (a database of its own, created and dropped here) when DATABASE_URL is set, otherwise on the
 * embedded database in a temporary data directory. The service runs as a child process so that it can really die.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTenant, type Tenant } from '../support/fixtures.js';
import { SHOPPER } from '../support/metrics-fixtures.js';
import { createShop, type Shop } from '../support/session-fixtures.js';
import { scratchDatabase, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

const SOURCE = 'storefront';
const BATCH = 500;
const WORKERS = 12;
/** Single events acknowledged before the measured batch is sent (so the kill lands in a running load). */
const WARM_UP = 150;

type Body = Record<string, unknown>;

interface Delivery {
  body: Body;
  /** The HTTP status, or `cut` when the connection died before an answer came. */
  outcome?: number | 'cut';
}

interface BatchDelivery {
  bodies: Body[];
  /** The per-event statuses of a 200 answer, or `cut`. */
  outcome?: number[] | 'cut';
  sentAt?: number;
}

const acknowledged = (status: number | 'cut' | undefined) => status === 201 || status === 200;

/** A fetch that retries a connection that failed before any answer (a keep-alive socket of the killed process). */
async function send(url: string, init: RequestInit, attempts = 3): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(200);
    }
  }
}

describe(`killed with SIGKILL under load, on ${onPostgres ? 'PostgreSQL' : 'the embedded database'}`, () => {
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  let service: ServiceProcess | undefined;
  let tenant: Tenant;
  let shop: Shop;
  let sessionId: string;
  const singles: Delivery[] = [];
  /** Batches sent to the end before the kill, to time one. */
  const acknowledgedBatches: BatchDelivery[] = [];
  const cutBatches: BatchDelivery[] = [];
  let restartMs = 0;

  let counter = 0;
  /** Every fourth a purchase of a new order line linked to the recommended session, the rest views. */
  const newEvent = (): Body => {
    const n = ++counter;
    const body: Body = {
      source: SOURCE,
      external_id: `delivery-${process.pid}-${n}`,
      type: n % 4 === 0 ? 'purchase' : 'fit_viewed',
      occurred_at: new Date().toISOString(),
    };
    if (n % 4 === 0) {
      Object.assign(body, {
        product_id: shop.productId,
        variant_id: shop.variants.M,
        session_id: sessionId,
        order_id: `order-${Math.floor(n / 40)}`,
        line_item_id: `line-${n}`,
      });
    }
    return body;
  };

  /** Every event body sent, singly or in a batch. */
  const everySent = (): Body[] => [...singles.map((d) => d.body), ...[...acknowledgedBatches, ...cutBatches].flatMap((b) => b.bodies)];

  const headers = () => ({ authorization: `Bearer ${tenant.admin.secret}`, 'content-type': 'application/json' });
  const eventsUrl = () => `${(service as ServiceProcess).base}/v1/stores/${tenant.storeId}/events`;

  const postBatch = async (delivery: BatchDelivery): Promise<void> => {
    try {
      const response = await fetch(`${eventsUrl()}/batch`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ events: delivery.bodies }),
      });
      const answer = (await response.json()) as { results?: { status: number }[] };
      delivery.outcome = response.status === 200 ? (answer.results ?? []).map((r) => r.status) : [response.status];
    } catch {
      delivery.outcome = 'cut';
    }
  };

  /** How many times each delivery key of ours is stored now, read through the API. */
  const storedCounts = async (): Promise<Map<string, number>> => {
    const counts = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const query = `?source=${SOURCE}&limit=100${cursor ? `&starting_after=${cursor}` : ''}`;
      const response = await send(`${eventsUrl()}${query}`, { headers: headers() });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: { external_id: string }[]; next_cursor: string | null };
      for (const event of page.data) counts.set(event.external_id, (counts.get(event.external_id) ?? 0) + 1);
      cursor = page.next_cursor;
    } while (cursor);
    return counts;
  };

  const metricsCounts = async (): Promise<Record<string, number>> => {
    const response = await send(`${(service as ServiceProcess).base}/v1/stores/${tenant.storeId}/metrics`, { headers: headers() });
    expect(response.status).toBe(200);
    return ((await response.json()) as { counts: Record<string, number> }).counts;
  };

  beforeAll(async () => {
    database = await scratchDatabase();
    service = await startServiceProcess({ database: database.env });
    tenant = await createTenant(service.asTestApp);
    shop = await createShop(service.asTestApp, tenant.storeId, tenant.admin.secret);
    const sessions = `/v1/stores/${tenant.storeId}/sessions`;
    const started = await service.http().post(sessions).set(headers()).send({ product_id: shop.productId });
    expect(started.status).toBe(201);
    sessionId = started.body.id;
    const answered = await service.http().post(`${sessions}/${sessionId}/answers`).set(headers()).send({ answers: SHOPPER });
    expect(answered.status).toBe(200);

    // Single events from WORKERS concurrent clients, until the kill.
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const delivery: Delivery = { body: newEvent() };
        singles.push(delivery);
        try {
          const response = await fetch(eventsUrl(), { method: 'POST', headers: headers(), body: JSON.stringify(delivery.body) });
          delivery.outcome = response.status;
          await response.arrayBuffer().catch(() => undefined);
        } catch {
          delivery.outcome = 'cut';
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    while (singles.filter((d) => acknowledged(d.outcome)).length < WARM_UP) await sleep(20);

    // Batches under that load, to the end: how long one takes here and now. The quickest of two: the first may pay
    // for what a connection does once (preparing statements), and timing by it let the later batches finish before
    // the kill.
    let batchMs = Infinity;
    for (let i = 0; i < 2; i++) {
      const batch: BatchDelivery = { bodies: Array.from({ length: BATCH }, newEvent) };
      acknowledgedBatches.push(batch);
      const batchStart = Date.now();
      await postBatch(batch);
      batchMs = Math.min(batchMs, Date.now() - batchStart);
      expect(batch.outcome).toEqual(Array(BATCH).fill(201));
    }

    // Two more: the kill comes at 70% of a batch's time after the first was sent, 30% after the second.
    for (const delay of [0, 0.4 * batchMs]) {
      await sleep(delay);
      const delivery: BatchDelivery = { bodies: Array.from({ length: BATCH }, newEvent), sentAt: Date.now() };
      cutBatches.push(delivery);
      void postBatch(delivery);
    }
    await sleep(0.3 * batchMs);
    await service.kill('SIGKILL');
    killed = true;
    await Promise.all(workers);
    await sleep(100); // the batch requests see their connection end

    const killedAt = Date.now();
    const port = service.port;
    service = undefined;
    // At once, on the first attempt: the embedded database's lock of a killed process is recognised as a leftover.
    service = await startServiceProcess({ database: database.env, port });
    restartMs = Date.now() - killedAt;
    // Figures for the record (visible with --verbose).
    process.stderr.write(
      `crash safety: ${singles.filter((d) => acknowledged(d.outcome)).length} single events acknowledged and ` +
        `${singles.filter((d) => d.outcome === 'cut').length} cut by the kill; batch of ${BATCH} took ${batchMs} ms; ` +
        `restart after the kill took ${restartMs} ms\n`,
    );
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  }, 60_000);

  it('was killed with requests in flight, and started again on the same database', () => {
    const unexpected = singles.filter((d) => d.outcome !== undefined && !acknowledged(d.outcome) && d.outcome !== 'cut');
    expect(unexpected.map((d) => d.outcome)).toEqual([]);
    expect(singles.filter((d) => d.outcome === 'cut').length).toBeGreaterThan(0);
    expect(cutBatches.some((b) => b.outcome === 'cut')).toBe(true);
    expect(restartMs).toBeGreaterThan(0);
  });

  it('stores every acknowledged event exactly once, and nothing that was never sent', async () => {
    const stored = await storedCounts();
    const sent = new Set(everySent().map((body) => body.external_id));
    const missing = singles.filter((d) => acknowledged(d.outcome) && stored.get(d.body.external_id as string) !== 1);
    expect(missing.map((d) => d.body.external_id)).toEqual([]);
    expect([...stored].filter(([id, n]) => n !== 1 || !sent.has(id))).toEqual([]);
    // Of the deliveries the kill cut off, some may have committed before it: stored once, or not at all.
    for (const d of singles.filter((s) => s.outcome === 'cut')) expect([0, 1]).toContain(stored.get(d.body.external_id as string) ?? 0);
  });

  it('stores a batch wholly or not at all, and an acknowledged batch wholly', async () => {
    const stored = await storedCounts();
    const present = (b: BatchDelivery) => b.bodies.filter((body) => stored.get(body.external_id as string) === 1).length;
    for (const batch of acknowledgedBatches) expect(present(batch)).toBe(BATCH);
    process.stderr.write(
      `crash safety: batches in flight at the kill: ${cutBatches.map((b) => `${b.outcome === 'cut' ? 'cut' : 'answered'}, ${present(b)} of ${BATCH} stored`).join('; ')}\n`,
    );
    for (const batch of cutBatches) {
      if (batch.outcome === 'cut') expect([0, BATCH]).toContain(present(batch));
      else expect({ outcome: batch.outcome, present: present(batch) }).toEqual({ outcome: Array(BATCH).fill(201), present: BATCH });
    }
  });

  it('keeps the metrics summaries in step with the stored events', async () => {
    const stored = await storedCounts();
    const purchases = everySent().filter((body) => body.type === 'purchase' && stored.has(body.external_id as string));
    expect(await metricsCounts()).toMatchObject({ purchased_lines: purchases.length, converted_sessions: 1 });
  });

  it('accepts a retry of every delivery the kill cut off, and then stores each exactly once', async () => {
    const before = await storedCounts();
    const retries: { id: string; expected: number; status: number }[] = [];
    const cut = singles.filter((d) => d.outcome === 'cut');
    // Acknowledged deliveries sent again: the deduplication survived the crash.
    const again = singles.filter((d) => acknowledged(d.outcome)).slice(0, 50);
    const queue = [...cut, ...again];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) {
          const response = await send(eventsUrl(), { method: 'POST', headers: headers(), body: JSON.stringify(d.body) });
          const id = d.body.external_id as string;
          retries.push({ id, expected: before.has(id) ? 200 : 201, status: response.status });
        }
      }),
    );
    expect(retries.filter((r) => r.status !== r.expected)).toEqual([]);

    for (const batch of cutBatches.filter((b) => b.outcome === 'cut')) {
      const wasStored = before.has(batch.bodies[0].external_id as string);
      const response = await send(`${eventsUrl()}/batch`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ events: batch.bodies }),
      });
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: { status: number }[] };
      expect(results.map((r) => r.status)).toEqual(Array(BATCH).fill(wasStored ? 200 : 201));
    }

    const after = await storedCounts();
    const all = everySent();
    expect(all.filter((body) => after.get(body.external_id as string) !== 1).map((body) => body.external_id)).toEqual([]);
    expect(after.size).toBe(all.length);
    expect(await metricsCounts()).toMatchObject({
      purchased_lines: all.filter((body) => body.type === 'purchase').length,
      converted_sessions: 1,
    });
  });
});
