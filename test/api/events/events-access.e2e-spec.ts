/** Events e2e: which keys may send, batch and list a store's events. */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createStore, expectProblem, issueKey } from '../../support/fixtures.js';
import { eventBody, eventsApi, type StoredEvent } from '../../support/event-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { eventsPath, postRaw, batchRaw, listRaw, newShop, deliver, listAll } = eventsApi(t);

  // ——— access ———

  describe('who may send and read events', () => {
    it('lets an events key bound to the store send, batch and list', async () => {
      const shop = await newShop();
      const key = await issueKey(t, shop.secret, { scopes: ['events'], store_id: shop.storeId });
      const first = await deliver(shop, eventBody('purchase', shop), key.secret);
      const batch = await batchRaw(shop, { events: [eventBody('fit_viewed', shop)] }, key.secret);
      expect(batch.status).toBe(200);
      expect(batch.body.results[0].status).toBe(201);
      const list = await listRaw(shop, '', key.secret);
      expect(list.status).toBe(200);
      expect((list.body.data as StoredEvent[]).map((e) => e.id)).toEqual([batch.body.results[0].event.id, first.id]);
    });

    it.each([['fit'], ['catalog'], ['analytics']])('refuses a %s-only key with 403 insufficient_scope', async (scope) => {
      const shop = await newShop();
      const key = await issueKey(t, shop.secret, { scopes: [scope], store_id: shop.storeId });
      expectProblem(await postRaw(shop, eventBody('fit_viewed', shop), key.secret), 403, 'insufficient_scope');
      expectProblem(await batchRaw(shop, { events: [eventBody('fit_viewed', shop)] }, key.secret), 403, 'insufficient_scope');
      expectProblem(await listRaw(shop, '', key.secret), 403, 'insufficient_scope');
      expect(await listAll(shop)).toEqual([]);
    });

    it('refuses an events key bound to another store with 403 store_forbidden', async () => {
      const shop = await newShop();
      const otherStoreId = await createStore(t, shop.secret);
      const foreign = await issueKey(t, shop.secret, { scopes: ['events'], store_id: otherStoreId });
      expectProblem(await postRaw(shop, eventBody('fit_viewed', shop), foreign.secret), 403, 'store_forbidden');
      expectProblem(await batchRaw(shop, { events: [eventBody('fit_viewed', shop)] }, foreign.secret), 403, 'store_forbidden');
      expectProblem(await listRaw(shop, '', foreign.secret), 403, 'store_forbidden');
      expect(await listAll(shop)).toEqual([]);
    });

    it("answers 404 to another merchant's admin key on the store", async () => {
      const shop = await newShop();
      const stranger = await newShop();
      expectProblem(await postRaw(shop, eventBody('fit_viewed', shop), stranger.secret), 404, 'not_found');
      expectProblem(await batchRaw(shop, { events: [eventBody('fit_viewed', shop)] }, stranger.secret), 404, 'not_found');
      expectProblem(await listRaw(shop, '', stranger.secret), 404, 'not_found');
      expect(await listAll(shop)).toEqual([]);
    });

    it('refuses a call without a key, or with an unknown one, with 401', async () => {
      const shop = await newShop();
      expectProblem(await t.http().post(eventsPath(shop.storeId)).send(eventBody('fit_viewed', shop)), 401, 'unauthenticated');
      expectProblem(
        await t
          .http()
          .post(`${eventsPath(shop.storeId)}/batch`)
          .send({ events: [eventBody('fit_viewed', shop)] }),
        401,
        'unauthenticated',
      );
      expectProblem(await t.http().get(eventsPath(shop.storeId)), 401, 'unauthenticated');
      expectProblem(await postRaw(shop, eventBody('fit_viewed', shop), 'sfk_not-a-key'), 401, 'unauthenticated');
      expect(await listAll(shop)).toEqual([]);
    });
  });
});
