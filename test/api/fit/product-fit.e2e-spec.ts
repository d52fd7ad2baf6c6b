/**
 * Learning from outcomes, e2e: what shoppers keep, return and exchange moves the product's learned offset (GET
 * …/products/{id}/fit, GET …/product-fit), the fit flow's recommendations use it, each outcome counts once however
 * often and however concurrently it is delivered, and nothing crosses a store.
 */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { createStore, expectProblem, issueKey } from '../../support/fixtures.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { createShop, type Recommendation, type Shop, type SizeLabel, SIZES } from '../../support/session-fixtures.js';

/** A shopper whose size on the shop's chart is M by every zone (both answered). */
const SHOPPER = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };

describe('learning how products fit from outcomes', () => {
  const t = useApp();
  const { newShop, batchRaw, postRaw } = eventsApi(t);
  const { recommended } = sessionsApi(t);

  const fitOf = (shop: Shop, productId = shop.productId, secret = shop.secret) =>
    t.http().get(`/v1/stores/${shop.storeId}/products/${productId}/fit`).set(bearer(secret));

  /** `lines` order lines of size `size`, each bought then returned (or exchanged) for size with `extra` fields. */
  async function outcomes(shop: Shop, lines: number, size: (typeof SIZES)[number], type: string, extra: Record<string, unknown> = {}) {
    const events = [];
    for (let i = 0; i < lines; i++) {
      const line = { order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: shop.variants[size] };
      events.push(eventBody('purchase', shop, line));
      events.push(eventBody(type, shop, { ...line, ...extra }));
    }
    const response = await batchRaw(shop, { events });
    expect(response.status).toBe(200);
    expect((response.body.results as { status: number }[]).map((r) => r.status)).toEqual(events.map(() => 201));
  }

  /** A recommendation for the shopper on the shop's product. */
  const recommendation = async (shop: Shop) => {
    const session = await recommended(shop, SHOPPER);
    return { sessionId: session.id, recommendation: session.recommendation as Recommendation };
  };

  it('learns that a product returned as too small runs small, and recommends a size up', async () => {
    const shop = await newShop();
    const before = await recommendation(shop);
    expect(before.recommendation.adjustment).toEqual({
      source: 'none',
      size_steps: 0,
      sd: null,
      evidence: 0,
      chart_size_label: before.recommendation.size_label,
      shopper_steps: null,
    });

    await outcomes(shop, 40, 'M', 'return_requested', { fit_feedback: 'too_small' });
    const fit = await fitOf(shop);
    expect(fit.status).toBe(200);
    expect(fit.body).toMatchObject({ product_id: shop.productId, direction: 'runs_small' });
    expect(fit.body.learned.size_steps).toBeGreaterThan(0.5);
    expect(fit.body.learned.low).toBeGreaterThan(0);
    expect(fit.body.learned.outcomes).toBe(40);
    expect(fit.body.sizes.map((s: { size_label: string }) => s.size_label)).toEqual([...SIZES]);
    expect(fit.body.sizes[1]).toEqual({
      size_label: 'M',
      purchased: 40,
      kept: 0,
      size_returns: 40,
      size_exchanges: 0,
      too_small: 40,
      too_large: 0,
      size_return_rate: 1,
      size_exchange_rate: 0,
    });
    expect(fit.body.sizes[0]).toMatchObject({ size_label: 'S', purchased: 0, size_return_rate: null });

    const after = await recommendation(shop);
    const index = (label: string) => SIZES.indexOf(label as (typeof SIZES)[number]);
    expect(after.recommendation.adjustment).toMatchObject({
      source: 'learned',
      evidence: 40,
      chart_size_label: before.recommendation.size_label,
    });
    expect(after.recommendation.adjustment.size_steps).toBe(fit.body.learned.size_steps);
    expect(index(after.recommendation.size_label)).toBe(index(before.recommendation.size_label) + 1);
    expect(after.recommendation.model_version).toMatch(/\+learned\.\d+\.\d{2}\.\d+\.\d{2}$/);
    expect(after.recommendation.model_version.startsWith(before.recommendation.model_version)).toBe(true);
  });

  it('learns from exchanges to a named size, and ranks products by the evidence that they run small or large', async () => {
    const shop = await newShop();
    const base = `/v1/stores/${shop.storeId}`;
    const second = await t
      .http()
      .post(`${base}/products`)
      .set(bearer(shop.secret))
      .send({ title: 'Roomy tee', external_id: uniqueId('p'), product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId });
    expect(second.status).toBe(201);
    const roomy: Shop = { ...shop, productId: second.body.id, variants: { ...shop.variants } };
    for (const label of SIZES) {
      const v = await t
        .http()
        .post(`${base}/products/${roomy.productId}/variants`)
        .set(bearer(shop.secret))
        .send({ size_label: label, sku: uniqueId('sku') });
      expect(v.status).toBe(201);
      roomy.variants[label] = v.body.id;
    }
    await outcomes(shop, 30, 'M', 'return_requested', { fit_feedback: 'too_small' });
    // every exchange of the roomy tee went from L to S: two sizes down
    const exchanges = [];
    for (let i = 0; i < 30; i++) {
      const line = { order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: roomy.variants.L };
      exchanges.push(eventBody('purchase', roomy, line), eventBody('size_exchange', roomy, { ...line, new_variant_id: roomy.variants.S }));
    }
    expect((await batchRaw(roomy, { events: exchanges })).status).toBe(200);

    const roomyFit = await fitOf(roomy);
    expect(roomyFit.body.direction).toBe('runs_large');
    expect(roomyFit.body.learned.size_steps).toBeLessThan(-0.5);
    expect(roomyFit.body.sizes[2]).toMatchObject({ size_label: 'L', purchased: 30, size_exchanges: 30, size_exchange_rate: 1 });

    const ranked = await t.http().get(`${base}/product-fit`).set(bearer(shop.secret));
    expect(ranked.status).toBe(200);
    expect(ranked.body.data.map((p: { product_id: string; direction: string }) => [p.product_id, p.direction]).sort()).toEqual(
      [
        [shop.productId, 'runs_small'],
        [roomy.productId, 'runs_large'],
      ].sort(),
    );
    const runsLarge = await t.http().get(`${base}/product-fit?direction=runs_large&limit=5`).set(bearer(shop.secret));
    expect(runsLarge.body.data).toEqual([
      expect.objectContaining({ product_id: roomy.productId, title: 'Roomy tee', direction: 'runs_large' }),
    ]);
    expectProblem(await t.http().get(`${base}/product-fit?direction=sideways`).set(bearer(shop.secret)), 400, 'validation_failed');
    expectProblem(await t.http().get(`${base}/product-fit?limit=0`).set(bearer(shop.secret)), 400, 'validation_failed');
  });

  it('reads a size problem with no direction as the way the product runs, from the size bought', async () => {
    /** A shop whose M was kept 12 times and returned as too small 12 times, plus `more` of its outcomes. */
    const runningSmall = async (more: (shop: Shop) => Promise<void> = async () => {}) => {
      const shop = await newShop();
      await outcomes(shop, 12, 'M', 'item_kept');
      await outcomes(shop, 12, 'M', 'return_requested', { fit_feedback: 'too_small' });
      await more(shop);
      const fit = await fitOf(shop);
      expect(fit.status).toBe(200);
      return fit.body.learned as { size_steps: number; sd: number; outcomes: number };
    };
    const directedOnly = await runningSmall();
    // returns of the chart's own size that say no direction: most likely too small too, on a product that runs small
    const atTheAnswer = await runningSmall((shop) => outcomes(shop, 8, 'M', 'return_requested'));
    expect(atTheAnswer.outcomes).toBe(32);
    expect(atTheAnswer.size_steps).toBeGreaterThan(directedOnly.size_steps + 0.05);
    expect(atTheAnswer.sd).toBeGreaterThan(0);

    // the same returns of a size above the one the chart said: her size lay at the chart's or two above, and the
    // chart's is the likelier
    const aboveTheAnswer = await runningSmall(async (shop) => {
      const events = [];
      for (let i = 0; i < 8; i++) {
        const { sessionId, recommendation: r } = await recommendation(shop);
        const above = SIZES[SIZES.indexOf(r.adjustment.chart_size_label as (typeof SIZES)[number]) + 1];
        // bought after the session started, as a purchase must be to count as assisted
        const line = {
          order_id: uniqueId('order'),
          line_item_id: uniqueId('line'),
          variant_id: shop.variants[above],
          occurred_at: new Date().toISOString(),
        };
        events.push(eventBody('purchase', shop, { ...line, session_id: sessionId }), eventBody('return_requested', shop, line));
      }
      expect((await batchRaw(shop, { events })).status).toBe(200);
    });
    expect(aboveTheAnswer.outcomes).toBe(32);
    expect(aboveTheAnswer.size_steps).toBeLessThan(atTheAnswer.size_steps - 0.05);
  });

  it('reads the largest size kept as that size or a bigger one, not as exactly right', async () => {
    const learned = async (keptSize: (typeof SIZES)[number]) => {
      const shop = await newShop();
      await outcomes(shop, 12, 'M', 'item_kept');
      await outcomes(shop, 12, 'M', 'return_requested', { fit_feedback: 'too_small' });
      await outcomes(shop, 10, keptSize, 'item_kept');
      return (await fitOf(shop)).body.learned as { size_steps: number; outcomes: number };
    };
    const [interior, largest] = [await learned('L'), await learned('XL')];
    expect([interior.outcomes, largest.outcomes]).toEqual([34, 34]);
    // on a product that runs small, the XL kept may have wanted a bigger size the chart lacks
    expect(largest.size_steps).toBeGreaterThan(interior.size_steps + 0.05);
  });

  it('learns a little from a shopper who chose another size than the chart said and bought it, nothing from one who follows it', async () => {
    const shop = await newShop();
    /** A session whose shopper chooses `choose(the chart's answer)` and buys it; the line bought. */
    const decide = async (choose: (chartSays: string) => string) => {
      const { sessionId, recommendation: r } = await recommendation(shop);
      const size = choose(r.adjustment.chart_size_label) as SizeLabel;
      const decided = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/sessions/${sessionId}/decision`)
        .set(bearer(shop.secret))
        .send({ size_label: size });
      expect(decided.status).toBe(200);
      const line = {
        order_id: uniqueId('order'),
        line_item_id: uniqueId('line'),
        variant_id: shop.variants[size],
        session_id: sessionId,
        occurred_at: new Date().toISOString(),
      };
      expect((await postRaw(shop, eventBody('purchase', shop, line))).status).toBe(201);
    };
    await decide((chartSays) => chartSays);
    expect((await fitOf(shop)).body.learned.outcomes).toBe(0);
    await decide((chartSays) => SIZES[SIZES.indexOf(chartSays as (typeof SIZES)[number]) - 1]);
    const fit = await fitOf(shop);
    expect(fit.body.learned.outcomes).toBe(1);
    expect(fit.body.learned.size_steps).toBeLessThan(0);
    // weak evidence: a single choice does not make the product run small
    expect(fit.body.direction).toBe('uncertain');
  });

  it('never learns across stores: the same product in another store keeps the stated chart', async () => {
    const shop = await newShop();
    const otherStoreId = await createStore(t, shop.secret);
    const twin = await createShop(t, otherStoreId, shop.secret);
    await outcomes(shop, 30, 'M', 'return_requested', { fit_feedback: 'too_small' });

    const twinFit = await fitOf(twin);
    expect(twinFit.status).toBe(200);
    expect(twinFit.body.learned).toMatchObject({ size_steps: 0, outcomes: 0 });
    expect(twinFit.body.direction).toBe('uncertain');
    expect((await recommendation(twin)).recommendation.adjustment.source).toBe('none');
    expect((await t.http().get(`/v1/stores/${otherStoreId}/product-fit`).set(bearer(shop.secret))).body.data).toEqual([]);
    // the first store's product is not the second store's
    expectProblem(await fitOf(twin, shop.productId), 404, 'not_found');
  });

  it('counts an outcome once however many times, and however concurrently, it is delivered', async () => {
    const shop = await newShop();
    const line = { order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: shop.variants.M };
    expect((await postRaw(shop, eventBody('purchase', shop, line))).status).toBe(201);
    const returned = eventBody('return_requested', shop, { ...line, fit_feedback: 'too_small' });
    const answers = await Promise.all(Array.from({ length: 12 }, () => postRaw(shop, returned)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(11).fill(200), 201]);

    // distinct outcomes of one product, all at once: every one counted
    const lines = Array.from({ length: 16 }, () => ({
      order_id: uniqueId('order'),
      line_item_id: uniqueId('line'),
      variant_id: shop.variants.L,
    }));
    const bought = await Promise.all(lines.map((l) => postRaw(shop, eventBody('purchase', shop, l))));
    expect(bought.map((b) => b.status)).toEqual(lines.map(() => 201));
    const kept = await Promise.all(lines.map((l) => postRaw(shop, eventBody('item_kept', shop, l))));
    expect(kept.map((k) => k.status)).toEqual(lines.map(() => 201));

    const fit = await fitOf(shop);
    expect(fit.body.learned.outcomes).toBe(17);
    expect(fit.body.sizes[1]).toMatchObject({ size_label: 'M', size_returns: 1, too_small: 1 });
    expect(fit.body.sizes[2]).toMatchObject({ size_label: 'L', kept: 16 });
  });

  /** Another product of the shop's type and chart, with a variant per size. */
  async function sibling(shop: Shop, productTypeId = shop.productTypeId): Promise<Shop> {
    const product = await createProduct(t, shop.secret, shop.storeId, { product_type_id: productTypeId, size_chart_id: shop.sizeChartId });
    const variants = {} as Record<SizeLabel, string>;
    for (const label of SIZES) variants[label] = (await createVariant(t, shop.secret, shop.storeId, product.id, { size_label: label })).id;
    return { ...shop, productTypeId, productId: product.id, variants };
  }

  /** Each product type's running sums in the store, beside the sums of the rows of its products. */
  const typeSums = (storeId: string) =>
    t.app
      .get(DataSource)
      .query<Array<{ product_type_id: string; outcomes: number; weight: number; products_outcomes: number; products_weight: number }>>(
        `SELECT t.product_type_id, t.outcomes, t.weight,
              (SELECT sum(p.outcomes)::int FROM fit_evidence p WHERE p.store_id = t.store_id AND p.product_type_id = t.product_type_id) AS products_outcomes,
              (SELECT sum(p.weight) FROM fit_evidence p WHERE p.store_id = t.store_id AND p.product_type_id = t.product_type_id) AS products_weight
         FROM fit_evidence_types t WHERE t.store_id = $1 ORDER BY t.product_type_id`,
        [storeId],
      );

  /** Every product of the store that the list shows, whatever its direction, with its learned offset. */
  async function listedOffsets(shop: Shop): Promise<Array<{ product_id: string; learned: unknown }>> {
    const listed: Array<{ product_id: string; learned: unknown }> = [];
    for (const direction of ['runs_small', 'runs_large', 'true_to_size', 'uncertain']) {
      const response = await t.http().get(`/v1/stores/${shop.storeId}/product-fit?direction=${direction}`).set(bearer(shop.secret));
      expect(response.status).toBe(200);
      listed.push(...response.body.data);
    }
    return listed;
  }

  it("keeps each product type's sums equal to its products' under concurrent outcomes, and reads them alike one by one and listed", async () => {
    const shop = await newShop();
    const products = [shop, await sibling(shop), await createShop(t, shop.storeId, shop.secret)];
    // every product: single outcomes, all at once, and a batch over all three
    const line = (p: Shop, size: SizeLabel) => ({
      order_id: uniqueId('order'),
      line_item_id: uniqueId('line'),
      variant_id: p.variants[size],
    });
    await Promise.all(
      products.flatMap((p, k) =>
        Array.from({ length: 6 }, async (_, i) => {
          const l = line(p, i % 2 ? 'M' : 'L');
          expect((await postRaw(p, eventBody('purchase', p, l))).status).toBe(201);
          const outcome =
            i % 2
              ? eventBody('return_requested', p, { ...l, fit_feedback: k === 1 ? 'too_large' : 'too_small' })
              : eventBody('item_kept', p, l);
          expect((await postRaw(p, outcome)).status).toBe(201);
        }),
      ),
    );
    await Promise.all(products.map((p) => outcomes(p, 4, 'M', 'return_requested', { fit_feedback: 'too_small' })));

    const types = await typeSums(shop.storeId);
    expect(types).toHaveLength(2);
    expect(types.map((r) => r.outcomes).sort()).toEqual([10, 20]);
    for (const row of types) {
      expect(row.outcomes).toBe(row.products_outcomes);
      expect(row.weight).toBeCloseTo(row.products_weight, 9);
    }
    // the list reads the store's rows; each product alone reads its row and the store's types: the same offsets
    const all = await listedOffsets(shop);
    expect(all.map((item) => item.product_id).sort()).toEqual(products.map((p) => p.productId).sort());
    for (const item of all) expect((await fitOf(shop, item.product_id)).body.learned).toEqual(item.learned);
  });

  it('counts an outcome for the type its product has when the outcome arrives', async () => {
    const shop = await newShop();
    const other = await createShop(t, shop.storeId, shop.secret);
    await outcomes(shop, 3, 'M', 'return_requested', { fit_feedback: 'too_small' });
    const moved = await t
      .http()
      .patch(`/v1/stores/${shop.storeId}/products/${shop.productId}`)
      .set(bearer(shop.secret))
      .send({ product_type_id: other.productTypeId });
    expect(moved.status).toBe(200);
    await outcomes({ ...shop, productTypeId: other.productTypeId }, 2, 'L', 'item_kept');

    const outcomesOf = async (typeId: string) => (await typeSums(shop.storeId)).find((r) => r.product_type_id === typeId)?.outcomes;
    expect(await outcomesOf(shop.productTypeId)).toBe(3);
    expect(await outcomesOf(other.productTypeId)).toBe(2);
    // the product's own evidence follows it whole, shrunk towards its new type's, listed or read alone
    const alone = await fitOf(shop);
    expect(alone.body.learned.outcomes).toBe(5);
    const listed = await listedOffsets(shop);
    expect(listed.find((item) => item.product_id === shop.productId)?.learned).toEqual(alone.body.learned);

    // moved back with no outcome since: both reads shrink it towards the type it has now
    const back = await t
      .http()
      .patch(`/v1/stores/${shop.storeId}/products/${shop.productId}`)
      .set(bearer(shop.secret))
      .send({ product_type_id: shop.productTypeId });
    expect(back.status).toBe(200);
    const again = await fitOf(shop);
    expect(again.body.learned).not.toEqual(alone.body.learned);
    const relisted = await listedOffsets(shop);
    expect(relisted.find((item) => item.product_id === shop.productId)?.learned).toEqual(again.body.learned);
  });

  it('takes a key with the catalog or the analytics scope, refuses others, and answers 404 for an unknown product', async () => {
    const shop = await newShop();
    for (const scopes of [['catalog'], ['analytics']]) {
      const key = await issueKey(t, shop.secret, { scopes, store_id: shop.storeId });
      expect((await fitOf(shop, shop.productId, key.secret)).status).toBe(200);
      expect((await t.http().get(`/v1/stores/${shop.storeId}/product-fit`).set(bearer(key.secret))).status).toBe(200);
    }
    const fitOnly = await issueKey(t, shop.secret, { scopes: ['fit', 'events'], store_id: shop.storeId });
    expectProblem(await fitOf(shop, shop.productId, fitOnly.secret), 403, 'insufficient_scope');
    expectProblem(await fitOf(shop, '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b'), 404, 'not_found');
    expectProblem(await fitOf(shop, 'not-an-id'), 404, 'not_found');
  });
});
