/**
 * An import of a store's past orders, e2e (`POST /v1/stores/{store_id}/order-history`): lines of any age teach the
 * learned state as their events would, at their own dates, in the one lesson per line the line's events share, and
 * nothing else (no event, no order line, no metric); idempotent per line, concurrent imports of a line counted once,
 * every invalid request refused whole, and the route's scope and tenancy.
 */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { createProduct, createProductType, createSizeChart, createVariant } from '../../support/catalog-fixtures.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { createTenant, expectErrors, expectProblem, issueKey, MISSING_ID } from '../../support/fixtures.js';
import { DAY, dateOf, getDaily, getMetrics, setSessionCreatedAt, SHOPPER, siblingShop } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { type Recommendation, type Shop, SIZES, type SizeLabel } from '../../support/session-fixtures.js';

type Outcome = { type: string; reason?: string; fit_feedback?: string; new_variant_id?: string; occurred_at: string };
type Line = {
  order_id: string;
  line_item_id: string;
  product_id: string;
  variant_id: string;
  purchased_at: string;
  outcome: Outcome;
  shopper_ref?: string;
};
type Summary = { received: number; learned: number; replaced: number; unchanged: number; ignored: { index: number; reason: string }[] };
type Learned = { size_steps: number; outcomes: number; imported_outcomes: number; evidence_weight: number };

/** The sums' columns of a row of evidence, compared to the last bits that floating point keeps. */
const SUM_COLUMNS = ['weight', 'weighted_steps', 'weighted_squares', 'undirected', 'undirected_above', 'undirected_below'];
const YEAR = 365 * DAY;

describe('an import of past orders', () => {
  const t = useApp();
  const { newShop, batchRaw, postRaw, listAll } = eventsApi(t);
  const { recommended, listRaw: sessionsRaw } = sessionsApi(t);
  const db = () => t.app.get(DataSource);

  const importRaw = (shop: Shop, body: unknown, secret = shop.secret, storeId = shop.storeId) =>
    t
      .http()
      .post(`/v1/stores/${storeId}/order-history`)
      .set(bearer(secret))
      .send(body as object);
  const importLines = async (shop: Shop, lines: readonly object[]): Promise<Summary> => {
    const response = await importRaw(shop, { lines });
    if (response.status !== 200) expect({ status: response.status, body: response.body }).toEqual({ status: 200 });
    return response.body as Summary;
  };
  /** When the file started: lines of two stores compared get the very same dates. */
  const start = Date.now();
  /**
   * A line bought in `size` `ago` ms before the file started, returned as too small a week later (or with `outcome`
   * instead).
   */
  const pastLine = (shop: Shop, size: SizeLabel, ago: number, outcome: Partial<Outcome> = {}): Line => ({
    order_id: uniqueId('order'),
    line_item_id: uniqueId('line'),
    product_id: shop.productId,
    variant_id: shop.variants[size],
    purchased_at: new Date(start - ago).toISOString(),
    outcome: {
      type: 'return_requested',
      reason: 'size',
      fit_feedback: 'too_small',
      occurred_at: new Date(start - ago + 7 * DAY).toISOString(),
      ...outcome,
    },
  });
  const learnedOf = async (shop: Shop, productId = shop.productId): Promise<Learned> => {
    const response = await t.http().get(`/v1/stores/${shop.storeId}/products/${productId}/fit`).set(bearer(shop.secret));
    expect(response.status).toBe(200);
    return response.body.learned as Learned;
  };
  /** A product's row of sums, or none. */
  const sumsOf = async (shop: Shop, productId = shop.productId) => {
    const [row] = await db().query<Record<string, number | number[]>[]>(
      `SELECT ${SUM_COLUMNS.join(', ')}, at_least, at_most, outcomes FROM fit_evidence WHERE store_id = $1 AND product_id = $2`,
      [shop.storeId, productId],
    );
    return row;
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
  /** Every row the store has in the tables learning writes, and in those it must not. */
  const tablesOf = async (shop: Shop) => {
    const count = async (table: string) =>
      (await db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE store_id = $1`, [shop.storeId]))[0].n;
    const tables = ['events', 'order_lines', 'session_lines', 'line_lessons', 'fit_evidence', 'fit_evidence_types', 'shopper_evidence'];
    return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(table)] as const)));
  };

  it('learns from a five-year-old history: the offset moves, and outcomes and imported_outcomes count it, weighed by its age', async () => {
    const [old, recent] = [await newShop(), await newShop()];
    expect(await learnedOf(old)).toMatchObject({ size_steps: 0, outcomes: 0, imported_outcomes: 0 });
    const lines = (shop: Shop, ago: number) => Array.from({ length: 12 }, () => pastLine(shop, 'M', ago));

    expect(await importLines(old, lines(old, 5 * YEAR))).toEqual({ received: 12, learned: 12, replaced: 0, unchanged: 0, ignored: [] });
    await importLines(recent, lines(recent, 60 * DAY));

    const [a, b] = [await learnedOf(old), await learnedOf(recent)];
    expect(a).toMatchObject({ outcomes: 12, imported_outcomes: 12 });
    expect(a.size_steps).toBeGreaterThan(0);
    // five years of decay (e^-5): the old outcomes count, and weigh far less than recent ones
    expect(a.evidence_weight).toBeLessThan(b.evidence_weight / 20);
    expect(a.size_steps).toBeLessThan(b.size_steps);
  });

  it('teaches exactly what the same outcomes sent as events teach, for lines bought without a fit session', async () => {
    const [imported, told] = [await newShop(), await newShop()];
    /** Per line: its size, and its outcome (sizes by label, resolved per shop). */
    const story: { size: SizeLabel; outcome: Partial<Outcome> & { to?: SizeLabel } }[] = [
      { size: 'M', outcome: { type: 'item_kept', reason: undefined, fit_feedback: undefined } },
      { size: 'XL', outcome: { type: 'item_kept', reason: undefined, fit_feedback: undefined } },
      { size: 'S', outcome: { type: 'item_kept', reason: undefined, fit_feedback: undefined } },
      { size: 'M', outcome: { fit_feedback: 'too_large' } },
      { size: 'L', outcome: { fit_feedback: undefined } },
      { size: 'S', outcome: { type: 'size_exchange', fit_feedback: undefined, to: 'XL' } },
      { size: 'M', outcome: { type: 'size_exchange', to: 'L' } },
      { size: 'M', outcome: { reason: 'other', fit_feedback: undefined } },
    ];
    const lineOf = (shop: Shop, { size, outcome: { to, ...outcome } }: (typeof story)[number], i: number) =>
      pastLine(shop, size, (40 - i) * DAY, { ...outcome, ...(to ? { new_variant_id: shop.variants[to] } : {}) });
    const summary = await importLines(
      imported,
      story.map((s, i) => lineOf(imported, s, i)),
    );
    expect(summary).toMatchObject({ learned: 7, ignored: [{ index: 7, reason: expect.stringContaining('reason other than size') }] });

    const events = story.flatMap((s, i) => {
      const { outcome, purchased_at, ...line } = lineOf(told, s, i);
      const { type, occurred_at, ...rest } = outcome;
      const fields = { order_id: line.order_id, line_item_id: line.line_item_id, variant_id: line.variant_id };
      return [
        eventBody('purchase', told, { ...fields, occurred_at: purchased_at }),
        eventBody(type, told, { ...fields, ...rest, occurred_at }),
      ];
    });
    const response = await batchRaw(told, { events });
    expect((response.body.results as { status: number }[]).map((r) => r.status)).toEqual(events.map(() => 201));

    expectSameSums(await sumsOf(imported), await sumsOf(told));
    const [a, b] = [await learnedOf(imported), await learnedOf(told)];
    expect(a).toEqual({ ...b, imported_outcomes: 7 });
    expect(b.imported_outcomes).toBe(0);
  });

  it('leaves the metrics, the daily metrics, the events, the sessions and the order lines as they were', async () => {
    const shop = await newShop();
    // live activity: a recommended session whose line was bought and kept
    const session = await recommended(shop);
    await setSessionCreatedAt(t, session.id, Date.now() - 3 * DAY);
    const live = { order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: shop.variants.M };
    const sent = await batchRaw(shop, {
      events: [
        eventBody('purchase', shop, { ...live, session_id: session.id, occurred_at: new Date(Date.now() - 2 * DAY).toISOString() }),
        eventBody('item_kept', shop, { ...live, occurred_at: new Date(Date.now() - DAY).toISOString() }),
      ],
    });
    expect(sent.status).toBe(200);
    const range = { from: dateOf(Date.now() - 30 * DAY), to: dateOf(Date.now() + DAY) };
    const read = async () => ({
      metrics: (await getMetrics(t, shop, range)).counts,
      daily: (await getDaily(t, shop, range)).days,
      events: await listAll(shop),
      sessions: (await sessionsRaw(shop, '?limit=100')).body.data,
    });
    const before = await read();
    const tables = await tablesOf(shop);
    expect(before.metrics).toMatchObject({ purchased_lines: 1, kept_lines: 1, size_returned_lines: 0 });

    // the live line returned for size later, and lines of the past: only learning changes
    const later = pastLine(shop, 'M', 0, { occurred_at: new Date().toISOString() });
    const summary = await importLines(shop, [
      { ...later, ...live, purchased_at: new Date(Date.now() - 2 * DAY).toISOString() },
      ...Array.from({ length: 5 }, () => pastLine(shop, 'L', 3 * YEAR)),
    ]);
    expect(summary).toMatchObject({ learned: 5, replaced: 1 });
    expect(await read()).toEqual(before);
    expect(await tablesOf(shop)).toEqual({ ...tables, line_lessons: tables.line_lessons + 5 });
  });

  it('changes nothing when the same lines are imported again, or an earlier outcome of them', async () => {
    const shop = await newShop();
    const lines = [
      pastLine(shop, 'M', 2 * YEAR),
      pastLine(shop, 'L', 3 * YEAR, { type: 'item_kept', reason: undefined, fit_feedback: undefined }),
    ];
    await importLines(shop, lines);
    const [sums, lessons] = [
      await sumsOf(shop),
      await db().query(`SELECT * FROM line_lessons WHERE store_id = $1 ORDER BY order_id`, [shop.storeId]),
    ];

    expect(await importLines(shop, lines)).toEqual({ received: 2, learned: 0, replaced: 0, unchanged: 2, ignored: [] });
    const earlier = { ...lines[0], outcome: { ...lines[0].outcome, occurred_at: lines[0].purchased_at, fit_feedback: 'too_large' } };
    expect(await importLines(shop, [earlier])).toMatchObject({ unchanged: 1 });
    expect(await sumsOf(shop)).toEqual(sums);
    expect(await db().query(`SELECT * FROM line_lessons WHERE store_id = $1 ORDER BY order_id`, [shop.storeId])).toEqual(lessons);
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 2, imported_outcomes: 2 });
  });

  it('counts a line imported by several requests at once exactly once', async () => {
    const [shop, reference] = [await newShop(), await newShop()];
    const lines = [pastLine(shop, 'M', YEAR), pastLine(shop, 'S', 2 * YEAR), pastLine(shop, 'XL', 4 * YEAR)];
    const answers = await Promise.all(Array.from({ length: 6 }, () => importRaw(shop, { lines })));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const summaries = answers.map((a) => a.body as Summary);
    expect(summaries.reduce((n, s) => n + s.learned, 0)).toBe(3);
    expect(summaries.reduce((n, s) => n + s.unchanged, 0)).toBe(15);
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 3, imported_outcomes: 3 });
    // the same lines imported once elsewhere
    await importLines(
      reference,
      lines.map((l) => ({ ...l, product_id: reference.productId, variant_id: reference.variants[sizeOf(shop, l.variant_id)] })),
    );
    expectSameSums(await sumsOf(shop), await sumsOf(reference));
  });

  it('counts a line told at once by imports and by its events once, by its latest outcome, whatever comes first', async () => {
    const [shop, reference] = [await newShop(), await newShop()];
    const lines = Array.from({ length: 24 }, (_, i) => pastLine(shop, SIZES[i % SIZES.length], 60 * DAY));
    const latest = new Map<Line, Line>();
    /** Each line told at once by an import of its outcome `days` after the first one, and by a kept item a day before or after. */
    const tell = async (days: number) => {
      const told: Promise<{ status: number }>[] = [];
      lines.forEach((line, i) => {
        const when = (d: number) => new Date(Date.parse(line.outcome.occurred_at) + d * DAY).toISOString();
        const imported = { ...line, outcome: { ...line.outcome, occurred_at: when(days) } };
        const kept = { type: 'item_kept', occurred_at: when(days + (i % 2 === 0 ? 1 : -1)) };
        const fields = { order_id: line.order_id, line_item_id: line.line_item_id, variant_id: line.variant_id };
        told.push(importRaw(shop, { lines: [imported] }));
        // every third line has no purchase reported as an event: the import stands for it
        if (i % 3 !== 0 && days === 0) told.push(postRaw(shop, eventBody('purchase', shop, { ...fields, occurred_at: line.purchased_at })));
        told.push(postRaw(shop, eventBody('item_kept', shop, { ...fields, occurred_at: kept.occurred_at })));
        latest.set(line, i % 2 === 0 ? { ...imported, outcome: kept } : imported);
      });
      const answers = await Promise.all(told);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 201)).toEqual([]);
    };
    // new lines, then lines that each have a lesson
    await tell(0);
    await tell(3);
    const size = (variantId: string) => SIZES.find((label) => shop.variants[label] === variantId) as SizeLabel;
    await importLines(
      reference,
      [...latest.values()].map((l) => ({ ...l, product_id: reference.productId, variant_id: reference.variants[size(l.variant_id)] })),
    );
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 24, imported_outcomes: 12 });
    expectSameSums(await sumsOf(shop), await sumsOf(reference));
  });

  it('takes the latest outcome when one request names a line twice', async () => {
    const shop = await newShop();
    const line = pastLine(shop, 'M', 2 * YEAR);
    const later = {
      ...line,
      outcome: { type: 'item_kept', occurred_at: new Date(Date.parse(line.outcome.occurred_at) + DAY).toISOString() },
    };
    expect(await importLines(shop, [later, line])).toMatchObject({ learned: 1, unchanged: 1 });
    const kept = await newShop();
    await importLines(kept, [{ ...later, product_id: kept.productId, variant_id: kept.variants.M }]);
    expectSameSums(await sumsOf(shop), await sumsOf(kept));
  });

  it('lets a later live outcome of an imported line replace what it taught, and not an earlier one', async () => {
    const [shop, reference] = [await newShop(), await newShop()];
    const line = pastLine(shop, 'M', 60 * DAY);
    await importLines(shop, [line]);
    const fields = { order_id: line.order_id, line_item_id: line.line_item_id, variant_id: line.variant_id };

    // an earlier outcome of the line, as an event: the imported one stays
    const earlier = new Date(Date.parse(line.outcome.occurred_at) - DAY).toISOString();
    expect((await postRaw(shop, eventBody('item_kept', shop, { ...fields, occurred_at: earlier }))).status).toBe(201);
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 1 });

    // a later one replaces it, with no purchase reported as an event: the import stands for it
    const later = new Date(Date.parse(line.outcome.occurred_at) + DAY).toISOString();
    expect(
      (await postRaw(shop, eventBody('return_requested', shop, { ...fields, fit_feedback: 'too_large', occurred_at: later }))).status,
    ).toBe(201);
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 0 });
    // the same as that outcome alone
    await importLines(reference, [
      {
        ...line,
        product_id: reference.productId,
        variant_id: reference.variants.M,
        outcome: { type: 'return_requested', reason: 'size', fit_feedback: 'too_large', occurred_at: later },
      },
    ]);
    expectSameSums(await sumsOf(shop), await sumsOf(reference));
    // and importing the line again, with its old outcome, changes nothing
    expect(await importLines(shop, [line])).toMatchObject({ unchanged: 1 });
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 0 });
  });

  it('replaces what a line reported as events taught with a later imported outcome, never with an earlier one', async () => {
    const shop = await newShop();
    const fields = { order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: shop.variants.M };
    const sent = await batchRaw(shop, {
      events: [
        eventBody('purchase', shop, { ...fields, occurred_at: new Date(Date.now() - 10 * DAY).toISOString() }),
        eventBody('item_kept', shop, { ...fields, occurred_at: new Date(Date.now() - 5 * DAY).toISOString() }),
      ],
    });
    expect(sent.status).toBe(200);
    const line = { ...pastLine(shop, 'M', 20 * DAY), ...fields };
    expect(await importLines(shop, [line])).toMatchObject({ unchanged: 1 });
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 0 });
    const later = { ...line, outcome: { ...line.outcome, occurred_at: new Date(Date.now() - DAY).toISOString() } };
    expect(await importLines(shop, [later])).toMatchObject({ replaced: 1 });
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 1 });
    // a line reported bought in another size: its outcome in M teaches nothing
    const other = { ...later, variant_id: shop.variants.L };
    expect(await importLines(shop, [other])).toMatchObject({ ignored: [{ index: 0, reason: expect.stringContaining('another variant') }] });
  });

  it('tells which lines teach nothing, and why', async () => {
    const shop = await newShop();
    const onesize = await createSizeChart(t, shop.secret, shop.storeId, {
      sizes: [{ label: 'One size', measurements: { chest: { min: 80, max: 120 } } }],
    });
    const wraps = await createProductType(t, shop.secret, shop.storeId, { name: 'Wraps', zone_weights: { chest: 1 } });
    const scarf = await createProduct(t, shop.secret, shop.storeId, { size_chart_id: onesize.id, product_type_id: wraps.id });
    const variant = await createVariant(t, shop.secret, shop.storeId, scarf.id, { size_label: 'One size' });
    const summary = await importLines(shop, [
      pastLine(shop, 'M', YEAR),
      pastLine(shop, 'M', YEAR, { reason: 'other', fit_feedback: undefined }),
      pastLine(shop, 'M', YEAR, { type: 'size_exchange', reason: 'other', fit_feedback: undefined }),
      { ...pastLine(shop, 'M', YEAR), product_id: scarf.id, variant_id: variant.id },
    ]);
    expect(summary).toEqual({
      received: 4,
      learned: 1,
      replaced: 0,
      unchanged: 0,
      ignored: [
        { index: 1, reason: 'a return for a reason other than size says nothing about fit' },
        { index: 2, reason: 'an exchange for a reason other than size says nothing about fit' },
        { index: 3, reason: expect.stringContaining('single size') },
      ],
    });
    expect(await learnedOf(shop)).toMatchObject({ outcomes: 1, imported_outcomes: 1 });
  });

  it('teaches a returning shopper her share, under the digest her sessions have, and her erasure forgets it', async () => {
    const shop = await newShop();
    const ref = `cust-${uniqueId()}`;
    await importLines(
      shop,
      Array.from({ length: 8 }, () => ({ ...pastLine(shop, 'M', 90 * DAY), shopper_ref: ref })),
    );
    const [own] = await db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM shopper_evidence WHERE store_id = $1`, [shop.storeId]);
    expect(own.n).toBe(1);
    const stored = await db().query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM line_lessons WHERE store_id = $1 AND encode(shopper_digest, 'escape') LIKE $2`,
      [shop.storeId, `%${ref}%`],
    );
    expect(stored[0].n).toBe(0);
    const session = await recommended(shop, SHOPPER, { shopper_ref: ref });
    const steps = (session.recommendation as Recommendation & { adjustment: { shopper_steps: number | null } }).adjustment.shopper_steps;
    expect(steps).toBeGreaterThan(0);

    const erased = await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/${ref}`).set(bearer(shop.secret));
    expect(erased.status).toBe(204);
    const [left] = await db().query<{ n: number }[]>(`SELECT count(*)::int AS n FROM shopper_evidence WHERE store_id = $1`, [shop.storeId]);
    expect(left.n).toBe(0);
  });

  it('archives rather than deletes a product that only an import taught about', async () => {
    const shop = await newShop();
    await importLines(shop, [pastLine(shop, 'M', YEAR)]);
    const deleted = await t.http().delete(`/v1/stores/${shop.storeId}/products/${shop.productId}`).set(bearer(shop.secret));
    expect(deleted.status).toBe(200);
    expect(deleted.body.archived_at).not.toBeNull();
  });

  describe('refuses, writing nothing,', () => {
    /** Imports `lines` with `bad` among good ones, expects exactly `errors`, and that nothing was learned. */
    const expectRefused = async (shop: Shop, lines: readonly object[], errors: Record<string, string>) => {
      const before = await tablesOf(shop);
      const response = await importRaw(shop, { lines: [pastLine(shop, 'M', YEAR), ...lines] });
      expectErrors(response, errors);
      expect(await tablesOf(shop)).toEqual(before);
      expect(await learnedOf(shop)).toMatchObject({ outcomes: 0 });
      return response;
    };

    it('more than 1,000 lines, or none', async () => {
      const shop = await newShop();
      const many = Array.from({ length: 1001 }, () => pastLine(shop, 'M', YEAR));
      expectErrors(await importRaw(shop, { lines: many }), { lines: 'too_many_items' });
      expectErrors(await importRaw(shop, { lines: [] }), { lines: 'array_min_size' });
      expect(await learnedOf(shop)).toMatchObject({ outcomes: 0 });
      // a thousand is the limit
      expect(await importLines(shop, many.slice(1))).toMatchObject({ received: 1000, learned: 1000 });
    });

    it('times in the future, or an outcome before its purchase', async () => {
      const shop = await newShop();
      const ahead = new Date(Date.now() + DAY).toISOString();
      await expectRefused(
        shop,
        [
          { ...pastLine(shop, 'M', YEAR), purchased_at: ahead },
          pastLine(shop, 'M', YEAR, { occurred_at: ahead }),
          pastLine(shop, 'M', YEAR, { occurred_at: new Date(Date.now() - 2 * YEAR).toISOString() }),
        ],
        {
          'lines[1].purchased_at': 'too_far_in_future',
          'lines[1].outcome.occurred_at': 'before_purchase',
          'lines[2].outcome.occurred_at': 'too_far_in_future',
          'lines[3].outcome.occurred_at': 'before_purchase',
        },
      );
    });

    it('fields that break the rules of events', async () => {
      const shop = await newShop();
      await expectRefused(
        shop,
        [
          pastLine(shop, 'M', YEAR, { reason: undefined, fit_feedback: undefined }),
          pastLine(shop, 'M', YEAR, { type: 'item_kept', fit_feedback: undefined }),
          pastLine(shop, 'M', YEAR, { type: 'purchase' }),
          { ...pastLine(shop, 'M', YEAR), outcome: 'kept' },
          { ...pastLine(shop, 'M', YEAR), colour: 'red' },
          pastLine(shop, 'M', YEAR, { new_variant_id: shop.variants.L } as Partial<Outcome>),
          { ...pastLine(shop, 'M', YEAR), shopper_ref: '' },
          { ...pastLine(shop, 'M', YEAR), product_id: '4012345' },
        ],
        {
          'lines[1].outcome.reason': 'required',
          'lines[2].outcome.reason': 'not_allowed_for_type',
          'lines[3].outcome.type': 'not_allowed_value',
          'lines[4].outcome': 'must_be_object',
          'lines[5].colour': 'unknown_field',
          'lines[6].outcome.new_variant_id': 'not_allowed_for_type',
          'lines[7].shopper_ref': 'invalid_length',
          'lines[8].product_id': 'must_be_id',
        },
      );
    });

    it('a variant the store does not have, or of another product, and another store’s product as one that does not exist', async () => {
      const shop = await newShop();
      const sibling = await siblingShop(t, shop as Shop & { tenant: Awaited<ReturnType<typeof createTenant>> });
      const stranger = await newShop();
      const other = await createProduct(t, shop.secret, shop.storeId, {
        product_type_id: shop.productTypeId,
        size_chart_id: shop.sizeChartId,
      });
      const otherVariant = await createVariant(t, shop.secret, shop.storeId, other.id, { size_label: 'M' });
      const response = await expectRefused(
        shop,
        [
          { ...pastLine(shop, 'M', YEAR), variant_id: MISSING_ID },
          { ...pastLine(shop, 'M', YEAR), variant_id: otherVariant.id },
          pastLine(shop, 'M', YEAR, { type: 'size_exchange', new_variant_id: otherVariant.id }),
          { ...pastLine(shop, 'M', YEAR), product_id: sibling.productId, variant_id: sibling.variants.M },
          { ...pastLine(shop, 'M', YEAR), product_id: stranger.productId, variant_id: stranger.variants.M },
          { ...pastLine(shop, 'M', YEAR), product_id: MISSING_ID, variant_id: MISSING_ID },
        ],
        {
          'lines[1].variant_id': 'not_found',
          'lines[2].variant_id': 'not_of_product',
          'lines[3].outcome.new_variant_id': 'not_of_product',
          'lines[4].product_id': 'not_found',
          'lines[4].variant_id': 'not_found',
          'lines[5].product_id': 'not_found',
          'lines[5].variant_id': 'not_found',
          'lines[6].product_id': 'not_found',
          'lines[6].variant_id': 'not_found',
        },
      );
      // another store's ids read exactly as ids that exist nowhere
      const errors = response.body.errors as { field: string; code: string; message: string }[];
      const said = (i: number) => errors.filter((e) => e.field.startsWith(`lines[${i}]`)).map((e) => e.message.replace(`lines[${i}]`, ''));
      expect(said(4)).toEqual(said(6));
      expect(said(5)).toEqual(said(6));
    });
  });

  describe('access', () => {
    it('takes an events key of the store, and refuses fit, analytics and catalog keys', async () => {
      const shop = await newShop();
      const key = (scopes: string[]) => issueKey(t, shop.tenant.admin.secret, { scopes, store_id: shop.storeId });
      const body = () => ({ lines: [pastLine(shop, 'M', YEAR)] });
      for (const scope of ['fit', 'analytics', 'catalog']) {
        expectProblem(await importRaw(shop, body(), (await key([scope])).secret), 403, 'insufficient_scope');
      }
      expect(await learnedOf(shop)).toMatchObject({ outcomes: 0 });
      const events = await importRaw(shop, body(), (await key(['events'])).secret);
      expect(events.status).toBe(200);
      expect(await learnedOf(shop)).toMatchObject({ outcomes: 1 });
    });

    it('refuses another merchant’s store as one that does not exist, and a key bound to another store', async () => {
      const [shop, stranger] = [await newShop(), await newShop()];
      const body = { lines: [pastLine(stranger, 'M', YEAR)] };
      expectProblem(await importRaw(stranger, body, shop.secret), 404, 'not_found');
      expectProblem(await importRaw(stranger, body, shop.secret, MISSING_ID), 404, 'not_found');
      const sibling = await siblingShop(t, shop);
      const bound = await issueKey(t, shop.tenant.admin.secret, { scopes: ['events'], store_id: shop.storeId });
      expectProblem(await importRaw(sibling, { lines: [pastLine(sibling, 'M', YEAR)] }, bound.secret), 403, 'store_forbidden');
      expect(await learnedOf(stranger)).toMatchObject({ outcomes: 0 });
      expect(await learnedOf(sibling)).toMatchObject({ outcomes: 0 });
    });
  });
});

/** The size label of one of the shop's variants. */
function sizeOf(shop: Shop, variantId: string): SizeLabel {
  return (Object.keys(shop.variants) as SizeLabel[]).find((size) => shop.variants[size] === variantId) as SizeLabel;
}
