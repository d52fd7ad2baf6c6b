/** Events e2e: what POST …/events refuses, and why; and the body builder those refusals rely on. */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { createStore, expectErrors, expectProblem, MISSING_ID } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import {
  ago,
  ahead,
  DAY,
  eventBody,
  eventsApi,
  INTEGRATION_TYPES,
  type IntegrationType,
  minutes,
  oneYearAgo,
  ORDER_OUTCOMES,
  RESERVED_TYPES,
  uniqueId,
  WITH_REASON,
  withOffset,
  without,
} from '../../support/event-fixtures.js';
import { createShop } from '../../support/session-fixtures.js';

describe('events', () => {
  const t = useApp();
  const { eventsPath, postRaw, batchRaw, newShop, deliver, startSession, listAll, delivered } = eventsApi(t);

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
        expectErrors(response, { type: undefined });
        expect(await listAll(shop)).toEqual([]);
      },
    );

    it.each([
      ['source', 'must_be_string'],
      ['external_id', 'must_be_string'],
      ['type', 'must_be_string'],
      ['occurred_at', 'invalid_timestamp'],
    ])('requires %s: left out it is `required`, and null does not stand in for it (%s)', async (field, code) => {
      const shop = await newShop();
      const body = eventBody('fit_viewed', shop);
      expectErrors(await postRaw(shop, without(body, field)), [{ field, code: 'required' }]);
      expectErrors(await postRaw(shop, { ...body, [field]: null }), [{ field, code }]);
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
      expectErrors(await postRaw(shop, { ...body, reason: 'colour' }), { reason: undefined });
      expectErrors(await postRaw(shop, { ...body, reason: 'SIZE' }), { reason: undefined });
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
        expectErrors(await postRaw(shop, eventBody('purchase', shop, { quantity })), { quantity: undefined });
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
        expectErrors(await postRaw(shop, eventBody('fit_viewed', shop, { occurred_at: value() })), { occurred_at: undefined });
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
          expectErrors(await postRaw(shop, eventBody('purchase', shop, { [field]: 'tee-shirt' })), { [field]: undefined });
          expectErrors(await postRaw(shop, eventBody('purchase', shop, { [field]: 42 })), { [field]: undefined });
        }
        expect(await listAll(shop)).toEqual([]);
      });

      it("tells a caller who sends the platform's product and variant ids where to find the service's", async () => {
        const shop = await newShop();
        const response = await postRaw(shop, eventBody('purchase', shop, { product_id: '8123456789012', variant_id: '44123456789012' }));
        expectErrors(response, { product_id: 'must_be_id', variant_id: 'must_be_id' });
        expect(response.body.errors.map((error: { message: string }) => error.message)).toEqual([
          "product_id must be the product's Size-Fit id, not the platform's: GET …/products?external_id=<platform id> finds it",
          "variant_id must be the variant's Size-Fit id, not the platform's: GET …/products/{product_id}/variants lists each with its external_id",
        ]);
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
        // and the page of session_mismatch does not claim the other store's session for itself
        const page = await t.http().get('/problems/session_mismatch');
        expect(page.text).toContain('belongs to another product of the store, or was created after the event');
        expect(page.text).toContain('not_found');
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

      // Only order outcomes must name their product: a storefront event may name its variant, or its session, alone,
      // held to the same rules through its variant's product.
      it.each(['alone', 'in a batch'] as const)(
        'takes a variant or a session named without product_id, held to the rules through the variant (%s)',
        async (how) => {
          const shop = await newShop();
          const session = await startSession(shop);
          const later = ahead(0);
          const otherProduct = (
            await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
          ).id;
          const otherVariant = (await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: 'M' })).id;
          const bodies = [
            eventBody('add_to_cart', shop, { variant_id: shop.variants.M }),
            eventBody('fit_viewed', shop, { session_id: session.id, occurred_at: later }),
            eventBody('checkout_started', shop, {
              product_id: null,
              variant_id: shop.variants.L,
              session_id: session.id,
              occurred_at: later,
            }),
            eventBody('add_to_cart', shop, { variant_id: otherVariant, session_id: session.id, occurred_at: later }),
            eventBody('fit_viewed', shop, {
              session_id: session.id,
              occurred_at: new Date(Date.parse(session.created_at) - 1).toISOString(),
            }),
            eventBody('checkout_started', shop, { session_id: MISSING_ID }),
          ];
          const answers: Array<{ status: number; body: Record<string, unknown> }> = [];
          if (how === 'alone') for (const body of bodies) answers.push(await postRaw(shop, body));
          else {
            const response = await batchRaw(shop, { events: bodies });
            expect(response.status).toBe(200);
            for (const r of response.body.results) answers.push({ status: r.status, body: r.status < 300 ? r.event : r.error });
          }
          expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 400, 400, 400]);
          expect(answers.slice(0, 3).map((a) => [a.body.product_id, a.body.variant_id, a.body.session_id])).toEqual([
            [null, shop.variants.M, null],
            [null, null, session.id],
            [null, shop.variants.L, session.id],
          ]);
          expect(answers[3].body).toMatchObject({ code: 'session_mismatch', errors: [{ field: 'session_id', code: 'other_product' }] });
          expect(answers[4].body).toMatchObject({
            code: 'session_mismatch',
            errors: [{ field: 'session_id', code: 'created_after_event' }],
          });
          expect(answers[5].body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'session_id', code: 'not_found' }] });
          expect(await delivered(shop)).toHaveLength(3);
        },
      );

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

      // A purchase with a session is stored in a transaction with its summaries, a storefront event in one statement.
      it.each(['purchase', 'add_to_cart'] as const)(
        'refuses a session created after occurred_at with 400 session_mismatch created_after_event, and takes one created at that instant (%s)',
        async (type) => {
          const shop = await newShop();
          const session = await startSession(shop);
          const body = (occurred_at: string) => eventBody(type, shop, { product_id: shop.productId, session_id: session.id, occurred_at });
          const before = new Date(Date.parse(session.created_at) - 1).toISOString();
          for (const occurred_at of [before, ago(minutes(10)), withOffset(before, 60)]) {
            const response = await postRaw(shop, body(occurred_at));
            expectProblem(response, 400, 'session_mismatch');
            expect(response.body.errors).toEqual([{ field: 'session_id', code: 'created_after_event', message: expect.any(String) }]);
          }
          expect(await delivered(shop)).toEqual([]);
          const atCreation = await deliver(shop, body(session.created_at));
          expect(atCreation.session_id).toBe(session.id);
        },
      );
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
      expectErrors(await postRaw(shop, eventBody('purchase', shop, change)), { [field]: undefined });
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
