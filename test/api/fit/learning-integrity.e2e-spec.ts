/**
 * What an `events` key can teach, e2e: one lesson per order line (its latest outcome replaces what it taught before),
 * no lesson without the line's purchase of that variant, exchanges and decisions read as a direction and no more, and
 * a shopper learning only from the lines she bought. Compared through the API and with the stored sums.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { SHOPPER } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import type { Recommendation, Shop, SizeLabel } from '../../support/session-fixtures.js';
import { SIZES } from '../../support/session-fixtures.js';

type Line = { order_id: string; line_item_id: string; variant_id: string };

/** The sums' columns of `fit_evidence`, compared to the last bits that floating point keeps. */
const SUM_COLUMNS = ['weight', 'weighted_steps', 'weighted_squares', 'undirected', 'undirected_above', 'undirected_below'];

describe('what outcomes can teach', () => {
  const t = useApp();
  const { newShop, batchRaw, postRaw } = eventsApi(t);
  const { startRaw, answer, decideRaw } = sessionsApi(t);
  const db = () => t.app.get(DataSource);

  const fitOf = async (shop: Shop, productId = shop.productId) => {
    const response = await t.http().get(`/v1/stores/${shop.storeId}/products/${productId}/fit`).set(bearer(shop.secret));
    expect(response.status).toBe(200);
    return response.body as { learned: { size_steps: number; outcomes: number }; direction: string };
  };
  const line = (shop: Shop, size: SizeLabel): Line => ({
    order_id: uniqueId('order'),
    line_item_id: uniqueId('line'),
    variant_id: shop.variants[size],
  });
  /** Minutes before the test file started: every store of a comparison gets the very same dates. */
  const start = Date.now();
  const at = (minutesAgo: number) => new Date(start - minutesAgo * 60_000).toISOString();
  const now = () => new Date().toISOString();
  const send = async (shop: Shop, events: object[]) => {
    const response = await batchRaw(shop, { events });
    expect(response.status).toBe(200);
    expect((response.body.results as { status: number }[]).map((r) => r.status)).toEqual(events.map(() => 201));
  };
  /** A product's row of sums, or none. */
  const sumsOf = async (shop: Shop, productId = shop.productId) => {
    const [row] = await db().query<Record<string, number | number[]>[]>(
      `SELECT ${SUM_COLUMNS.join(', ')}, at_least, at_most, outcomes FROM fit_evidence WHERE store_id = $1 AND product_id = $2`,
      [shop.storeId, productId],
    );
    return row;
  };
  /** The store's verdict odds' rows (sizing/verdicts.ts), its product's keyed `product` and its type's `type`. */
  const verdictsOf = (shop: Shop) =>
    db().query<{ key: string; observed: number[]; expected: number[]; outcomes: number }[]>(
      `SELECT CASE WHEN key LIKE 'product:%' THEN 'product' WHEN key LIKE 'type:%' THEN 'type' ELSE key END AS key,
              observed, expected, outcomes
         FROM fit_verdicts WHERE store_id = $1 AND outcomes <> 0 ORDER BY 1`,
      [shop.storeId],
    );
  const expectSameVerdicts = (actual: Awaited<ReturnType<typeof verdictsOf>>, expected: Awaited<ReturnType<typeof verdictsOf>>) => {
    expect(actual.map((r) => [r.key, r.outcomes])).toEqual(expected.map((r) => [r.key, r.outcomes]));
    actual.forEach((row, i) =>
      [...row.observed, ...row.expected].forEach((x, j) => {
        const y = [...expected[i].observed, ...expected[i].expected][j];
        expect(Math.abs(Number(x) - Number(y))).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(Number(x))));
      }),
    );
  };
  const expectSameSums = (
    actual: Record<string, number | number[]> | undefined,
    expected: Record<string, number | number[]> | undefined,
  ) => {
    expect(actual?.outcomes ?? 0).toBe(expected?.outcomes ?? 0);
    for (const column of [...SUM_COLUMNS, 'at_least', 'at_most']) {
      const [a, b] = [[actual?.[column] ?? 0].flat(), [expected?.[column] ?? 0].flat()];
      a.forEach((x, i) => expect(Math.abs(Number(x) - Number(b[i] ?? 0))).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(Number(x)))));
    }
  };

  it('counts thirty outcomes of one line as its latest one, for the product, its siblings and the per-size table', async () => {
    const [forged, honest] = [await newShop(), await newShop()];
    // thirty exchanges of one never-kept M, each with a new external_id, each naming the smallest size
    const bought = line(forged, 'L');
    const exchanges = Array.from({ length: 30 }, (_, i) =>
      eventBody('size_exchange', forged, { ...bought, new_variant_id: forged.variants.S, occurred_at: at(60 - i) }),
    );
    await send(forged, [eventBody('purchase', forged, { ...bought, occurred_at: at(90) }), ...exchanges]);
    // the same line, told once
    const once = line(honest, 'L');
    await send(honest, [
      eventBody('purchase', honest, { ...once, occurred_at: at(90) }),
      eventBody('size_exchange', honest, { ...once, new_variant_id: honest.variants.S, occurred_at: at(31) }),
    ]);

    const [a, b] = [await fitOf(forged), await fitOf(honest)];
    expect(a.learned.outcomes).toBe(1);
    expect(a.learned.size_steps).toBe(b.learned.size_steps);
    expectSameSums(await sumsOf(forged), await sumsOf(honest));
    // an exchange two sizes down says "a size down or more", never two sizes: one outcome stays a weak lesson
    expect(a.learned.size_steps).toBeGreaterThan(-0.5);
    expect(a.direction).toBe('uncertain');
  });

  it('reads an exchange to a far size as the next size that way or beyond, not the distance to it', async () => {
    const learned = async (to: SizeLabel) => {
      const shop = await newShop();
      const events = [];
      for (let i = 0; i < 12; i++) {
        const l = line(shop, 'S');
        events.push(eventBody('purchase', shop, l), eventBody('size_exchange', shop, { ...l, new_variant_id: shop.variants[to] }));
      }
      await send(shop, events);
      return (await fitOf(shop)).learned.size_steps;
    };
    const [next, far] = [await learned('M'), await learned('XL')];
    expect(far).toBeGreaterThanOrEqual(next);
    // three sizes away each, read as distances, would have taught about +2.4 steps on these twelve outcomes
    expect(far).toBeLessThan(next + 0.6);
  });

  it('keeps an outcome without its purchase aside, and counts it once the purchase arrives', async () => {
    const shop = await newShop();
    const lines = Array.from({ length: 6 }, () => line(shop, 'M'));
    // single events, each taking its own path: the outcomes first
    for (const l of lines) {
      const returned = await postRaw(shop, eventBody('return_requested', shop, { ...l, fit_feedback: 'too_small', occurred_at: at(5) }));
      expect(returned.status).toBe(201);
    }
    expect((await fitOf(shop)).learned.outcomes).toBe(0);
    // a purchase of another variant than the one returned teaches nothing
    const [other, ...rest] = lines;
    expect((await postRaw(shop, eventBody('purchase', shop, { ...other, variant_id: shop.variants.L, occurred_at: at(9) }))).status).toBe(
      201,
    );
    expect((await fitOf(shop)).learned.outcomes).toBe(0);
    // the purchases, alone or in a batch: each counts its line's outcome once
    const [alone, ...batched] = rest;
    expect((await postRaw(shop, eventBody('purchase', shop, { ...alone, occurred_at: at(9) }))).status).toBe(201);
    expect((await fitOf(shop)).learned.outcomes).toBe(1);
    await send(
      shop,
      batched.map((l) => eventBody('purchase', shop, { ...l, occurred_at: at(9) })),
    );
    const fit = await fitOf(shop);
    expect(fit.learned.outcomes).toBe(5);

    // the same five lines told in the usual order give the same sums
    const twin = await newShop();
    const events = [];
    for (let i = 0; i < 5; i++) {
      const l = line(twin, 'M');
      events.push(
        eventBody('purchase', twin, { ...l, occurred_at: at(9) }),
        eventBody('return_requested', twin, { ...l, fit_feedback: 'too_small', occurred_at: at(5) }),
      );
    }
    await send(twin, events);
    expect((await fitOf(twin)).learned.size_steps).toBe(fit.learned.size_steps);
    const [waiting] = await db().query<{ waiting: number }[]>(
      `SELECT count(*)::int AS waiting FROM order_lines WHERE store_id = $1 AND lesson_waiting`,
      [shop.storeId],
    );
    expect(waiting.waiting).toBe(0);
  });

  it('measures an outcome that came before its purchase from the session the purchase names', async () => {
    /** A line bought in M after a session answered as SHOPPER (the chart says L) and kept, told in `order`. */
    const keptAfterSession = async (order: 'outcome first' | 'purchase first') => {
      const shop = await newShop();
      const started = await startRaw(shop, { product_id: shop.productId });
      const session = await answer(shop, started.body.id, SHOPPER);
      const l = line(shop, 'M');
      const purchase = eventBody('purchase', shop, { ...l, session_id: session.id, occurred_at: now() });
      const kept = eventBody('item_kept', shop, { ...l, occurred_at: at(-1) });
      for (const event of order === 'outcome first' ? [kept, purchase] : [purchase, kept]) {
        expect((await postRaw(shop, event)).status).toBe(201);
      }
      return { shop, chartSays: (session.recommendation as Recommendation).adjustment.chart_size_label };
    };
    const [late, usual] = [await keptAfterSession('outcome first'), await keptAfterSession('purchase first')];
    expect(late.chartSays).toBe('L');
    expect((await fitOf(late.shop)).learned.outcomes).toBe(1);
    expectSameSums(await sumsOf(late.shop), await sumsOf(usual.shop));
  });

  it('counts an outcome and its purchase sent at the same time exactly once, whichever is stored first', async () => {
    const shop = await newShop();
    const lines = Array.from({ length: 12 }, () => line(shop, 'M'));
    await Promise.all(
      lines.flatMap((l) => [
        postRaw(shop, eventBody('item_kept', shop, { ...l, occurred_at: at(3) })),
        postRaw(shop, eventBody('purchase', shop, { ...l, occurred_at: at(4) })),
      ]),
    );
    expect((await fitOf(shop)).learned.outcomes).toBe(12);
  });

  it('learns nothing from decisions alone; a decision bought in its size teaches a step that way, once per session', async () => {
    const shop = await newShop();
    /** A session whose shopper chose the smallest size; its recommendation. */
    const choosesSmallest = async () => {
      const started = await startRaw(shop, { product_id: shop.productId });
      expect(started.status).toBe(201);
      const session = await answer(shop, started.body.id, SHOPPER);
      expect((await decideRaw(shop, session.id, { size_label: 'S' })).status).toBe(200);
      return { id: session.id, recommendation: session.recommendation as Recommendation };
    };
    const sessions = [];
    for (let i = 0; i < 20; i++) sessions.push(await choosesSmallest());
    expect(sessions[0].recommendation.adjustment.chart_size_label).not.toBe('S');
    expect((await fitOf(shop)).learned).toMatchObject({ outcomes: 0, size_steps: 0 });
    const next = await choosesSmallest();
    expect(next.recommendation.size_label).toBe(sessions[0].recommendation.size_label);

    // bought in another size than chosen: nothing; bought as chosen: one step, weakly; a second line: nothing more
    const [first, second] = sessions;
    await send(shop, [eventBody('purchase', shop, { ...line(shop, 'L'), session_id: first.id, occurred_at: now() })]);
    expect((await fitOf(shop)).learned.outcomes).toBe(0);
    await send(shop, [eventBody('purchase', shop, { ...line(shop, 'S'), session_id: second.id, occurred_at: now() })]);
    const once = await fitOf(shop);
    expect(once.learned.outcomes).toBe(1);
    expect(once.learned.size_steps).toBeLessThan(0);
    expect(once.learned.size_steps).toBeGreaterThan(-0.1);
    await send(shop, [eventBody('purchase', shop, { ...line(shop, 'S'), session_id: second.id, occurred_at: now() })]);
    expect((await fitOf(shop)).learned).toEqual(once.learned);
  });

  it('teaches a shopper only from the lines bought after her sessions, never from a session an outcome names', async () => {
    const shop = await newShop();
    const started = await startRaw(shop, { product_id: shop.productId, shopper_ref: 'cust-victim' });
    const victim = await answer(shop, started.body.id, SHOPPER);
    // a made-up order naming her session on its outcomes only (no purchase names it)
    const events = [];
    for (let i = 0; i < 10; i++) {
      const l = line(shop, 'S');
      events.push(eventBody('purchase', shop, l), eventBody('item_kept', shop, { ...l, session_id: victim.id, occurred_at: now() }));
    }
    await send(shop, events);
    const [own] = await db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM shopper_evidence WHERE store_id = $1`, [shop.storeId]);
    expect(own.n).toBe(0);
    const again = await startRaw(shop, { product_id: shop.productId, shopper_ref: 'cust-victim' });
    const next = await answer(shop, again.body.id, SHOPPER);
    expect((next.recommendation as Recommendation & { adjustment: { shopper_steps: number | null } }).adjustment.shopper_steps).toBeNull();
  });

  it('keeps a product sums equal to the sum over its lines of their latest outcome, under concurrent deliveries and retries', async () => {
    type Outcome = { type: string; feedback: string | null; to: SizeLabel | null; minutesAgo: number };
    const outcome = fc.record({
      type: fc.constantFrom('item_kept', 'return_requested', 'size_exchange'),
      feedback: fc.constantFrom<string | null>('too_small', 'too_large', null),
      to: fc.constantFrom<SizeLabel | null>(...SIZES, null),
      minutesAgo: fc.integer({ min: 1, max: 500 }),
    });
    const scenario = fc.array(
      fc.record({ size: fc.constantFrom(...SIZES), outcomes: fc.array(outcome, { minLength: 1, maxLength: 4 }), retries: fc.nat(2) }),
      { minLength: 1, maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(scenario, async (lines) => {
        const [shop, reference] = [await newShop(), await newShop()];
        const base = Date.now();
        /** The outcome as an event of `target`'s line `l` (the k-th of its line, so that none ties with another). */
        const body = (target: Shop, l: Line, o: Outcome, k: number) =>
          eventBody(o.type, target, {
            ...l,
            ...(o.type !== 'item_kept' && o.feedback ? { fit_feedback: o.feedback } : {}),
            ...(o.type === 'size_exchange' && o.to && target.variants[o.to] !== l.variant_id
              ? { new_variant_id: target.variants[o.to] }
              : {}),
            occurred_at: new Date(base - o.minutesAgo * 60_000 - k).toISOString(),
          });
        const told: Promise<{ status: number }>[] = [];
        const latest: object[] = [];
        for (const { size, outcomes, retries } of lines) {
          const [l, r] = [line(shop, size), line(reference, size)];
          await send(shop, [eventBody('purchase', shop, { ...l, occurred_at: at(600) })]);
          await send(reference, [eventBody('purchase', reference, { ...r, occurred_at: at(600) })]);
          outcomes.forEach((o, k) => {
            const sent = body(shop, l, o, k);
            for (let i = 0; i <= retries; i++) told.push(postRaw(shop, sent));
          });
          const when = (o: Outcome, k: number) => base - o.minutesAgo * 60_000 - k;
          const last = outcomes.map((o, k) => ({ o, k })).reduce((x, y) => (when(y.o, y.k) > when(x.o, x.k) ? y : x));
          latest.push(body(reference, r, last.o, last.k));
        }
        const answers = await Promise.all(told);
        expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
        await send(reference, latest);
        expectSameSums(await sumsOf(shop), await sumsOf(reference));
        expectSameVerdicts(await verdictsOf(shop), await verdictsOf(reference));
      }),
      { numRuns: 6 },
    );
  });
});
