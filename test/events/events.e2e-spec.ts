import { describe, expect, it, jest } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../support/app.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Tenant } from '../support/fixtures.js';
import { createProduct, createVariant } from '../support/catalog-fixtures.js';
import { createShop, type Shop } from '../support/session-fixtures.js';
import {
  ago,
  ahead,
  DAY,
  EVENT_FIELDS,
  type EventBody,
  eventBody,
  INTEGRATION_TYPES,
  type IntegrationType,
  minutes,
  oneYearAgo,
  ORDER_OUTCOMES,
  RESERVED_TYPES,
  type StoredEvent,
  uniqueId,
  WITH_REASON,
  withFailingInsertOf,
  without,
  withOffset,
} from '../support/event-fixtures.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_ID = '01936f6e-0000-7000-8000-000000000000';

interface Session {
  id: string;
  product_id: string;
  created_at: string;
}

interface BatchResult {
  status: number;
  event?: StoredEvent;
  error?: { type: string; title: string; status: number; code: string; errors?: { field: string; code: string }[] };
}

describe('events', () => {
  const t = useApp();

  // ——— helpers ———

  const eventsPath = (storeId: string) => `/v1/stores/${storeId}/events`;
  const postRaw = (shop: Shop, body: unknown, secret = shop.secret) =>
    t
      .http()
      .post(eventsPath(shop.storeId))
      .set(bearer(secret))
      .send(body as object);
  const batchRaw = (shop: Shop, body: unknown, secret = shop.secret) =>
    t
      .http()
      .post(`${eventsPath(shop.storeId)}/batch`)
      .set(bearer(secret))
      .send(body as object);
  const listRaw = (shop: Shop, query = '', secret = shop.secret) =>
    t
      .http()
      .get(`${eventsPath(shop.storeId)}${query}`)
      .set(bearer(secret));

  /** A fresh merchant and store with the shop's catalog (product with S/M/L/XL); calls use the admin key. */
  async function newShop(): Promise<Shop & { tenant: Tenant }> {
    const tenant = await createTenant(t);
    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    return { ...shop, tenant };
  }

  /** Never a 5xx, whatever the request. */
  function expectNoServerError(response: Response): void {
    if (response.status >= 500) expect({ status: response.status, body: response.body }).toEqual({ status: '< 500' });
  }

  /** A first delivery: 201 with the stored event. */
  async function deliver(shop: Shop, body: EventBody, secret = shop.secret): Promise<StoredEvent> {
    const response = await postRaw(shop, body, secret);
    // on failure, show the problem the service answered rather than a bare status
    if (response.status !== 201) expect({ status: response.status, body: response.body }).toEqual({ status: 201 });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectWellFormed(response.body, shop);
    return response.body as StoredEvent;
  }

  async function startSession(shop: Shop, productId = shop.productId): Promise<Session> {
    const response = await t.http().post(`/v1/stores/${shop.storeId}/sessions`).set(bearer(shop.secret)).send({ product_id: productId });
    expect(response.status).toBe(201);
    return response.body as Session;
  }

  /** Every event of the store the list answers for `query`, following the cursor, newest first. */
  async function listAll(shop: Shop, query = ''): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const separator = query ? '&' : '?';
      const suffix: string = cursor ? `${query}${separator}starting_after=${cursor}` : query;
      const response = await listRaw(shop, `${suffix}${suffix ? '&' : '?'}limit=100`);
      expect(response.status).toBe(200);
      events.push(...(response.body.data as StoredEvent[]));
      if (!response.body.has_more) return events;
      cursor = response.body.next_cursor as string;
    }
    throw new Error('listAll: too many pages');
  }

  /** The integration's events of the store (the service's own ones left out). */
  const delivered = async (shop: Shop, query = '') => (await listAll(shop, query)).filter((e) => e.source !== 'size-fit');

  function expectWellFormed(event: StoredEvent, shop: Shop): void {
    expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
    expect(typeof event.id).toBe('string');
    expect(event.store_id).toBe(shop.storeId);
    expect(event.occurred_at).toMatch(TIMESTAMP);
    expect(event.received_at).toMatch(TIMESTAMP);
  }

  /** What a delivery of `body` is stored as, without its id and arrival time. */
  function storedForm(shop: Shop, body: EventBody) {
    const value = (field: string) => (body[field] === undefined ? null : body[field]);
    return {
      store_id: shop.storeId,
      source: body.source,
      external_id: body.external_id,
      type: body.type,
      product_id: value('product_id'),
      variant_id: value('variant_id'),
      session_id: value('session_id'),
      order_id: value('order_id'),
      line_item_id: value('line_item_id'),
      reason: value('reason'),
      quantity: body.quantity ?? 1,
      occurred_at: new Date(body.occurred_at as string).toISOString(),
    };
  }

  /** A 400 validation_failed naming exactly these fields (whatever their codes). */
  function expectErrorFields(response: Response, fields: string[]): void {
    expectProblem(response, 400, 'validation_failed');
    const errors = response.body.errors as { field: string; code: string }[];
    expect([...new Set(errors.map((e) => e.field))].sort()).toEqual([...fields].sort());
    for (const error of errors) expect(typeof error.code).toBe('string');
  }

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
      ['another type', () => ({ type: 'add_to_cart' })],
      ['quantity 2 against the default 1', () => ({ quantity: 2 })],
      [
        'an instant one millisecond later',
        (_shop: Shop, body: EventBody) => ({
          occurred_at: new Date(Date.parse(body.occurred_at as string) + 1).toISOString(),
        }),
      ],
      ['a product added', (shop: Shop) => ({ product_id: shop.productId })],
      ['an order id added', () => ({ order_id: 'order-1' })],
      ['a variant added', (shop: Shop) => ({ product_id: shop.productId, variant_id: shop.variants.M })],
    ])('refuses the same key with %s with 409 event_conflict and keeps the stored event', async (_, change) => {
      const shop = await newShop();
      const body = eventBody('checkout_started', shop);
      const first = await deliver(shop, body);

      const conflict = await postRaw(shop, { ...body, ...change(shop, body) });
      expectProblem(conflict, 409, 'event_conflict');

      expect(await delivered(shop)).toEqual([first]);
      const retry = await postRaw(shop, body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first);
    });

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

  // ——— validation ———

  describe('validation', () => {
    it.each(RESERVED_TYPES.map((type) => [type]))(
      'refuses the service-recorded type %s with 400 event_type_reserved and stores nothing',
      async (type) => {
        const shop = await newShop();
        const response = await postRaw(shop, eventBody(type, shop, { product_id: shop.productId }));
        expectProblem(response, 400, 'event_type_reserved');
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each([['page_view'], ['FIT_VIEWED'], ['purchase '], [''], [5], [null], [['purchase']]])(
      'refuses the type %p with 400 on type',
      async (type) => {
        const shop = await newShop();
        const response = await postRaw(shop, eventBody('fit_viewed', shop, { type }));
        expectErrorFields(response, ['type']);
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each(['source', 'external_id', 'type', 'occurred_at'])('requires %s, and null does not stand in for it', async (field) => {
      const shop = await newShop();
      const body = eventBody('fit_viewed', shop);
      // the decision names no code for these: the field is enough
      expectErrorFields(await postRaw(shop, without(body, field)), [field]);
      expectErrorFields(await postRaw(shop, { ...body, [field]: null }), [field]);
      expect(await listAll(shop)).toEqual([]);
    });

    it.each(ORDER_OUTCOMES.map((type) => [type]))(
      'requires product_id, variant_id, order_id and line_item_id on %s, all named at once',
      async (type) => {
        const shop = await newShop();
        const body = without(eventBody(type, shop), 'product_id', 'variant_id', 'order_id', 'line_item_id');
        expectErrors(await postRaw(shop, body), [
          { field: 'line_item_id', code: 'required' },
          { field: 'order_id', code: 'required' },
          { field: 'product_id', code: 'required' },
          { field: 'variant_id', code: 'required' },
        ]);
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each(ORDER_OUTCOMES.flatMap((type) => ['product_id', 'variant_id', 'order_id', 'line_item_id'].map((field) => [type, field])))(
      'refuses a %s without %s, omitted or null',
      async (type, field) => {
        const shop = await newShop();
        const body = eventBody(type, shop);
        expectErrors(await postRaw(shop, without(body, field)), [{ field, code: 'required' }]);
        expectErrors(await postRaw(shop, { ...body, [field]: null }), [{ field, code: 'required' }]);
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each(WITH_REASON.map((type) => [type]))('requires a reason on %s, omitted or null', async (type) => {
      const shop = await newShop();
      const body = eventBody(type, shop);
      expectErrors(await postRaw(shop, without(body, 'reason')), [{ field: 'reason', code: 'required' }]);
      expectErrors(await postRaw(shop, { ...body, reason: null }), [{ field: 'reason', code: 'required' }]);
      expectErrorFields(await postRaw(shop, { ...body, reason: 'colour' }), ['reason']);
      expectErrorFields(await postRaw(shop, { ...body, reason: 'SIZE' }), ['reason']);
      expect(await listAll(shop)).toEqual([]);
    });

    it.each(INTEGRATION_TYPES.filter((type) => !WITH_REASON.includes(type)).map((type) => [type]))(
      'refuses a reason on %s with not_allowed_for_type',
      async (type) => {
        const shop = await newShop();
        for (const reason of ['size', 'other']) {
          expectErrors(await postRaw(shop, eventBody(type, shop, { reason })), [{ field: 'reason', code: 'not_allowed_for_type' }]);
        }
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each([[0], [-1], [1.5], ['2'], [1_000_001], [true], [{ value: 2 }]])(
      'refuses quantity %p with 400 on quantity',
      async (quantity) => {
        const shop = await newShop();
        expectErrorFields(await postRaw(shop, eventBody('purchase', shop, { quantity })), ['quantity']);
        expect(await listAll(shop)).toEqual([]);
      },
    );

    describe('occurred_at', () => {
      it('refuses an instant more than one calendar year old with too_old', async () => {
        const shop = await newShop();
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { occurred_at: oneYearAgo(-minutes(1)) })), [
          { field: 'occurred_at', code: 'too_old' },
        ]);
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { occurred_at: '2020-01-01T00:00:00.000Z' })), [
          { field: 'occurred_at', code: 'too_old' },
        ]);
        expect(await listAll(shop)).toEqual([]);
      });

      it('refuses an instant more than five minutes ahead with too_far_in_future', async () => {
        const shop = await newShop();
        for (const occurred_at of [ahead(minutes(6)), withOffset(ahead(minutes(6)), 120), ahead(400 * DAY)]) {
          expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { occurred_at })), [
            { field: 'occurred_at', code: 'too_far_in_future' },
          ]);
        }
        expect(await listAll(shop)).toEqual([]);
      });

      it('refuses a precision finer than the millisecond with too_precise rather than truncating it', async () => {
        const shop = await newShop();
        const base = ago(minutes(2)).slice(0, 23);
        for (const occurred_at of [`${base}4Z`, `${base}456789Z`, `${base}456+02:00`]) {
          expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { occurred_at })), [
            { field: 'occurred_at', code: 'too_precise' },
          ]);
        }
        expect(await listAll(shop)).toEqual([]);
      });

      it.each([
        ['no time zone', () => ago(minutes(2)).slice(0, 23)],
        ['a date only', () => ago(minutes(2)).slice(0, 10)],
        ['words', () => 'yesterday'],
        ['an impossible date', () => '2026-02-30T10:00:00.000Z'],
        ['a number', () => Math.floor(Date.now() / 1000) - 60],
        ['an empty string', () => ''],
      ])('refuses %s with 400 on occurred_at', async (_, value) => {
        const shop = await newShop();
        expectErrorFields(await postRaw(shop, eventBody('fit_viewed', shop, { occurred_at: value() })), ['occurred_at']);
        expect(await listAll(shop)).toEqual([]);
      });
    });

    describe('references', () => {
      it('refuses an unknown product, variant or session with 400 not_found on that field', async () => {
        const shop = await newShop();
        expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { product_id: MISSING_ID })), [
          { field: 'product_id', code: 'not_found' },
        ]);
        // with a variant of another product: the product is not found (and the variant is not of it)
        const withVariant = await postRaw(shop, eventBody('purchase', shop, { product_id: MISSING_ID }));
        expectProblem(withVariant, 400, 'validation_failed');
        expect(withVariant.body.errors).toContainEqual(expect.objectContaining({ field: 'product_id', code: 'not_found' }));
        for (const error of withVariant.body.errors as { field: string; code: string }[]) {
          expect(['product_id:not_found', 'variant_id:not_of_product', 'variant_id:not_found']).toContain(`${error.field}:${error.code}`);
        }
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { variant_id: MISSING_ID })), [
          { field: 'variant_id', code: 'not_found' },
        ]);
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { session_id: MISSING_ID })), [
          { field: 'session_id', code: 'not_found' },
        ]);
        expect(await listAll(shop)).toEqual([]);
      });

      it('refuses ids that are not ids with 400 on that field', async () => {
        const shop = await newShop();
        for (const field of ['product_id', 'variant_id', 'session_id']) {
          expectErrorFields(await postRaw(shop, eventBody('purchase', shop, { [field]: 'tee-shirt' })), [field]);
          expectErrorFields(await postRaw(shop, eventBody('purchase', shop, { [field]: 42 })), [field]);
        }
        expect(await listAll(shop)).toEqual([]);
      });

      it("refuses the product, variant and session of the merchant's other store with not_found", async () => {
        const shop = await newShop();
        const otherStoreId = await createStore(t, shop.secret);
        const other = await createShop(t, otherStoreId, shop.secret);
        const session = await startSession(other);
        const later = ahead(0);

        expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { product_id: other.productId })), [
          { field: 'product_id', code: 'not_found' },
        ]);
        // its product and variant together: the product is not found, and the variant is not found or not judged
        const both = await postRaw(shop, eventBody('purchase', shop, { product_id: other.productId, variant_id: other.variants.M }));
        expectProblem(both, 400, 'validation_failed');
        expect(both.body.errors).toContainEqual(expect.objectContaining({ field: 'product_id', code: 'not_found' }));
        for (const error of both.body.errors as { field: string; code: string }[]) {
          expect([`product_id:not_found`, `variant_id:not_found`]).toContain(`${error.field}:${error.code}`);
        }
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { variant_id: other.variants.M })), [
          { field: 'variant_id', code: 'not_found' },
        ]);
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { session_id: session.id, occurred_at: later })), [
          { field: 'session_id', code: 'not_found' },
        ]);
        expect(await listAll(shop)).toEqual([]);
      });

      it("refuses another merchant's product, variant and session with not_found", async () => {
        const shop = await newShop();
        const stranger = await newShop();
        const session = await startSession(stranger);
        const later = ahead(0);
        const product = await postRaw(shop, eventBody('fit_viewed', shop, { product_id: stranger.productId }));
        expectErrors(product, [{ field: 'product_id', code: 'not_found' }]);
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { variant_id: stranger.variants.M })), [
          { field: 'variant_id', code: 'not_found' },
        ]);
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { session_id: session.id, occurred_at: later })), [
          { field: 'session_id', code: 'not_found' },
        ]);
        expect(await listAll(shop)).toEqual([]);
        expect(await listAll(stranger)).toHaveLength(1); // its fit_started, nothing more
      });

      it('refuses a variant of another product of the store with not_of_product', async () => {
        const shop = await newShop();
        const otherProduct = (
          await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
        ).id;
        const otherVariant = (await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: 'M' })).id;
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { variant_id: otherVariant })), [
          { field: 'variant_id', code: 'not_of_product' },
        ]);
        expectErrors(await postRaw(shop, eventBody('add_to_cart', shop, { product_id: otherProduct, variant_id: shop.variants.M })), [
          { field: 'variant_id', code: 'not_of_product' },
        ]);
        expect(await listAll(shop)).toEqual([]);
      });

      it('refuses a variant or a session named without product_id with 400 on product_id', async () => {
        const shop = await newShop();
        const session = await startSession(shop);
        const later = ahead(0);
        const variantOnly = await postRaw(shop, eventBody('add_to_cart', shop, { variant_id: shop.variants.M }));
        expectProblem(variantOnly, 400, 'validation_failed');
        expect((variantOnly.body.errors as { field: string }[]).map((e) => e.field)).toContain('product_id');
        const sessionOnly = await postRaw(shop, eventBody('fit_viewed', shop, { session_id: session.id, occurred_at: later }));
        expectProblem(sessionOnly, 400, 'validation_failed');
        expect((sessionOnly.body.errors as { field: string }[]).map((e) => e.field)).toContain('product_id');
        const nullProduct = await postRaw(shop, eventBody('add_to_cart', shop, { product_id: null, variant_id: shop.variants.M }));
        expectProblem(nullProduct, 400, 'validation_failed');
        expect(await delivered(shop)).toEqual([]);
      });

      it('refuses a session of another product with 400 session_mismatch other_product', async () => {
        const shop = await newShop();
        const otherProduct = (
          await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
        ).id;
        const session = await startSession(shop, otherProduct);
        const response = await postRaw(shop, eventBody('purchase', shop, { session_id: session.id, occurred_at: ahead(0) }));
        expectProblem(response, 400, 'session_mismatch');
        expect(response.body.errors).toEqual([{ field: 'session_id', code: 'other_product', message: expect.any(String) }]);
        expect(await delivered(shop)).toEqual([]);
      });

      it('refuses a session created after occurred_at with 400 session_mismatch created_after_event, and takes one created at that instant', async () => {
        const shop = await newShop();
        const session = await startSession(shop);
        const before = new Date(Date.parse(session.created_at) - 1).toISOString();
        for (const occurred_at of [before, ago(minutes(10)), withOffset(before, 60)]) {
          const response = await postRaw(shop, eventBody('purchase', shop, { session_id: session.id, occurred_at }));
          expectProblem(response, 400, 'session_mismatch');
          expect(response.body.errors).toEqual([{ field: 'session_id', code: 'created_after_event', message: expect.any(String) }]);
        }
        expect(await delivered(shop)).toEqual([]);
        const atCreation = await deliver(shop, eventBody('purchase', shop, { session_id: session.id, occurred_at: session.created_at }));
        expect(atCreation.session_id).toBe(session.id);
      });
    });

    it('refuses the source size-fit, which is the service’s own, with 400 reserved on source', async () => {
      const shop = await newShop();
      expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { source: 'size-fit' })), [{ field: 'source', code: 'reserved' }]);
      expect(await listAll(shop)).toEqual([]);
    });

    it.each([
      ['an empty source', { source: '' }, 'source'],
      ['a source of 101 characters', { source: 's'.repeat(101) }, 'source'],
      ['a source that is not a string', { source: 7 }, 'source'],
      ['an empty external_id', { external_id: '' }, 'external_id'],
      ['an external_id of 201 characters', { external_id: 'e'.repeat(201) }, 'external_id'],
      ['an external_id that is a number', { external_id: 1001 }, 'external_id'],
      ['an empty order_id', { order_id: '' }, 'order_id'],
      ['an order_id of 201 characters', { order_id: 'o'.repeat(201) }, 'order_id'],
      ['an order_id that is a number', { order_id: 1001 }, 'order_id'],
      ['an empty line_item_id', { line_item_id: '' }, 'line_item_id'],
      ['a line_item_id of 201 characters', { line_item_id: 'l'.repeat(201) }, 'line_item_id'],
    ])('refuses %s with 400 on that field', async (_, change, field) => {
      const shop = await newShop();
      expectErrorFields(await postRaw(shop, eventBody('purchase', shop, change)), [field]);
      expect(await listAll(shop)).toEqual([]);
    });

    it.each([
      ['a field of another API', { currency: 'EUR' }, 'currency'],
      ['a misspelt field', { ocurred_at: '2026-01-01T00:00:00.000Z' }, 'ocurred_at'],
      ['the id', { id: MISSING_ID }, 'id'],
      ['the store', { store_id: MISSING_ID }, 'store_id'],
      ['received_at', { received_at: '2026-01-01T00:00:00.000Z' }, 'received_at'],
      ['an unknown field set to null', { note: null }, 'note'],
    ])('refuses %s with 400 unknown_field', async (_, extra, field) => {
      const shop = await newShop();
      const response = await postRaw(shop, { ...eventBody('fit_viewed', shop), ...extra });
      expectErrors(response, [{ field, code: 'unknown_field' }]);
      expect(await listAll(shop)).toEqual([]);
    });

    it('names the fields broken on their own together', async () => {
      const shop = await newShop();
      const response = await postRaw(shop, {
        source: '',
        external_id: uniqueId(),
        type: 'return_requested',
        product_id: shop.productId,
        variant_id: shop.variants.M,
        order_id: 'o-1',
        quantity: 0,
        occurred_at: ahead(DAY),
      });
      // the contract does not say whether rules across fields wait for the fields themselves: at least the
      // fields that are broken on their own, and nothing that is not broken
      expectProblem(response, 400, 'validation_failed');
      const fields = new Set((response.body.errors as { field: string }[]).map((e) => e.field));
      expect(fields.has('source') && fields.has('quantity')).toBe(true);
      for (const field of fields) expect(['line_item_id', 'occurred_at', 'quantity', 'reason', 'source']).toContain(field);
    });

    it.each([
      ['an array', [], 'application/json'],
      ['a string', '"purchase"', 'application/json'],
      ['null', 'null', 'application/json'],
      ['malformed JSON', '{"type": ', 'application/json'],
    ])('refuses a body that is %s with 400', async (_, raw, contentType) => {
      const shop = await newShop();
      const response = await t
        .http()
        .post(eventsPath(shop.storeId))
        .set(bearer(shop.secret))
        .set('Content-Type', contentType)
        .send(typeof raw === 'string' ? raw : JSON.stringify(raw));
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(['invalid_json', 'validation_failed']).toContain(response.body.code);
      expect(await listAll(shop)).toEqual([]);
    });

    it('refuses a body over 64 KiB with 413 and one that is not JSON with 415', async () => {
      const shop = await newShop();
      expectProblem(await postRaw(shop, eventBody('purchase', shop, { order_id: 'o'.repeat(70 * 1024) })), 413, 'payload_too_large');
      const text = await t
        .http()
        .post(eventsPath(shop.storeId))
        .set(bearer(shop.secret))
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify(eventBody('fit_viewed', shop)));
      expectProblem(text, 415, 'unsupported_media_type');
      expect(await listAll(shop)).toEqual([]);
    });
  });

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

// The body builder must keep every integration type valid (a typo here would make the refusals above meaningless).
describe('event fixtures', () => {
  it('builds a body for each type with exactly the fields the type needs', () => {
    const shop = { productId: MISSING_ID, variants: { S: 'a', M: 'b', L: 'c', XL: 'd' } };
    for (const type of INTEGRATION_TYPES as readonly IntegrationType[]) {
      const keys = Object.keys(eventBody(type, shop)).sort();
      const expected = ['external_id', 'occurred_at', 'source', 'type'];
      if (ORDER_OUTCOMES.includes(type)) expected.push('line_item_id', 'order_id', 'product_id', 'variant_id');
      if (WITH_REASON.includes(type)) expected.push('reason');
      expect(keys).toEqual(expected.sort());
    }
  });
});
