/**
 * Events e2e: the direction of a size problem. `fit_feedback` on returns and exchanges for size, and the size a
 * shopper exchanged to (`new_variant_id`), checked against the store and the product, stored, listed and deduplicated.
 */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { expectErrors, expectProblem, TIMESTAMP } from '../../support/fixtures.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';

describe('events that say which way the size was wrong', () => {
  const t = useApp();
  const { postRaw, batchRaw, newShop, deliver, delivered, storedForm } = eventsApi(t);

  it('records a return for size that was too small, and an exchange from M to L, and lists them as sent', async () => {
    const shop = await newShop();
    const returned = eventBody('return_requested', shop, { fit_feedback: 'too_small' });
    const exchanged = eventBody('size_exchange', shop, { fit_feedback: 'too_small', new_variant_id: shop.variants.L.toUpperCase() });

    const first = await deliver(shop, returned);
    const second = await deliver(shop, exchanged);

    expect(first).toEqual({ id: expect.any(String), ...storedForm(shop, returned), received_at: expect.stringMatching(TIMESTAMP) });
    expect(first.fit_feedback).toBe('too_small');
    expect(first.new_variant_id).toBeNull();
    expect(second.new_variant_id).toBe(shop.variants.L);
    expect(await delivered(shop)).toEqual([second, first]);
  });

  it('records an exchange that names only the size it went to, and one for size with no direction', async () => {
    const shop = await newShop();
    const toSmaller = await deliver(shop, eventBody('size_exchange', shop, { new_variant_id: shop.variants.S }));
    const undirected = await deliver(shop, eventBody('return_requested', shop));
    expect([toSmaller.fit_feedback, toSmaller.new_variant_id]).toEqual([null, shop.variants.S]);
    expect([undirected.fit_feedback, undirected.new_variant_id]).toEqual([null, null]);
  });

  it('refuses fit_feedback outside a return or exchange for size, and new_variant_id outside an exchange', async () => {
    const shop = await newShop();
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [eventBody('return_requested', shop, { reason: 'other', fit_feedback: 'too_large' }), { fit_feedback: 'not_allowed_for_type' }],
      [eventBody('purchase', shop, { fit_feedback: 'too_small' }), { fit_feedback: 'not_allowed_for_type' }],
      [eventBody('item_kept', shop, { fit_feedback: 'too_small' }), { fit_feedback: 'not_allowed_for_type' }],
      [eventBody('fit_viewed', shop, { fit_feedback: 'too_small' }), { fit_feedback: 'not_allowed_for_type' }],
      [eventBody('return_requested', shop, { new_variant_id: shop.variants.L }), { new_variant_id: 'not_allowed_for_type' }],
      [eventBody('size_exchange', shop, { new_variant_id: shop.variants.M }), { new_variant_id: 'same_variant' }],
      [eventBody('size_exchange', shop, { fit_feedback: 'roomy' }), { fit_feedback: 'not_allowed_value' }],
      [eventBody('size_exchange', shop, { new_variant_id: 'L' }), { new_variant_id: 'must_be_id' }],
    ];
    for (const [body, errors] of cases) expectErrors(await postRaw(shop, body), errors);
    expect(await delivered(shop)).toEqual([]);
  });

  it("refuses an exchange to another product's variant, or to a variant of another store", async () => {
    const shop = await newShop();
    const elsewhere = await newShop();
    const otherProduct = await t
      .http()
      .post(`/v1/stores/${shop.storeId}/products`)
      .set(bearer(shop.secret))
      .send({ title: 'Other tee', external_id: uniqueId('p'), product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId });
    expect(otherProduct.status).toBe(201);
    const variant = await t
      .http()
      .post(`/v1/stores/${shop.storeId}/products/${otherProduct.body.id}/variants`)
      .set(bearer(shop.secret))
      .send({ size_label: 'L', sku: uniqueId('sku') });
    expect(variant.status).toBe(201);

    expectErrors(await postRaw(shop, eventBody('size_exchange', shop, { new_variant_id: variant.body.id })), {
      new_variant_id: 'not_of_product',
    });
    expectErrors(await postRaw(shop, eventBody('size_exchange', shop, { new_variant_id: elsewhere.variants.L })), {
      new_variant_id: 'not_found',
    });
    const batch = await batchRaw(shop, { events: [eventBody('size_exchange', shop, { new_variant_id: elsewhere.variants.L })] });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].status).toBe(400);
    expect(batch.body.results[0].error.errors).toEqual([expect.objectContaining({ field: 'new_variant_id', code: 'not_found' })]);
    expect(await delivered(shop)).toEqual([]);
  });

  it('takes a retry that spells the new fields as null as the same delivery, and one that changes a direction as a conflict', async () => {
    const shop = await newShop();
    const plain = eventBody('return_requested', shop);
    const first = await deliver(shop, plain);
    const spelled = await postRaw(shop, { ...plain, fit_feedback: null, new_variant_id: null });
    expect(spelled.status).toBe(200);
    expect(spelled.body).toEqual(first);
    expectProblem(await postRaw(shop, { ...plain, fit_feedback: 'too_large' }), 409, 'event_conflict');

    const directed = eventBody('size_exchange', shop, { fit_feedback: 'too_large', new_variant_id: shop.variants.S });
    const stored = await deliver(shop, directed);
    const again = await postRaw(shop, { ...directed, new_variant_id: shop.variants.S.toUpperCase() });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(stored);
    expectProblem(await postRaw(shop, { ...directed, new_variant_id: shop.variants.XL }), 409, 'event_conflict');
    expectProblem(await postRaw(shop, { ...directed, fit_feedback: 'too_small' }), 409, 'event_conflict');
    expect((await delivered(shop)).map((e) => e.id).sort()).toEqual([first.id, stored.id].sort());
  });

  it('archives instead of deleting a variant that an exchange went to', async () => {
    const shop = await newShop();
    await deliver(shop, eventBody('size_exchange', shop, { new_variant_id: shop.variants.XL }));
    const removed = await t
      .http()
      .delete(`/v1/stores/${shop.storeId}/products/${shop.productId}/variants/${shop.variants.XL}`)
      .set(bearer(shop.secret));
    expect(removed.status).toBe(200);
    expect(removed.body.archived_at).toMatch(TIMESTAMP);
  });
});
