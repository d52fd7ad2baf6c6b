/** Events e2e: GET …/events, the service-recorded events included, with its filters and pages. */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { createStore, expectProblem, MISSING_ID } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { ago, ahead, DAY, eventBody, eventsApi, minutes, type StoredEvent } from '../../support/event-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { listRaw, newShop, deliver, startSession, listAll, expectWellFormed, batchRaw } = eventsApi(t);

  // ——— reading ———

  describe('listing', () => {
    it('lists every event of the store newest first by arrival, the service-recorded ones included', async () => {
      const shop = await newShop();
      const session = await startSession(shop);
      const first = await deliver(
        shop,
        eventBody('fit_viewed', shop, { product_id: shop.productId, session_id: session.id, occurred_at: ahead(0) }),
      );
      // arrival, not occurrence, orders the list
      const second = await deliver(shop, eventBody('purchase', shop, { occurred_at: ago(30 * DAY) }));
      const third = await deliver(shop, eventBody('add_to_cart', shop, { occurred_at: ago(minutes(30)) }));

      const response = await listRaw(shop);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
      expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
      const data = response.body.data as StoredEvent[];
      expect(data.slice(0, 3)).toEqual([third, second, first]);
      expect(data).toHaveLength(4);

      const started = data[3];
      expectWellFormed(started, shop);
      expect(started).toMatchObject({
        store_id: shop.storeId,
        source: 'size-fit',
        type: 'fit_started',
        product_id: shop.productId,
        session_id: session.id,
        order_id: null,
        line_item_id: null,
        reason: null,
        occurred_at: session.created_at,
      });
    });

    it("lists a batch's events in the reverse of the request's order, whatever their external ids", async () => {
      const shop = await newShop();
      const ids = ['z-first', 'a-second', 'm-third', 'b-fourth'].map((id) => `${id}-${shop.storeId}`);
      const items = ids.map((external_id) => eventBody('add_to_cart', shop, { external_id }));
      const batch = await batchRaw(shop, { events: items });
      expect(batch.status).toBe(200);

      const listed = (await listRaw(shop)).body.data as StoredEvent[];
      expect(listed.map((e) => e.external_id)).toEqual([...ids].reverse());
      expect(listed.map((e) => e.id)).toEqual(batch.body.results.map((r: { event: StoredEvent }) => r.event.id).reverse());
    });

    it('shows the events the service records along a session: started, completed, recommended, accepted', async () => {
      const shop = await newShop();
      const session = await startSession(shop);
      const answered = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions/${session.id}/answers`)
        .set(bearer(shop.secret))
        .send({ answers: { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' } } });
      expect(answered.status).toBe(200);
      const decided = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions/${session.id}/decision`)
        .set(bearer(shop.secret))
        .send({ size_label: answered.body.recommendation.size_label });
      expect(decided.status).toBe(200);

      const own = await listAll(shop, `?session_id=${session.id}`);
      expect(own.map((e) => e.type).sort()).toEqual([
        'fit_completed',
        'fit_started',
        'recommendation_accepted',
        'recommendation_generated',
      ]);
      for (const event of own) expect(event).toMatchObject({ source: 'size-fit', session_id: session.id, store_id: shop.storeId });
      await expect(listAll(shop, '?source=size-fit')).resolves.toEqual(own);
      await expect(listAll(shop, '?type=recommendation_accepted')).resolves.toEqual(
        own.filter((e) => e.type === 'recommendation_accepted'),
      );
    });

    it('filters by type, source, session_id, order_id and product_id, alone and together', async () => {
      const shop = await newShop();
      const otherProduct = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      const otherM = (await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: 'M' })).id;
      const session = await startSession(shop);
      const later = ahead(0);

      const viewed = await deliver(
        shop,
        eventBody('fit_viewed', shop, { product_id: shop.productId, session_id: session.id, occurred_at: later }),
      );
      const bought = await deliver(
        shop,
        eventBody('purchase', shop, { session_id: session.id, order_id: 'A-1', line_item_id: '1', occurred_at: later }),
      );
      const boughtOther = await deliver(
        shop,
        eventBody('purchase', shop, { product_id: otherProduct, variant_id: otherM, order_id: 'A-1', line_item_id: '2', source: 'erp' }),
      );
      const returned = await deliver(shop, eventBody('return_requested', shop, { order_id: 'A-1', line_item_id: '1', source: 'erp' }));
      const elsewhere = await deliver(shop, eventBody('purchase', shop, { order_id: 'B-2' }));

      const ids = async (query: string) => (await listAll(shop, query)).map((e) => e.id);
      await expect(ids('?type=purchase')).resolves.toEqual([elsewhere.id, boughtOther.id, bought.id]);
      await expect(ids('?source=erp')).resolves.toEqual([returned.id, boughtOther.id]);
      await expect(ids(`?session_id=${session.id}&source=shopify-app`)).resolves.toEqual([bought.id, viewed.id]);
      await expect(ids('?order_id=A-1')).resolves.toEqual([returned.id, boughtOther.id, bought.id]);
      await expect(ids(`?product_id=${otherProduct}`)).resolves.toEqual([boughtOther.id]);
      await expect(ids(`?product_id=${shop.productId}&source=shopify-app`)).resolves.toEqual([elsewhere.id, bought.id, viewed.id]);
      await expect(ids('?order_id=A-1&type=purchase&source=erp')).resolves.toEqual([boughtOther.id]);
      await expect(ids('?order_id=C-3')).resolves.toEqual([]);
      await expect(ids('?type=item_kept')).resolves.toEqual([]);
      await expect(ids(`?session_id=${MISSING_ID}`)).resolves.toEqual([]);
      // the service's own event of the session
      const ofSession = await listAll(shop, `?session_id=${session.id}`);
      expect(ofSession.map((e) => e.type)).toEqual(['purchase', 'fit_viewed', 'fit_started']);
    });

    it('pages with limit and starting_after, newest first, and defaults to 20 a page', async () => {
      const shop = await newShop();
      const events: StoredEvent[] = [];
      for (let i = 0; i < 25; i++) events.push(await deliver(shop, eventBody('fit_viewed', shop)));
      const newest = [...events].reverse();

      const firstPage = await listRaw(shop);
      expect(firstPage.status).toBe(200);
      expect((firstPage.body.data as StoredEvent[]).map((e) => e.id)).toEqual(newest.slice(0, 20).map((e) => e.id));
      expect(firstPage.body).toMatchObject({ has_more: true, next_cursor: newest[19].id });

      const page1 = await listRaw(shop, '?limit=10');
      expect((page1.body.data as StoredEvent[]).map((e) => e.id)).toEqual(newest.slice(0, 10).map((e) => e.id));
      expect(page1.body).toMatchObject({ has_more: true, next_cursor: newest[9].id });
      const page2 = await listRaw(shop, `?limit=10&starting_after=${page1.body.next_cursor}`);
      expect((page2.body.data as StoredEvent[]).map((e) => e.id)).toEqual(newest.slice(10, 20).map((e) => e.id));
      const page3 = await listRaw(shop, `?limit=10&starting_after=${page2.body.next_cursor}`);
      expect((page3.body.data as StoredEvent[]).map((e) => e.id)).toEqual(newest.slice(20).map((e) => e.id));
      expect(page3.body).toMatchObject({ has_more: false, next_cursor: null });

      const exact = await listRaw(shop, '?limit=25');
      expect(exact.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(exact.body.data).toEqual(newest);

      const filtered = await listRaw(shop, `?type=fit_viewed&limit=5&starting_after=${newest[4].id}`);
      expect((filtered.body.data as StoredEvent[]).map((e) => e.id)).toEqual(newest.slice(5, 10).map((e) => e.id));
    });

    it.each([
      ['limit 0', '?limit=0', 'limit'],
      ['limit 101', '?limit=101', 'limit'],
      ['a limit that is not a number', '?limit=ten', 'limit'],
      ['a cursor that is not an id', '?starting_after=abc', 'starting_after'],
      ['a session_id that is not an id', '?session_id=abc', 'session_id'],
      ['a product_id that is not an id', '?product_id=abc', 'product_id'],
    ])('refuses %s with 400', async (_, query, field) => {
      const shop = await newShop();
      const response = await listRaw(shop, query);
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    });

    it("never lists another store's events", async () => {
      const shop = await newShop();
      const otherStoreId = await createStore(t, shop.secret);
      const other = { ...shop, storeId: otherStoreId };
      const mine = await deliver(shop, eventBody('fit_viewed', shop));
      const theirs = await deliver(other, eventBody('fit_viewed', shop));
      expect((await listAll(shop)).map((e) => e.id)).toEqual([mine.id]);
      expect((await listAll(other)).map((e) => e.id)).toEqual([theirs.id]);
      expect(await listAll(shop, `?source=${mine.source}`)).toEqual([mine]);
    });
  });
});
