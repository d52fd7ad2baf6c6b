/** Events e2e: recording one event (POST …/events), and what an identical retry, or a changed one, of its key answers. */
import { describe, expect, it, jest } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../../support/app.js';
import { createStore, expectErrors, expectProblem, TIMESTAMP } from '../../support/fixtures.js';
import {
  ago,
  ahead,
  DAY,
  type EventBody,
  eventBody,
  eventsApi,
  INTEGRATION_TYPES,
  minutes,
  oneYearAgo,
  uniqueId,
  withOffset,
  without,
} from '../../support/event-fixtures.js';
import { type Shop } from '../../support/session-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { postRaw, newShop, deliver, startSession, delivered, storedForm } = eventsApi(t);

  // ——— recording ———

  describe('recording one event', () => {
    it('records a fit_viewed with only the required fields: 201, absent fields null, quantity 1', async () => {
      const shop = await newShop();
      const body = { source: 'storefront', external_id: uniqueId(), type: 'fit_viewed', occurred_at: ago(minutes(2)) };
      const before = Date.now();
      const event = await deliver(shop, body);
      const after = Date.now();

      expect(event).toEqual({ id: expect.any(String), ...storedForm(shop, body), received_at: expect.stringMatching(TIMESTAMP) });
      expect(event.occurred_at).toBe(body.occurred_at);
      // the moment it arrived, to the database's clock (allow a little drift between the clocks)
      const received = Date.parse(event.received_at);
      expect(received).toBeGreaterThanOrEqual(before - 1000);
      expect(received).toBeLessThanOrEqual(after + 1000);

      expect(await delivered(shop)).toEqual([event]);
    });

    it('records a purchase with every field and reads it back as answered', async () => {
      const shop = await newShop();
      const session = await startSession(shop);
      const occurred = new Date(Date.parse(session.created_at) + 1000).toISOString();
      const body = {
        source: 'shopify-app',
        external_id: uniqueId('orders/paid'),
        type: 'purchase',
        product_id: shop.productId,
        variant_id: shop.variants.L,
        session_id: session.id,
        order_id: 'gid://shopify/Order/1001',
        line_item_id: 'gid://shopify/LineItem/2002',
        quantity: 3,
        occurred_at: withOffset(occurred, 120),
      };
      const event = await deliver(shop, body);
      expect(event).toEqual({ id: expect.any(String), ...storedForm(shop, body), received_at: expect.stringMatching(TIMESTAMP) });
      expect(event.occurred_at).toBe(occurred);
      expect(event.quantity).toBe(3);

      expect(await delivered(shop)).toEqual([event]);
    });

    it.each(INTEGRATION_TYPES.map((type) => [type]))('records a %s with the fields its type needs', async (type) => {
      const shop = await newShop();
      const body = eventBody(type, shop);
      const event = await deliver(shop, body);
      expect(event).toEqual({ id: expect.any(String), ...storedForm(shop, body), received_at: expect.stringMatching(TIMESTAMP) });
    });

    it.each([
      ['a +02:00 offset', (iso: string) => withOffset(iso, 120)],
      ['a -05:30 offset', (iso: string) => withOffset(iso, -330)],
      ['no fraction of a second', (iso: string) => `${iso.slice(0, 19)}Z`],
      ['tenths of a second', (iso: string) => `${iso.slice(0, 21)}Z`],
    ])('stores occurred_at written with %s as the same instant in UTC with milliseconds', async (_, spell) => {
      const shop = await newShop();
      const instant = ago(minutes(3));
      const spelled = spell(instant);
      const event = await deliver(shop, eventBody('add_to_cart', shop, { occurred_at: spelled }));
      expect(event.occurred_at).toMatch(TIMESTAMP);
      expect(Date.parse(event.occurred_at)).toBe(Date.parse(spelled));
    });

    it('accepts the bounds: quantity 1,000,000, 100-character source, 200-character ids, the last minutes of the year and 4 minutes ahead', async () => {
      const shop = await newShop();
      await deliver(shop, eventBody('purchase', shop, { quantity: 1_000_000 }));
      await deliver(shop, eventBody('purchase', shop, { source: 's'.repeat(100) }));
      await deliver(shop, eventBody('purchase', shop, { external_id: 'e'.repeat(200) }));
      await deliver(shop, eventBody('purchase', shop, { order_id: 'o'.repeat(200), line_item_id: 'l'.repeat(200) }));
      await deliver(
        shop,
        eventBody('purchase', shop, { order_id: 'o', line_item_id: 'l', source: 's', external_id: uniqueId().slice(-1) }),
      );
      await deliver(shop, eventBody('fit_viewed', shop, { occurred_at: oneYearAgo(minutes(10)) }));
      await deliver(shop, eventBody('fit_viewed', shop, { occurred_at: ahead(minutes(4)) }));
      await deliver(shop, eventBody('return_requested', shop, { reason: 'other' }));
    });

    it('takes null for every optional field as not sent', async () => {
      const shop = await newShop();
      const body = {
        ...eventBody('checkout_started', shop),
        product_id: null,
        variant_id: null,
        session_id: null,
        order_id: null,
        line_item_id: null,
        reason: null,
        quantity: null,
      };
      const event = await deliver(shop, body);
      expect(event).toMatchObject({
        product_id: null,
        variant_id: null,
        session_id: null,
        order_id: null,
        line_item_id: null,
        reason: null,
        quantity: 1,
      });
    });

    it('names a product, a variant of it and an earlier session of it on a storefront event', async () => {
      const shop = await newShop();
      const session = await startSession(shop);
      const event = await deliver(
        shop,
        eventBody('add_to_cart', shop, {
          product_id: shop.productId,
          variant_id: shop.variants.S,
          session_id: session.id,
          occurred_at: session.created_at,
        }),
      );
      expect(event).toMatchObject({ product_id: shop.productId, variant_id: shop.variants.S, session_id: session.id });
      // a product alone is fine too
      await deliver(shop, eventBody('fit_viewed', shop, { product_id: shop.productId }));
    });
  });

  // ——— retries ———

  describe('identical retries and conflicts', () => {
    it('answers an identical retry with 200 and the original event: same id, same received_at, one row', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop, { quantity: 2 });
      const first = await deliver(shop, body);
      await new Promise((resolve) => setTimeout(resolve, 20));

      for (let i = 0; i < 3; i++) {
        const retry = await postRaw(shop, body);
        expect(retry.status).toBe(200);
        expect(retry.headers['content-type']).toMatch(/^application\/json/);
        expect(retry.body).toEqual(first);
      }
      expect(await delivered(shop)).toEqual([first]);
    });

    it.each([
      ['a +02:00 offset', (iso: string) => withOffset(iso, 120)],
      ['a -03:00 offset without fraction', (iso: string) => withOffset(`${iso.slice(0, 19)}.000Z`, -180, false)],
      ['Z without fraction', (iso: string) => `${iso.slice(0, 19)}Z`],
    ])('takes occurred_at written with %s and with Z as one instant', async (_, spell) => {
      const shop = await newShop();
      const instant = `${ago(minutes(5)).slice(0, 19)}.000Z`;
      const first = await deliver(shop, eventBody('fit_viewed', shop, { occurred_at: instant }));
      const retry = await postRaw(shop, { ...without(first, 'id', 'store_id', 'received_at'), occurred_at: spell(instant) });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first);

      // and the other way round
      const body = eventBody('fit_viewed', shop, { occurred_at: spell(instant) });
      const second = await deliver(shop, body);
      const back = await postRaw(shop, { ...body, occurred_at: instant });
      expect(back.status).toBe(200);
      expect(back.body).toEqual(second);
      expect(await delivered(shop)).toHaveLength(2);
    });

    it('takes an omitted quantity, quantity 1 and quantity null as the same, in any order', async () => {
      const shop = await newShop();
      const omitted = without(eventBody('add_to_cart', shop), 'quantity');
      const first = await deliver(shop, omitted);
      expect(first.quantity).toBe(1);
      for (const quantity of [1, null]) {
        const retry = await postRaw(shop, { ...omitted, quantity });
        expect(retry.status).toBe(200);
        expect(retry.body).toEqual(first);
      }

      const explicit = eventBody('add_to_cart', shop, { quantity: 1 });
      const second = await deliver(shop, explicit);
      const retry = await postRaw(shop, without(explicit, 'quantity'));
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(second);
    });

    it('takes null and omitted optional fields as the same, in any order', async () => {
      const shop = await newShop();
      const nulls = { product_id: null, variant_id: null, session_id: null, order_id: null, line_item_id: null, reason: null };
      const bare = eventBody('fit_viewed', shop);
      const first = await deliver(shop, bare);
      const withNulls = await postRaw(shop, { ...bare, ...nulls });
      expect(withNulls.status).toBe(200);
      expect(withNulls.body).toEqual(first);

      const nulled = { ...eventBody('fit_viewed', shop), ...nulls };
      const second = await deliver(shop, nulled);
      const bareRetry = await postRaw(shop, without(nulled, ...Object.keys(nulls)));
      expect(bareRetry.status).toBe(200);
      expect(bareRetry.body).toEqual(second);
    });

    it.each([
      ['another type', () => ({ type: 'add_to_cart' }), ['type']],
      ['quantity 2 against the default 1', () => ({ quantity: 2 }), ['quantity']],
      [
        'an instant one millisecond later',
        (_shop: Shop, body: EventBody) => ({
          occurred_at: new Date(Date.parse(body.occurred_at as string) + 1).toISOString(),
        }),
        ['occurred_at'],
      ],
      ['a product added', (shop: Shop) => ({ product_id: shop.productId }), ['product_id']],
      ['an order id added', () => ({ order_id: 'order-1' }), ['order_id']],
      ['a variant added', (shop: Shop) => ({ product_id: shop.productId, variant_id: shop.variants.M }), ['product_id', 'variant_id']],
    ])(
      'refuses the same key with %s with 409 event_conflict naming what differs, and keeps the stored event',
      async (_, change, fields) => {
        const shop = await newShop();
        const body = eventBody('checkout_started', shop);
        const first = await deliver(shop, body);

        const conflict = await postRaw(shop, { ...body, ...change(shop, body) });
        expectProblem(conflict, 409, 'event_conflict');
        const errors = conflict.body.errors as { field: string; code: string; message: string }[];
        expect(errors.map((e) => [e.field, e.code])).toEqual(fields.map((field) => [field, 'differs']));
        expect(conflict.body.detail).toContain(`${fields.join(', ')} ${fields.length > 1 ? 'differ' : 'differs'}`);
        expect(errors[0].message).toBe(
          `${fields[0]} differs from the event recorded with this key, which has ${JSON.stringify(first[fields[0] as keyof typeof first])}`,
        );

        expect(await delivered(shop)).toEqual([first]);
        const retry = await postRaw(shop, body);
        expect(retry.status).toBe(200);
        expect(retry.body).toEqual(first);
      },
    );

    it('refuses a changed order outcome with 409: another variant, line, reason or session', async () => {
      const shop = await newShop();
      const session = await startSession(shop);
      const body = eventBody('return_requested', shop, { session_id: session.id, occurred_at: ahead(0) });
      const first = await deliver(shop, body);
      for (const change of [
        { variant_id: shop.variants.XL },
        { line_item_id: 'another-line' },
        { order_id: 'another-order' },
        { reason: 'other' },
        { session_id: null },
        { source: body.source, external_id: body.external_id, type: 'size_exchange' },
      ]) {
        expectProblem(await postRaw(shop, { ...body, ...change }), 409, 'event_conflict');
      }
      expect(await delivered(shop)).toEqual([first]);
    });

    it('keys deliveries by store and source: the same external_id from another source, or in another store, is a new event', async () => {
      const shop = await newShop();
      const body = eventBody('fit_viewed', shop);
      const first = await deliver(shop, body);
      const otherSource = await deliver(shop, { ...body, source: 'another-app' });
      expect(otherSource.id).not.toBe(first.id);

      const otherStoreId = await createStore(t, shop.secret);
      const otherStore = { ...shop, storeId: otherStoreId };
      const elsewhere = await deliver(otherStore, body);
      expect(elsewhere.id).not.toBe(first.id);
      expect(elsewhere.store_id).toBe(otherStoreId);

      // another merchant, same source and external_id
      const stranger = await newShop();
      const strangers = await deliver(stranger, body);
      expect(strangers.store_id).toBe(stranger.storeId);

      expect((await delivered(shop)).map((e) => e.id).sort()).toEqual([first.id, otherSource.id].sort());
      expect((await delivered(otherStore)).map((e) => e.id)).toEqual([elsewhere.id]);
    });

    it('answers a retry with 200 after the product and the variant it names were deleted (and so archived)', async () => {
      const shop = await newShop();
      const body = eventBody('purchase', shop, { variant_id: shop.variants.S });
      const first = await deliver(shop, body);

      const catalog = `/v1/stores/${shop.storeId}/products/${shop.productId}`;
      const variantGone = await t.http().delete(`${catalog}/variants/${shop.variants.S}`).set(bearer(shop.secret));
      expect(variantGone.status).toBe(200);
      expect(variantGone.body.archived_at).toMatch(TIMESTAMP);
      let retry = await postRaw(shop, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first);

      const productGone = await t.http().delete(catalog).set(bearer(shop.secret));
      expect(productGone.status).toBe(200);
      expect(productGone.body.archived_at).toMatch(TIMESTAMP);
      retry = await postRaw(shop, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first);
      expect(await delivered(shop)).toEqual([first]);
    });

    it('answers a retry with 200 once its occurred_at has left the one-year window, and a new key with 400 too_old', async () => {
      const shop = await newShop();
      // delivered ten days ago (the clock of this process moved back), about eleven days inside the window then
      const tenDaysAgo = Date.now() - 10 * DAY;
      const occurred = new Date(tenDaysAgo);
      occurred.setUTCFullYear(occurred.getUTCFullYear() - 1);
      occurred.setTime(occurred.getTime() + DAY);
      const body = eventBody('item_kept', shop, { occurred_at: occurred.toISOString() });

      jest.useFakeTimers({
        now: tenDaysAgo,
        advanceTimers: true,
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'requestIdleCallback',
          'cancelIdleCallback',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
      });
      let first: Response;
      try {
        first = await postRaw(shop, body);
      } finally {
        jest.useRealTimers();
      }
      // the service judges the window by its own clock, which this test moved back
      expect(first.status).toBe(201);
      // now, the same delivery would be too old
      const retry = await postRaw(shop, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);

      expectErrors(await postRaw(shop, { ...body, external_id: uniqueId() }), [{ field: 'occurred_at', code: 'too_old' }]);
      expect(await delivered(shop)).toEqual([first.body]);
    });
  });
});
