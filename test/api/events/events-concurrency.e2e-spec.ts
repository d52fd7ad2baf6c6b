/**
 * Events e2e: concurrent deliveries and batches of the same keys and order lines, and a product deleted while an event
 * names it.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../../support/app.js';
import { expectProblem, TIMESTAMP } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { ahead, type BatchResult, eventBody, eventsApi, INTEGRATION_TYPES } from '../../support/event-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { postRaw, batchRaw, newShop, expectNoServerError, startSession, delivered } = eventsApi(t);

  // ——— concurrency ———

  describe('concurrency', () => {
    it('gives exactly one 201 to twenty concurrent identical deliveries, 200 with the same event to the rest, and stores one row', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop);
      const responses = await Promise.all(Array.from({ length: 20 }, () => postRaw(shop, body)));
      responses.forEach(expectNoServerError);
      expect(responses.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201]);
      const winner = responses.find((r) => r.status === 201) as Response;
      for (const response of responses) expect(response.body).toEqual(winner.body);
      expect(await delivered(shop, `?source=${body.source}`)).toEqual([winner.body]);
    });

    it('gives exactly one 201 to twenty concurrent deliveries of one key with different payloads, 409 to the rest', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop);
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => postRaw(shop, { ...body, quantity: i + 1 })));
      responses.forEach(expectNoServerError);
      expect(responses.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);
      for (const refused of responses.filter((r) => r.status === 409)) expectProblem(refused, 409, 'event_conflict');
      const winner = responses.find((r) => r.status === 201) as Response;
      expect(await delivered(shop, `?source=${body.source}`)).toEqual([winner.body]);
    });

    it('stores each key once when concurrent batches carry the same keys in opposite orders, without a 5xx', async () => {
      const shop = await newShop();
      for (let round = 0; round < 3; round++) {
        const items = Array.from({ length: 40 }, (_, i) => eventBody(INTEGRATION_TYPES[i % INTEGRATION_TYPES.length], shop));
        const reversed = [...items].reverse();
        const shuffled = [...items].sort((a, b) => String(a.external_id).localeCompare(String(b.external_id)) * (round % 2 ? 1 : -1));
        const responses = await Promise.all([
          batchRaw(shop, { events: items }),
          batchRaw(shop, { events: reversed }),
          batchRaw(shop, { events: shuffled }),
          postRaw(shop, items[0]),
          postRaw(shop, items[39]),
        ]);
        responses.forEach(expectNoServerError);
        expect(responses.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);

        const byKey = new Map<string, { statuses: number[]; ids: Set<string> }>();
        const note = (key: string, status: number, id: string | undefined) => {
          const entry = byKey.get(key) ?? { statuses: [], ids: new Set<string>() };
          entry.statuses.push(status);
          if (id) entry.ids.add(id);
          byKey.set(key, entry);
        };
        for (const response of responses.slice(0, 3)) {
          for (const result of response.body.results as BatchResult[]) {
            expect([200, 201]).toContain(result.status);
            note(result.event?.external_id as string, result.status, result.event?.id);
          }
        }
        for (const single of responses.slice(3)) {
          expect([200, 201]).toContain(single.status);
          note(single.body.external_id, single.status, single.body.id);
        }
        expect(byKey.size).toBe(40);
        for (const [, entry] of byKey) {
          expect(entry.statuses.filter((s) => s === 201)).toHaveLength(1);
          expect(entry.ids.size).toBe(1);
        }
      }
      const listed = await delivered(shop);
      expect(listed).toHaveLength(120);
      expect(new Set(listed.map((e) => e.external_id)).size).toBe(120);
    });

    it('takes concurrent batches about the same order lines, in opposite orders, without a 5xx', async () => {
      const shop = await newShop();
      const sessions = [await startSession(shop), await startSession(shop)];
      const later = ahead(0);
      const lines = Array.from({ length: 8 }, (_, i) => ({ order_id: `race-${i >> 1}`, line_item_id: `${i}` }));
      const batchFor = (k: number) =>
        lines.flatMap((line, i) => [
          eventBody('purchase', shop, { ...line, session_id: sessions[(i + k) % 2].id, occurred_at: later }),
          eventBody(['return_requested', 'size_exchange'][(i + k) % 2], shop, { ...line, reason: 'size' }),
          eventBody('item_kept', shop, line),
        ]);
      const batches = Array.from({ length: 4 }, (_, k) => (k % 2 ? batchFor(k).reverse() : batchFor(k)));
      const responses = await Promise.all([
        ...batches.map((events) => batchRaw(shop, { events })),
        ...lines.map((line) => postRaw(shop, eventBody('purchase', shop, line))),
      ]);
      responses.forEach(expectNoServerError);
      for (const response of responses.slice(0, 4)) {
        expect(response.status).toBe(200);
        expect((response.body.results as BatchResult[]).every((r) => r.status === 201)).toBe(true);
      }
      for (const response of responses.slice(4)) expect(response.status).toBe(201);
      expect(await delivered(shop)).toHaveLength(4 * 24 + 8);
      expect(await delivered(shop, '?order_id=race-0')).toHaveLength(4 * 6 + 2);
    });

    it('lets a product delete racing an event naming it either archive the product and store the event, or delete it and refuse the event', async () => {
      const shop = await newShop();
      for (let round = 0; round < 6; round++) {
        const productId = (
          await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
        ).id;
        const variantId = (await createVariant(t, shop.secret, shop.storeId, productId, { size_label: 'M' })).id;
        const body = eventBody('purchase', shop, { product_id: productId, variant_id: variantId });
        const remove = () => t.http().delete(`/v1/stores/${shop.storeId}/products/${productId}`).set(bearer(shop.secret));
        const send = () => (round % 2 ? batchRaw(shop, { events: [body] }) : postRaw(shop, body));
        const [removed, sent] =
          round % 3 ? await Promise.all([remove(), send()]) : await Promise.all([send(), remove()]).then(([a, b]) => [b, a]);
        expectNoServerError(removed);
        expectNoServerError(sent);
        const status = sent.status === 200 && sent.body.results ? (sent.body.results as BatchResult[])[0].status : sent.status;
        if (removed.status === 204) {
          // the product is gone: the event cannot have been stored
          expect(status).toBe(400);
          const problem = sent.body.results ? (sent.body.results as BatchResult[])[0].error : sent.body;
          expect(problem?.code).toBe('validation_failed');
          expect((problem?.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`)).toContain(
            'product_id:not_found',
          );
          expect(await delivered(shop, `?product_id=${productId}`)).toEqual([]);
        } else {
          expect(removed.status).toBe(200);
          expect(removed.body.archived_at).toMatch(TIMESTAMP);
          expect(status).toBe(201);
          expect(await delivered(shop, `?product_id=${productId}`)).toHaveLength(1);
        }
      }
    });

    it('keeps concurrent batches that repeat one key with changed payloads to one 201 and 409s', async () => {
      const shop = await newShop();
      const shared = eventBody('purchase', shop);
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) => batchRaw(shop, { events: [eventBody('fit_viewed', shop), { ...shared, quantity: i + 1 }] })),
      );
      responses.forEach(expectNoServerError);
      const sharedStatuses = responses.map((r) => (r.body.results as BatchResult[])[1].status).sort();
      expect(sharedStatuses).toEqual([201, 409, 409, 409, 409, 409]);
      for (const r of responses) expect((r.body.results as BatchResult[])[0].status).toBe(201);
      expect(await delivered(shop)).toHaveLength(7);
    });
  });
});
