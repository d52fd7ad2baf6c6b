import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, type TestApp, useApp } from '../../support/app.js';
import { createTenant } from '../../support/fixtures.js';
import { createShop, type Shop } from '../../support/session-fixtures.js';

const ANSWERS = {
  answers: { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' },
};

async function recommendedSession(t: TestApp, shop: Shop): Promise<string> {
  const base = `/v1/stores/${shop.storeId}/sessions`;
  const session = await t.http().post(base).set(bearer(shop.secret)).send({ product_id: shop.productId });
  expect(session.status).toBe(201);
  const answered = await t.http().post(`${base}/${session.body.id}/answers`).set(bearer(shop.secret)).send(ANSWERS);
  expect(answered.status).toBe(200);
  return session.body.id as string;
}

/**
 * The per-line summaries the metrics read, recomputed from the events table alone: what `order_lines` and
 * `session_lines` must hold after any interleaving of deliveries.
 */
async function expectSummariesMatchEvents(t: TestApp, storeId: string): Promise<void> {
  const db = t.app.get(DataSource);
  const recomputedLines = await db.query(
    `SELECT order_id, line_item_id,
            min(occurred_at) FILTER (WHERE type = 'return_requested' AND reason = 'size') AS size_returned_at,
            min(occurred_at) FILTER (WHERE type = 'item_kept') AS kept_at,
            min(occurred_at) FILTER (WHERE type = 'size_exchange' AND reason = 'size') AS size_exchanged_at
       FROM events
      WHERE store_id = $1 AND (type IN ('purchase', 'item_kept') OR (type IN ('return_requested', 'size_exchange') AND reason = 'size'))
      GROUP BY order_id, line_item_id ORDER BY order_id, line_item_id`,
    [storeId],
  );
  const storedLines = await db.query(
    `SELECT order_id, line_item_id, size_returned_at, kept_at, size_exchanged_at
       FROM order_lines WHERE store_id = $1 ORDER BY order_id, line_item_id`,
    [storeId],
  );
  expect(storedLines).toEqual(recomputedLines);

  const recomputedLinks = await db.query(
    `SELECT e.session_id, e.order_id, e.line_item_id, s.created_at AS session_created_at,
            s.recommended_at IS NOT NULL AS session_recommended,
            (SELECT count(DISTINCT o.session_id) > 1 FROM events o
              WHERE o.store_id = e.store_id AND o.type = 'purchase' AND o.order_id = e.order_id
                AND o.line_item_id = e.line_item_id) AS shared,
            min(e.occurred_at) AS purchased_at, l.size_returned_at, l.kept_at, l.size_exchanged_at
       FROM events e JOIN sessions s ON s.id = e.session_id
       JOIN order_lines l ON l.store_id = e.store_id AND l.order_id = e.order_id AND l.line_item_id = e.line_item_id
      WHERE e.store_id = $1 AND e.type = 'purchase'
      GROUP BY e.store_id, e.session_id, e.order_id, e.line_item_id, s.created_at, s.recommended_at, l.size_returned_at,
               l.kept_at, l.size_exchanged_at
      ORDER BY 1, 2, 3`,
    [storeId],
  );
  const storedLinks = await db.query(
    `SELECT session_id, order_id, line_item_id, session_created_at, session_recommended, shared, purchased_at,
            size_returned_at, kept_at, size_exchanged_at
       FROM session_lines WHERE store_id = $1 ORDER BY 1, 2, 3`,
    [storeId],
  );
  expect(storedLinks).toEqual(recomputedLinks);

  const firstPurchases = await db.query(
    `SELECT s.id, s.first_purchased_at,
            (SELECT min(e.occurred_at) FROM events e WHERE e.session_id = s.id AND e.type = 'purchase') AS recomputed
       FROM sessions s WHERE s.store_id = $1`,
    [storeId],
  );
  for (const row of firstPurchases) expect(row.first_purchased_at).toEqual(row.recomputed);
}

describe('metrics under concurrent deliveries', () => {
  const t = useApp();

  it('counts every outcome of a line whatever order its events race in', async () => {
    const tenant = await createTenant(t);
    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    const lines = 8;
    const sessions: string[] = [];
    for (let i = 0; i < lines; i++) sessions.push(await recommendedSession(t, shop));

    const at = new Date().toISOString();
    const line = (i: number) => ({
      source: 'shop',
      product_id: shop.productId,
      variant_id: shop.variants.M,
      order_id: `R-${i}`,
      line_item_id: '1',
      occurred_at: at,
    });
    const events = sessions.flatMap((sessionId, i) => [
      { ...line(i), external_id: `purchase-${i}`, type: 'purchase', session_id: sessionId },
      { ...line(i), external_id: `return-${i}`, type: 'return_requested', reason: 'size' },
      { ...line(i), external_id: `kept-${i}`, type: 'item_kept' },
      { ...line(i), external_id: `exchange-${i}`, type: 'size_exchange', reason: 'size', session_id: sessionId },
    ]);
    // the four events of each line, and two batches carrying all of them again, race each other
    const shuffled = events.map((event, i) => ({ event, key: (i * 7919) % events.length })).sort((a, b) => a.key - b.key);
    const responses = await Promise.all([
      ...shuffled.map(({ event }) => t.http().post(`/v1/stores/${shop.storeId}/events`).set(bearer(shop.secret)).send(event)),
      t.http().post(`/v1/stores/${shop.storeId}/events/batch`).set(bearer(shop.secret)).send({ events }),
      t
        .http()
        .post(`/v1/stores/${shop.storeId}/events/batch`)
        .set(bearer(shop.secret))
        .send({ events: [...events].reverse() }),
    ]);
    for (const response of responses) expect([200, 201]).toContain(response.status);
    const statuses = responses.slice(-2).flatMap((batch) => (batch.body.results as Array<{ status: number }>).map((r) => r.status));
    const created = responses.filter((r) => r.status === 201).length + statuses.filter((s) => s === 201).length;
    expect(created).toBe(events.length);

    const metrics = await t.http().get(`/v1/stores/${shop.storeId}/metrics`).set(bearer(shop.secret));
    expect(metrics.status).toBe(200);
    expect(metrics.body.counts).toMatchObject({
      recommended_sessions: lines,
      converted_sessions: lines,
      purchased_lines: lines,
      size_returned_lines: lines,
      kept_lines: lines,
      size_exchanged_lines: lines,
    });
    await expectSummariesMatchEvents(t, shop.storeId);
  });

  it('links purchases racing the answers of their sessions, and lines bought with several sessions, exactly once', async () => {
    const tenant = await createTenant(t);
    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    const base = `/v1/stores/${shop.storeId}`;
    const count = 6;
    const sessions: string[] = [];
    for (let i = 0; i < count; i++) {
      const session = await t.http().post(`${base}/sessions`).set(bearer(shop.secret)).send({ product_id: shop.productId });
      expect(session.status).toBe(201);
      sessions.push(session.body.id as string);
    }
    const at = new Date().toISOString();
    const purchase = (i: number, order: string, sessionId: string) => ({
      source: 'shop',
      external_id: `purchase-${order}-${i}`,
      type: 'purchase',
      product_id: shop.productId,
      variant_id: shop.variants.L,
      session_id: sessionId,
      order_id: order,
      line_item_id: '1',
      occurred_at: at,
    });
    // line P-i is bought with session i; line Q is bought with every session, each delivery racing the others
    const responses = await Promise.all([
      ...sessions.map((id) => t.http().post(`${base}/sessions/${id}/answers`).set(bearer(shop.secret)).send(ANSWERS)),
      ...sessions.map((id, i) =>
        t
          .http()
          .post(`${base}/events`)
          .set(bearer(shop.secret))
          .send(purchase(i, `P-${i}`, id)),
      ),
      ...sessions.map((id, i) =>
        t
          .http()
          .post(`${base}/events`)
          .set(bearer(shop.secret))
          .send(purchase(i, 'Q', id)),
      ),
    ]);
    for (const response of responses) expect([200, 201]).toContain(response.status);

    const metrics = await t.http().get(`${base}/metrics`).set(bearer(shop.secret));
    expect(metrics.body.counts).toMatchObject({
      started_sessions: count,
      recommended_sessions: count,
      converted_sessions: count,
      purchased_lines: count + 1,
    });
    await expectSummariesMatchEvents(t, shop.storeId);
  });
});
