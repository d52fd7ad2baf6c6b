/**
 * LearningService over a real database, without HTTP, fed by ingestion as in the service: one lesson per order line (a
 * later outcome takes back what an earlier one taught, so the sums are those of the latest alone), and an outcome
 * that comes before its purchase kept aside until the purchase arrives (docs/decisions/009-learning-from-outcomes.md).
 */
import { describe, expect, it } from '@jest/globals';
import { EventsService } from '../../src/events/events.service.js';
import { FitModule } from '../../src/fit/fit.module.js';
import { SessionsService } from '../../src/fit/sessions.service.js';
import { LearningService } from '../../src/learning/learning.service.js';
import type { EvidenceSums } from '../../src/sizing/learning.js';
import { eventBody, type EventBody, uniqueId } from '../support/event-fixtures.js';
import { SHOPPER } from '../support/metrics-fixtures.js';
import { createServiceShop, type ServiceShop } from '../support/service-fixtures.js';
import { useServiceModule } from '../support/service-module.js';

/** The numbers of a level's sums, compared to the last bits that floating point keeps. */
const SUMS: ReadonlyArray<keyof EvidenceSums> = [
  'weight',
  'weightedSteps',
  'weightedSquares',
  'undirected',
  'undirectedAbove',
  'undirectedBelow',
  'atLeast',
  'atMost',
];

function expectSameSums(actual: EvidenceSums, expected: EvidenceSums): void {
  expect(actual.count).toBe(expected.count);
  for (const field of SUMS) {
    const [a, b] = [[actual[field]].flat(), [expected[field]].flat()];
    expect(a).toHaveLength(b.length);
    a.forEach((x, i) => expect(Math.abs(x - b[i])).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(x))));
  }
}

describe('LearningService', () => {
  const m = useServiceModule([FitModule]);
  const events = () => m.get(EventsService);

  /** Minutes before the file started: two stores compared get the very same dates, hence the same weights. */
  const start = Date.now();
  const at = (minutesAgo: number) => new Date(start - minutesAgo * 60_000).toISOString();
  /** A line of the shop, bought in M unless told otherwise. */
  const line = (shop: ServiceShop, size: keyof ServiceShop['variants'] = 'M') => ({
    order_id: uniqueId('order'),
    line_item_id: uniqueId('line'),
    variant_id: shop.variants[size],
  });
  /** What learning reads for the shop's product: its own sums and its type's. */
  const levels = (shop: ServiceShop) => m.get(LearningService).currentLevels(shop.storeId, shop.productId, shop.productTypeId);
  /** Each event on its own, in order, as single deliveries. */
  const sendEach = async (shop: ServiceShop, bodies: EventBody[]) => {
    for (const body of bodies) expect((await events().record(shop.store, body)).status).toBe(201);
  };
  const sendBatch = async (shop: ServiceShop, bodies: EventBody[]) => {
    expect((await events().recordBatch(shop.store, bodies)).map((r) => r.status)).toEqual(bodies.map(() => 201));
  };
  /** Whether the line's row says an outcome waits for its purchase. */
  const waiting = async (shop: ServiceShop, l: { order_id: string; line_item_id: string }) => {
    const rows = await m.dataSource.query<{ lesson_waiting: boolean }[]>(
      `SELECT lesson_waiting FROM order_lines WHERE store_id = $1 AND order_id = $2 AND line_item_id = $3`,
      [shop.storeId, l.order_id, l.line_item_id],
    );
    return rows.map((row) => row.lesson_waiting);
  };

  describe('a later outcome of the same line', () => {
    it('takes back what the earlier one taught: the sums are those of the latest alone', async () => {
      const [shop, alone] = [await createServiceShop(m), await createServiceShop(m)];
      const l = line(shop);
      await sendEach(shop, [
        eventBody('purchase', shop, { ...l, occurred_at: at(90) }),
        eventBody('return_requested', shop, { ...l, fit_feedback: 'too_small', occurred_at: at(60) }),
      ]);
      const returned = (await levels(shop)).product;
      expect(returned.count).toBe(1);
      expect(returned.weightedSteps / returned.weight).toBeCloseTo(1, 9);

      await sendEach(shop, [eventBody('item_kept', shop, { ...l, occurred_at: at(30) })]);

      const r = line(alone);
      await sendEach(alone, [
        eventBody('purchase', alone, { ...r, occurred_at: at(90) }),
        eventBody('item_kept', alone, { ...r, occurred_at: at(30) }),
      ]);
      const [replaced, latest] = [await levels(shop), await levels(alone)];
      expectSameSums(replaced.product, latest.product);
      expectSameSums(replaced.productType, latest.productType);
      // kept in the size bought: no step left of the return's
      expect(replaced.product.count).toBe(1);
      expect(Math.abs(replaced.product.weightedSteps)).toBeLessThan(1e-9);
    });

    it('is the latest by when it happened: one that happened earlier, told later, changes nothing', async () => {
      const [shop, alone] = [await createServiceShop(m), await createServiceShop(m)];
      const l = line(shop);
      await sendEach(shop, [
        eventBody('purchase', shop, { ...l, occurred_at: at(90) }),
        eventBody('size_exchange', shop, { ...l, new_variant_id: shop.variants.L, occurred_at: at(20) }),
      ]);
      const before = await levels(shop);
      await sendEach(shop, [eventBody('return_requested', shop, { ...l, fit_feedback: 'too_large', occurred_at: at(40) })]);
      expectSameSums((await levels(shop)).product, before.product);

      const r = line(alone);
      await sendEach(alone, [
        eventBody('purchase', alone, { ...r, occurred_at: at(90) }),
        eventBody('size_exchange', alone, { ...r, new_variant_id: alone.variants.L, occurred_at: at(20) }),
      ]);
      expectSameSums((await levels(shop)).product, (await levels(alone)).product);
    });

    it('replaces within one batch too, and across the lines of a product each line counts once', async () => {
      const [shop, alone] = [await createServiceShop(m), await createServiceShop(m)];
      const told: EventBody[] = [];
      const latest: EventBody[] = [];
      for (const size of ['S', 'M', 'L'] as const) {
        const [l, r] = [line(shop, size), line(alone, size)];
        told.push(
          eventBody('purchase', shop, { ...l, occurred_at: at(90) }),
          eventBody('return_requested', shop, { ...l, fit_feedback: 'too_large', occurred_at: at(50) }),
          eventBody('return_requested', shop, { ...l, occurred_at: at(40) }),
          eventBody('item_kept', shop, { ...l, occurred_at: at(10) }),
        );
        latest.push(
          eventBody('purchase', alone, { ...r, occurred_at: at(90) }),
          eventBody('item_kept', alone, { ...r, occurred_at: at(10) }),
        );
      }
      await sendBatch(shop, told);
      await sendBatch(alone, latest);
      const [replaced, reference] = [await levels(shop), await levels(alone)];
      expect(replaced.product.count).toBe(3);
      expectSameSums(replaced.product, reference.product);
      expectSameSums(replaced.productType, reference.productType);
    });
  });

  describe('an outcome before its purchase', () => {
    /** The shop's line told outcome first, then its purchase, by `send`; and a twin told in the usual order. */
    const outcomeFirst = async (send: (shop: ServiceShop, bodies: EventBody[]) => Promise<void>) => {
      const [shop, usual] = [await createServiceShop(m), await createServiceShop(m)];
      const l = line(shop);
      await sendEach(shop, [eventBody('return_requested', shop, { ...l, fit_feedback: 'too_small', occurred_at: at(5) })]);
      expect((await levels(shop)).product.count).toBe(0);
      expect(await waiting(shop, l)).toEqual([true]);

      await send(shop, [eventBody('purchase', shop, { ...l, occurred_at: at(9) })]);

      expect((await levels(shop)).product.count).toBe(1);
      expect(await waiting(shop, l)).toEqual([false]);
      const u = line(usual);
      await sendEach(usual, [
        eventBody('purchase', usual, { ...u, occurred_at: at(9) }),
        eventBody('return_requested', usual, { ...u, fit_feedback: 'too_small', occurred_at: at(5) }),
      ]);
      expectSameSums((await levels(shop)).product, (await levels(usual)).product);
    };

    it('waits, and counts when its purchase arrives alone', async () => {
      await outcomeFirst(sendEach);
    });

    it('waits, and counts when its purchase arrives in a batch', async () => {
      await outcomeFirst((shop, bodies) => sendBatch(shop, [...bodies, eventBody('fit_viewed', shop)]));
    });

    it('teaches nothing when the purchase is of another variant than the outcome names', async () => {
      const shop = await createServiceShop(m);
      const l = line(shop);
      await sendEach(shop, [
        eventBody('return_requested', shop, { ...l, fit_feedback: 'too_small', occurred_at: at(5) }),
        eventBody('purchase', shop, { ...l, variant_id: shop.variants.L, occurred_at: at(9) }),
      ]);
      expect((await levels(shop)).product.count).toBe(0);
      expect(await waiting(shop, l)).toEqual([false]);
    });

    it('is measured from the session its purchase names, as if told in the usual order', async () => {
      // after both sessions start, the same instant for both, so that both outcomes weigh the same
      const when = new Date(Date.now() + 30_000).toISOString();
      /** A line bought in M after a session answered as SHOPPER, kept, told in `order`; the size the chart said. */
      const keptAfterSession = async (order: 'outcome first' | 'purchase first') => {
        const shop = await createServiceShop(m);
        const sessions = m.get(SessionsService);
        const started = await sessions.start(shop.store, { product_id: shop.productId });
        const session = await sessions.answer(shop.store, started.id, { answers: SHOPPER });
        const l = line(shop);
        const purchase = eventBody('purchase', shop, { ...l, session_id: session.id, occurred_at: when });
        const kept = eventBody('item_kept', shop, { ...l, occurred_at: when });
        await sendEach(shop, order === 'outcome first' ? [kept, purchase] : [purchase, kept]);
        return { shop, chartSays: session.recommendation?.adjustment?.chart_size_label };
      };
      const [late, usual] = [await keptAfterSession('outcome first'), await keptAfterSession('purchase first')];
      expect([late.chartSays, usual.chartSays]).toEqual(['L', 'L']);
      const [a, b] = [(await levels(late.shop)).product, (await levels(usual.shop)).product];
      expect(a.count).toBe(1);
      // kept in M where the chart said L: a step below it, not the size bought
      expect(a.weightedSteps / a.weight).toBeCloseTo(-1, 9);
      expectSameSums(a, b);
    });
  });
});
