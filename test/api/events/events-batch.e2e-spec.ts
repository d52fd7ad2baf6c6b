/** Events e2e: POST …/events/batch, answered item by item in request order, or refused as a whole. */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import { expectProblem, MISSING_ID, TIMESTAMP } from '../../support/fixtures.js';
import {
  type BatchResult,
  type EventBody,
  eventBody,
  eventsApi,
  INTEGRATION_TYPES,
  minutes,
  oneYearAgo,
  uniqueId,
  withFailingInsertOf,
  withOffset,
  without,
} from '../../support/event-fixtures.js';
import { type Shop } from '../../support/session-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { postRaw, batchRaw, newShop, expectNoServerError, deliver, listAll, delivered, storedForm } = eventsApi(t);

  // ——— batches ———

  describe('batch', () => {
    it('answers every item in request order: 201, 200, 409, 400, reserved, and stores only the accepted ones', async () => {
      const shop = await newShop();
      const stored = eventBody('purchase', shop);
      const storedEvent = await deliver(shop, stored);

      const fresh = eventBody('add_to_cart', shop, { product_id: shop.productId });
      const invalid = eventBody('purchase', shop, { quantity: 0 });
      const reserved = eventBody('fit_started', shop, { product_id: shop.productId });
      const fresh2 = eventBody('size_exchange', shop);
      const response = await batchRaw(shop, {
        events: [fresh, stored, { ...stored, quantity: 5 }, invalid, reserved, fresh2],
      });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(response.body)).toEqual(['results']);
      const results = response.body.results as BatchResult[];
      expect(results.map((r) => r.status)).toEqual([201, 200, 409, 400, 400, 201]);

      expect(Object.keys(results[0]).sort()).toEqual(['event', 'status']);
      expect(results[0].event).toEqual({
        id: expect.any(String),
        ...storedForm(shop, fresh),
        received_at: expect.stringMatching(TIMESTAMP),
      });
      expect(results[1]).toEqual({ status: 200, event: storedEvent });
      expect(Object.keys(results[2]).sort()).toEqual(['error', 'status']);
      expect(results[2].error).toMatchObject({
        type: '/problems/event_conflict',
        status: 409,
        code: 'event_conflict',
        title: expect.any(String),
      });
      expect(Object.keys(results[3]).sort()).toEqual(['error', 'status']);
      expect(results[3].error).toMatchObject({ type: '/problems/validation_failed', status: 400, code: 'validation_failed' });
      expect(results[3].error?.errors?.map((e) => e.field)).toEqual(['quantity']);
      expect(results[4].error).toMatchObject({ status: 400, code: 'event_type_reserved' });
      expect(results[5].event).toEqual({
        id: expect.any(String),
        ...storedForm(shop, fresh2),
        received_at: expect.stringMatching(TIMESTAMP),
      });

      const listed = await delivered(shop);
      expect(listed.map((e) => e.id).sort()).toEqual([storedEvent.id, results[0].event?.id, results[5].event?.id].sort());
      for (const result of [results[0], results[5]]) expect(listed).toContainEqual(result.event);
      // the conflicting item changed nothing
      expect(listed.find((e) => e.id === storedEvent.id)).toEqual(storedEvent);
    });

    it('gives 201 then 200 with the same event to a key repeated identically in one batch, and 201 then 409 to a changed one', async () => {
      const shop = await newShop();
      const a = eventBody('fit_viewed', shop);
      const b = eventBody('checkout_started', shop);
      const response = await batchRaw(shop, {
        events: [a, b, { ...a, occurred_at: withOffset(a.occurred_at as string, 120) }, { ...b, quantity: 2 }, without(a, 'quantity')],
      });
      expect(response.status).toBe(200);
      const results = response.body.results as BatchResult[];
      expect(results.map((r) => r.status)).toEqual([201, 201, 200, 409, 200]);
      expect(results[2].event).toEqual(results[0].event);
      expect(results[4].event).toEqual(results[0].event);
      expect(results[3].error).toMatchObject({ status: 409, code: 'event_conflict' });

      const listed = await delivered(shop);
      expect(listed).toHaveLength(2);
      expect(listed).toContainEqual(results[0].event);
      expect(listed).toContainEqual(results[1].event);
      expect(listed.find((e) => e.external_id === b.external_id)?.quantity).toBe(1);
    });

    it('judges a repeated key whose first copy was refused as a first delivery', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop);
      const response = await batchRaw(shop, { events: [{ ...body, quantity: 0 }, body, body] });
      expect(response.status).toBe(200);
      const results = response.body.results as BatchResult[];
      expect(results.map((r) => r.status)).toEqual([400, 201, 200]);
      expect(results[2].event).toEqual(results[1].event);
    });

    it('lets a batch item that is refused not stop the others, whatever its place', async () => {
      const shop = await newShop();
      const items = [
        eventBody('fit_viewed', shop, { product_id: MISSING_ID }),
        eventBody('fit_viewed', shop),
        eventBody('return_requested', shop, { reason: undefined }),
        eventBody('item_kept', shop),
        eventBody('add_to_cart', shop, { source: 'size-fit' }),
        eventBody('fit_viewed', shop, { occurred_at: oneYearAgo(-minutes(1)) }),
        eventBody('fit_viewed', shop, { unknown: true }),
        eventBody('checkout_started', shop),
      ].map((item) => JSON.parse(JSON.stringify(item)) as EventBody);
      const response = await batchRaw(shop, { events: items });
      expect(response.status).toBe(200);
      const results = response.body.results as BatchResult[];
      expect(results.map((r) => r.status)).toEqual([400, 201, 400, 201, 400, 400, 400, 201]);
      const fieldOf = (i: number) => results[i].error?.errors?.map((e) => `${e.field}:${e.code}`);
      expect(fieldOf(0)).toEqual(['product_id:not_found']);
      expect(fieldOf(2)).toEqual(['reason:required']);
      expect(fieldOf(4)).toEqual(['source:reserved']);
      expect(fieldOf(5)).toEqual(['occurred_at:too_old']);
      expect(fieldOf(6)).toEqual(['unknown:unknown_field']);
      const listed = await delivered(shop);
      expect(listed.map((e) => e.external_id).sort()).toEqual([items[1], items[3], items[7]].map((i) => i.external_id as string).sort());
    });

    it('answers 200 for a batch where every item is refused, and stores nothing', async () => {
      const shop = await newShop();
      const response = await batchRaw(shop, { events: [eventBody('fit_started', shop), eventBody('purchase', shop, { quantity: 1.5 })] });
      expect(response.status).toBe(200);
      expect((response.body.results as BatchResult[]).map((r) => r.status)).toEqual([400, 400]);
      expect(await listAll(shop)).toEqual([]);
    });

    it('answers a later single retry of a batch item with 200 and the event the batch stored', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop);
      const response = await batchRaw(shop, { events: [body] });
      expect(response.status).toBe(200);
      const [result] = response.body.results as BatchResult[];
      expect(result.status).toBe(201);
      const retry = await postRaw(shop, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(result.event);
      expectProblem(await postRaw(shop, { ...body, quantity: 9 }), 409, 'event_conflict');
    });

    it('takes 500 items in one batch (over 64 KiB) and refuses 501 as a whole', async () => {
      const shop = await newShop();
      const items = Array.from({ length: 500 }, (_, i) =>
        eventBody(INTEGRATION_TYPES[i % INTEGRATION_TYPES.length], shop, { external_id: `${uniqueId('bulk')}-${'x'.repeat(80)}` }),
      );
      expect(JSON.stringify({ events: items }).length).toBeGreaterThan(64 * 1024);
      const response = await batchRaw(shop, { events: items });
      expect(response.status).toBe(200);
      const results = response.body.results as BatchResult[];
      expect(results).toHaveLength(500);
      expect(results.every((r) => r.status === 201)).toBe(true);
      results.forEach((r, i) => expect(r.event?.external_id).toBe(items[i].external_id));
      expect(await delivered(shop)).toHaveLength(500);

      const more = [...items.map((item) => ({ ...item, external_id: `${item.external_id}-b` })), eventBody('fit_viewed', shop)];
      const tooMany = await batchRaw(shop, { events: more });
      expect(tooMany.status).toBe(400);
      expect(tooMany.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await delivered(shop)).toHaveLength(500);
    });

    it.each([
      ['an array of events', (shop: Shop) => [eventBody('fit_viewed', shop)]],
      ['an empty object', () => ({})],
      ['no events', () => ({ events: [] })],
      ['events null', () => ({ events: null })],
      ['events as a string', () => ({ events: 'fit_viewed' })],
      ['events as one object', (shop: Shop) => ({ events: eventBody('fit_viewed', shop) })],
      ['an unknown field beside events', (shop: Shop) => ({ events: [eventBody('fit_viewed', shop)], dry_run: true })],
      ['events under another name', (shop: Shop) => ({ event: [eventBody('fit_viewed', shop)] })],
    ])('refuses a batch body that is %s with 400 as a whole and stores nothing', async (_, body) => {
      const shop = await newShop();
      const response = await batchRaw(shop, body(shop));
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(['invalid_json', 'validation_failed']).toContain(response.body.code);
      expect(response.body.results).toBeUndefined();
      expect(await listAll(shop)).toEqual([]);
    });

    it('names what is wrong with events: not an array, empty, or over 500', async () => {
      const shop = await newShop();
      const errorsOf = async (body: unknown) => (await batchRaw(shop, body)).body.errors as Array<{ field: string; code: string }>;
      expect(await errorsOf({})).toEqual([expect.objectContaining({ field: 'events', code: 'required' })]);
      for (const body of [{ events: null }, { events: 'fit_viewed' }, { events: {} }]) {
        expect(await errorsOf(body)).toEqual([expect.objectContaining({ field: 'events', code: 'must_be_array' })]);
      }
      expect(await errorsOf({ events: [] })).toEqual([
        expect.objectContaining({ field: 'events', message: 'events must hold at least one event' }),
      ]);
      const tooMany = Array.from({ length: 501 }, () => eventBody('fit_viewed', shop));
      expect(await errorsOf({ events: tooMany })).toEqual([expect.objectContaining({ field: 'events', code: 'too_many_items' })]);
    });

    it('never answers 5xx to items that are not event objects', async () => {
      const shop = await newShop();
      const good = eventBody('fit_viewed', shop);
      const response = await batchRaw(shop, { events: [good, null, 5, 'x', [], {}] });
      expectNoServerError(response);
      expect([200, 400]).toContain(response.status);
      if (response.status === 200) {
        const results = response.body.results as BatchResult[];
        expect(results.map((r) => r.status)).toEqual([201, 400, 400, 400, 400, 400]);
        expect((await delivered(shop)).map((e) => e.external_id)).toEqual([good.external_id]);
      } else {
        expect(await listAll(shop)).toEqual([]);
      }
    });

    it('refuses a batch over 1 MiB with 413 and stores nothing', async () => {
      const shop = await newShop();
      const items = Array.from({ length: 500 }, () =>
        eventBody('purchase', shop, { order_id: 'o'.repeat(200), line_item_id: 'l'.repeat(200) }),
      );
      const padding = 'p'.repeat(1024 * 1024 - JSON.stringify({ events: items }).length + 100);
      const response = await batchRaw(shop, { events: items.map((item, i) => (i === 0 ? { ...item, note: padding } : item)) });
      expectProblem(response, 413, 'payload_too_large');
      expect(response.body.detail).toBe('The body is over 1 MiB, the limit of a batch: send its events in smaller batches');
      expect(await listAll(shop)).toEqual([]);
    });

    it('stores nothing of a batch when a write fails inside the database, and takes it whole afterwards', async () => {
      const shop = await newShop();
      const prefix = `boom-${Date.now().toString(36)}`;
      const before = eventBody('fit_viewed', shop);
      const failing = eventBody('fit_viewed', shop, { external_id: `${prefix}-1` });
      const after = eventBody('purchase', shop);
      let response: Response | undefined;
      await withFailingInsertOf(t, prefix, async () => {
        response = await batchRaw(shop, { events: [before, failing, after] });
      });
      expect(response?.status).toBeGreaterThanOrEqual(500);
      expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.stringify(response?.body)).not.toMatch(/injected failure|INSERT|events/i);
      expect(await listAll(shop)).toEqual([]);

      const again = await batchRaw(shop, { events: [before, failing, after] });
      expect(again.status).toBe(200);
      expect((again.body.results as BatchResult[]).map((r) => r.status)).toEqual([201, 201, 201]);
      expect(await delivered(shop)).toHaveLength(3);
    });
  });
});
