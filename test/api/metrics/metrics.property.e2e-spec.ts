import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { useApp } from '../../support/app.js';
import {
  DAY,
  type EventInput,
  getDaily,
  getMetrics,
  iso,
  MINUTE,
  type MetricsShop,
  newMetricsShop,
  nextExternalId,
  type PlacedSession,
  placeSession,
  refEvent,
  sendEvents,
  siblingShop,
  utcDay,
} from '../../support/metrics-fixtures.js';
import { type Figures, type Rates, type RefEvent, referenceDays, referenceMetrics, type Stage } from '../../support/metrics-reference.js';
import { SIZES } from '../../support/session-fixtures.js';

/**
 * For random histories — sessions created at random instants of a few days and taken to random stages, in two
 * stores of one merchant; purchases with and without a session on a few shared orders and lines; returns, exchanges
 * and kept signals with random reasons, with and without a session; some dated a few minutes ahead — GET …/metrics
 * and GET …/metrics/daily over random ranges (free instants, UTC midnights, and a session's creation ±1 ms) equal the
 * plain reference computation of test/support/metrics-reference.ts.
 *
 * Reproducible: METRICS_PROPERTY_SEED and METRICS_PROPERTY_RUNS override the fixed seed and the number of runs. On a
 * failure fast-check prints the (shrunk) generated history and the assertion names the materialised one.
 */
const SEED = Number(process.env.METRICS_PROPERTY_SEED ?? 20261122);
const RUNS = Number(process.env.METRICS_PROPERTY_RUNS ?? 12);

/** Sessions are created within WINDOW after the window start (12 days ago, at midnight UTC). */
const WINDOW = 5 * DAY;

type StoreName = 'a' | 'b';

const sessionArb = fc.record({
  store: fc.constantFrom<StoreName>('a', 'a', 'a', 'b'),
  offset: fc.integer({ min: 0, max: WINDOW - 1 }),
  stage: fc.constantFrom<Stage>('started', 'recommended', 'recommended', 'accepted', 'accepted', 'overridden'),
});

const eventArb = fc.record({
  store: fc.constantFrom<StoreName>('a', 'a', 'a', 'b'),
  type: fc.constantFrom(
    'purchase',
    'purchase',
    'purchase',
    'return_requested',
    'return_requested',
    'size_exchange',
    'size_exchange',
    'item_kept',
    'fit_viewed',
  ),
  /** index into the store's sessions, or none (one time in three) */
  session: fc.option(fc.nat({ max: 50 }), { nil: null, freq: 3 }),
  order: fc.constantFrom('O1', 'O2'),
  line: fc.constantFrom('1', '2'),
  reason: fc.constantFrom<'size' | 'other'>('size', 'other'),
  quantity: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
  variant: fc.constantFrom(...SIZES),
  /** when linked to a session: this long after it; else this long after the window start (may be before it) */
  delay: fc.integer({ min: 0, max: 4 * DAY }),
  offset: fc.integer({ min: -DAY, max: WINDOW + 2 * DAY }),
  /** a few minutes ahead of now instead */
  ahead: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.integer({ min: 1 * MINUTE, max: 3 * MINUTE }), weight: 1 }),
  /** absent optional fields sent as explicit nulls */
  nulls: fc.boolean(),
});

const endpointArb = fc.oneof(
  fc.record({ kind: fc.constant('free' as const), offset: fc.integer({ min: -DAY, max: WINDOW + DAY }) }),
  fc.record({ kind: fc.constant('midnight' as const), day: fc.integer({ min: -1, max: 6 }) }),
  fc.record({ kind: fc.constant('wide' as const), end: fc.boolean() }),
  fc.record({ kind: fc.constant('session' as const), pick: fc.nat({ max: 50 }), delta: fc.constantFrom(-1, 0, 1) }),
);

const historyArb = fc.record({
  sessions: fc.array(sessionArb, { minLength: 1, maxLength: 8, size: 'max' }),
  events: fc.array(eventArb, { minLength: 2, maxLength: 30, size: 'max' }),
  ranges: fc.array(fc.tuple(endpointArb, endpointArb), { minLength: 1, maxLength: 3 }),
});
type History = typeof historyArb extends fc.Arbitrary<infer H> ? H : never;
type Endpoint = History['ranges'][number][number];

describe('cohort metrics, property: the service equals the reference computation', () => {
  const t = useApp();

  /** Rates within 1e-12 of the reference are taken as equal (floating-point rounding only). */
  function settle(actual: Figures, expected: Figures): Figures {
    const rates = { ...actual.rates } as Rates;
    for (const key of Object.keys(expected.rates) as (keyof Rates)[]) {
      const a = rates[key];
      const e = expected.rates[key];
      if (typeof a === 'number' && typeof e === 'number' && Math.abs(a - e) <= 1e-12) rates[key] = e;
    }
    return { counts: actual.counts, rates };
  }

  async function check(h: History): Promise<void> {
    const a = await newMetricsShop(t);
    const b = await siblingShop(t, a);
    const shops: Record<StoreName, MetricsShop> = { a, b };
    const start = utcDay(Date.now()) - 12 * DAY;

    const sessions: PlacedSession[] = [];
    for (const s of h.sessions) sessions.push(await placeSession(t, shops[s.store], start + s.offset, s.stage));

    const sent: Record<StoreName, EventInput[]> = { a: [], b: [] };
    for (const e of h.events) {
      const shop = shops[e.store];
      const own = sessions.filter((s) => s.storeId === shop.storeId);
      const session = e.session !== null && own.length > 0 ? own[e.session % own.length] : null;
      const at = e.ahead !== null ? Date.now() + e.ahead : session ? session.createdAt + e.delay : start + e.offset;
      const absent = e.nulls ? null : undefined;
      const input: EventInput = {
        source: 'property',
        external_id: nextExternalId(),
        type: e.type,
        product_id: shop.productId,
        variant_id: shop.variants[e.variant],
        session_id: session?.id ?? absent,
        order_id: e.order,
        line_item_id: e.line,
        reason: e.type === 'return_requested' || e.type === 'size_exchange' ? e.reason : absent,
        quantity: e.quantity ?? absent,
        occurred_at: iso(at),
      };
      if (e.type === 'fit_viewed') {
        // a storefront event: no order, line or variant
        input.order_id = absent;
        input.line_item_id = absent;
        input.variant_id = absent;
        input.quantity = absent;
      }
      sent[e.store].push(Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as EventInput);
    }
    for (const name of ['a', 'b'] as const) if (sent[name].length > 0) await sendEvents(t, shops[name], sent[name]);
    const events: RefEvent[] = [...sent.a.map((e) => refEvent(a.storeId, e)), ...sent.b.map((e) => refEvent(b.storeId, e))];

    const ownA = sessions.filter((s) => s.storeId === a.storeId);
    const instant = (p: Endpoint): number => {
      if (p.kind === 'free') return start + p.offset;
      if (p.kind === 'midnight') return start + p.day * DAY;
      if (p.kind === 'wide') return p.end ? start + WINDOW + DAY : start - 1;
      const pool = ownA.length > 0 ? ownA : sessions;
      return pool[p.pick % pool.length].createdAt + p.delta;
    };

    /** What the test did, in instants, for the failure message. */
    const timeline = () =>
      JSON.stringify(
        {
          now: iso(Date.now()),
          stores: { a: a.storeId, b: b.storeId },
          sessions: sessions.map((s) => ({
            id: s.id,
            store: s.storeId === a.storeId ? 'a' : 'b',
            created_at: iso(s.createdAt),
            stage: s.stage,
          })),
          events: (['a', 'b'] as const).flatMap((store) =>
            sent[store].map((e) => ({
              store,
              type: e.type,
              session: e.session_id ?? null,
              order: e.order_id ?? null,
              line: e.line_item_id ?? null,
              reason: e.reason ?? null,
              occurred_at: e.occurred_at,
            })),
          ),
        },
        null,
        1,
      );
    const compare = (what: string, actual: unknown, expected: unknown) => {
      try {
        expect({ what, figures: actual }).toEqual({ what, figures: expected });
      } catch (error) {
        throw new Error(`${(error as Error).message}\n\nhistory as sent:\n${timeline()}`, { cause: error });
      }
    };

    // the whole window first, then the generated ranges
    const whole: History['ranges'][number] = [
      { kind: 'wide', end: false },
      { kind: 'wide', end: true },
    ];
    for (const [p, q] of [whole, ...h.ranges]) {
      let from = instant(p);
      let to = instant(q);
      if (from > to) [from, to] = [to, from];
      if (from === to) to = from + 1;
      const range = `[${iso(from)}, ${iso(to)})`;

      const m = await getMetrics(t, a, { from, to });
      const expected = referenceMetrics(sessions, events, a.storeId, from, to, Date.parse(m.observed_through));
      compare(`GET metrics ${range}`, { from: m.from, to: m.to, ...settle(m, expected) }, { from: iso(from), to: iso(to), ...expected });

      const d = await getDaily(t, a, { from, to });
      const observed = Date.parse(d.observed_through);
      const days = referenceDays(from, to).map((day) => ({
        date: day.date,
        from: iso(day.from),
        to: iso(day.to),
        ...referenceMetrics(sessions, events, a.storeId, day.from, day.to, observed),
      }));
      compare(
        `GET metrics/daily ${range}`,
        { from: d.from, to: d.to, days: d.days.map((day, k) => ({ ...day, ...settle(day, days[k] ?? day) })) },
        { from: iso(from), to: iso(to), days },
      );

      const other = await getMetrics(t, b, { from, to });
      compare(
        `GET metrics of the sibling store ${range}`,
        settle(other, referenceMetrics(sessions, events, b.storeId, from, to, Date.parse(other.observed_through))),
        referenceMetrics(sessions, events, b.storeId, from, to, Date.parse(other.observed_through)),
      );
    }
  }

  it('GET …/metrics and …/metrics/daily equal the reference for random histories and ranges', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, (h) => check(h)),
      { seed: SEED, numRuns: RUNS, verbose: 1, interruptAfterTimeLimit: 240_000, markInterruptAsFailure: true },
    );
  }, 300_000);
});
