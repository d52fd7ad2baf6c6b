/**
 * EventsService over a real database, without HTTP: a delivery stored once however often it comes (within a batch, and
 * in concurrent deliveries), what a purchase and its outcome change in what learning reads, and events that name
 * another store's catalog refused.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { CatalogModule } from '../../src/catalog/catalog.module.js';
import { EventsModule } from '../../src/events/events.module.js';
import { EventsService } from '../../src/events/events.service.js';
import { LearningService } from '../../src/learning/learning.service.js';
import { ago, eventBody, type EventBody, minutes, uniqueId } from '../support/event-fixtures.js';
import { createServiceShop, createServiceStore, problemOf, type ServiceShop } from '../support/service-fixtures.js';
import { useServiceModule } from '../support/service-module.js';

describe('EventsService', () => {
  const m = useServiceModule([CatalogModule, EventsModule]);
  const events = () => m.get(EventsService);

  /** The store's stored deliveries: `source/external_id` → how many rows hold it. */
  const storedKeys = async (shop: ServiceShop): Promise<Record<string, number>> => {
    const rows = await m.dataSource.query<{ key: string; n: number }[]>(
      `SELECT source || '/' || external_id AS key, count(*)::int AS n FROM events WHERE store_id = $1 GROUP BY 1`,
      [shop.storeId],
    );
    return Object.fromEntries(rows.map((row) => [row.key, row.n]));
  };
  const keyOf = (body: EventBody) => `${body.source as string}/${body.external_id as string}`;
  /** What learning reads for the shop's product. */
  const learned = async (shop: ServiceShop) =>
    (await m.get(LearningService).currentLevels(shop.storeId, shop.productId, shop.productTypeId)).product;
  /** A line of the shop bought in M. */
  const line = () => ({ order_id: uniqueId('order'), line_item_id: uniqueId('line') });

  describe('a batch with the same delivery more than once', () => {
    it('stores each delivery once: 201 for the first, 200 with the same event for the repeats', async () => {
      const shop = await createServiceShop(m);
      const [viewed, carted, bought] = [
        eventBody('fit_viewed', shop),
        eventBody('add_to_cart', shop, { product_id: shop.productId, variant_id: shop.variants.M }),
        eventBody('purchase', shop, line()),
      ];
      const batch = [viewed, carted, { ...viewed }, bought, { ...carted }, { ...bought }, { ...viewed }];

      const results = await events().recordBatch(shop.store, batch);

      expect(results.map((r) => r.status)).toEqual([201, 201, 200, 201, 200, 200, 200]);
      const ids = results.map((r) => ('event' in r ? r.event.id : null));
      expect([ids[2], ids[6]]).toEqual([ids[0], ids[0]]);
      expect(ids[4]).toBe(ids[1]);
      expect(ids[5]).toBe(ids[3]);
      expect(await storedKeys(shop)).toEqual({ [keyOf(viewed)]: 1, [keyOf(carted)]: 1, [keyOf(bought)]: 1 });
    });

    it('refuses a repeat with another payload (409) and keeps the first', async () => {
      const shop = await createServiceShop(m);
      const first = eventBody('add_to_cart', shop, { product_id: shop.productId });
      const results = await events().recordBatch(shop.store, [first, { ...first, quantity: 2 }]);
      expect(results.map((r) => r.status)).toEqual([201, 409]);
      expect('error' in results[1] && results[1].error.code).toBe('event_conflict');
      await expect(events().record(shop.store, { ...first, quantity: 3 })).rejects.toMatchObject({ code: 'event_conflict' });
      const [row] = await m.dataSource.query<{ quantity: number }[]>(`SELECT quantity FROM events WHERE store_id = $1`, [shop.storeId]);
      expect(row.quantity).toBe(1);
    });

    it('stores each delivery once when the same batch is delivered six times at once, its outcome counted once', async () => {
      const shop = await createServiceShop(m);
      const bought = line();
      const batch = [
        eventBody('fit_viewed', shop),
        eventBody('add_to_cart', shop, { product_id: shop.productId }),
        eventBody('purchase', shop, { ...bought, occurred_at: ago(minutes(10)) }),
        eventBody('return_requested', shop, { ...bought, fit_feedback: 'too_small', occurred_at: ago(minutes(5)) }),
      ];

      const deliveries = await Promise.all(Array.from({ length: 6 }, () => events().recordBatch(shop.store, batch)));

      // per item, one delivery stored it and the five others found it
      batch.forEach((_, i) => {
        expect(deliveries.map((results) => results[i].status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
        expect(new Set(deliveries.map((results) => ('event' in results[i] ? results[i].event.id : null))).size).toBe(1);
      });
      expect(await storedKeys(shop)).toEqual(Object.fromEntries(batch.map((body) => [keyOf(body), 1])));
      expect((await learned(shop)).count).toBe(1);
    });

    it('stores a single delivery sent eight times at once once', async () => {
      const shop = await createServiceShop(m);
      const bought = eventBody('purchase', shop, line());
      const results = await Promise.all(Array.from({ length: 8 }, () => events().record(shop.store, { ...bought })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect(new Set(results.map((r) => r.event.id)).size).toBe(1);
      expect(await storedKeys(shop)).toEqual({ [keyOf(bought)]: 1 });
    });
  });

  describe('a purchase, then its outcome', () => {
    it('teaches nothing by the purchase alone, and a return for too small as a size up from the size bought', async () => {
      const shop = await createServiceShop(m);
      const bought = line();
      await events().record(shop.store, eventBody('purchase', shop, { ...bought, occurred_at: ago(minutes(10)) }));
      expect((await learned(shop)).count).toBe(0);

      await events().record(shop.store, eventBody('return_requested', shop, { ...bought, fit_feedback: 'too_small' }));

      const sums = await learned(shop);
      expect(sums.count).toBe(1);
      // one exact step up (no session: measured from the size bought), at a positive weight
      expect(sums.weight).toBeGreaterThan(0);
      expect(sums.weightedSteps / sums.weight).toBeCloseTo(1, 9);
      expect(sums.weightedSquares / sums.weight).toBeCloseTo(1, 9);
      // the product's type and the store read it too
      const levels = await m.get(LearningService).currentLevels(shop.storeId, shop.productId, shop.productTypeId);
      expect([levels.productType.count, levels.store.count]).toEqual([1, 1]);
    });

    it('counts the outcome once however often it is delivered, alone or in batches', async () => {
      const shop = await createServiceShop(m);
      const bought = line();
      await events().record(shop.store, eventBody('purchase', shop, { ...bought, occurred_at: ago(minutes(10)) }));
      const kept = eventBody('item_kept', shop, bought);
      await Promise.all([
        events().record(shop.store, { ...kept }),
        events().recordBatch(shop.store, [{ ...kept }, { ...kept }]),
        events().record(shop.store, { ...kept }),
      ]);
      expect((await learned(shop)).count).toBe(1);
    });

    it('stores nothing of a batch when learning fails in its transaction; the retry stores and counts it', async () => {
      const shop = await createServiceShop(m);
      const bought = line();
      const batch = [
        eventBody('purchase', shop, { ...bought, occurred_at: ago(minutes(10)) }),
        eventBody('return_requested', shop, { ...bought, fit_feedback: 'too_small', occurred_at: ago(minutes(5)) }),
      ];
      const learning = m.get(LearningService);
      const recordOutcomes = learning.recordOutcomes.bind(learning);
      const failing = jest.spyOn(learning, 'recordOutcomes').mockImplementationOnce(async (...args) => {
        await recordOutcomes(...args);
        throw new Error('learning failed');
      });
      try {
        await expect(events().recordBatch(shop.store, batch)).rejects.toThrow('learning failed');
      } finally {
        failing.mockRestore();
      }
      expect(await storedKeys(shop)).toEqual({});
      expect((await learned(shop)).count).toBe(0);

      expect((await events().recordBatch(shop.store, batch)).map((r) => r.status)).toEqual([201, 201]);
      expect((await learned(shop)).count).toBe(1);
    });
  });

  describe("another store's catalog", () => {
    it("refuses an event naming another store's product and variant, even of the same merchant, and stores nothing", async () => {
      const shop = await createServiceShop(m);
      const [stranger, sibling] = [await createServiceShop(m), await createServiceShop(m, await createServiceStore(m, shop.merchantId))];
      for (const other of [stranger, sibling]) {
        const purchase = eventBody('purchase', other, line());
        expect(await problemOf(events().record(shop.store, purchase))).toEqual({
          status: 400,
          code: 'validation_failed',
          errors: [
            { field: 'product_id', code: 'not_found' },
            { field: 'variant_id', code: 'not_found' },
          ],
        });
        // its own product with another store's variant
        const mixed = eventBody('purchase', shop, { ...line(), variant_id: other.variants.M });
        expect(await problemOf(events().record(shop.store, mixed))).toMatchObject({
          status: 400,
          errors: [{ field: 'variant_id', code: 'not_found' }],
        });
        expect(await storedKeys(other)).toEqual({});
      }
      expect(await storedKeys(shop)).toEqual({});
    });

    it('refuses such an item of a batch and stores the others, teaching neither store', async () => {
      const [shop, stranger] = [await createServiceShop(m), await createServiceShop(m)];
      const [mine, theirs] = [line(), line()];
      const batch = [
        eventBody('purchase', shop, { ...mine, occurred_at: ago(minutes(10)) }),
        eventBody('purchase', stranger, { ...theirs, occurred_at: ago(minutes(10)) }),
        eventBody('return_requested', stranger, { ...theirs, fit_feedback: 'too_large' }),
      ];
      const results = await events().recordBatch(shop.store, batch);
      expect(results.map((r) => r.status)).toEqual([201, 400, 400]);
      for (const refused of results.slice(1)) {
        expect('error' in refused && refused.error.errors?.map((e) => `${e.field}/${e.code}`).sort()).toEqual([
          'product_id/not_found',
          'variant_id/not_found',
        ]);
      }
      expect(await storedKeys(shop)).toEqual({ [keyOf(batch[0])]: 1 });
      expect(await storedKeys(stranger)).toEqual({});
      expect((await learned(stranger)).count).toBe(0);
    });
  });
});
