import { expect } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, type TestApp } from './app.js';
import { createProduct, createVariant } from './catalog-fixtures.js';
import { TIMESTAMP } from './fixtures.js';

/** The body chart every session test shops from, smallest size first (cm). */
export const SIZES = ['S', 'M', 'L', 'XL'] as const;
export type SizeLabel = (typeof SIZES)[number];

/** Its sizes: chest and waist ranges in cm. */
export const BODY_CHART = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
  { label: 'XL', measurements: { chest: { min: 110, max: 118 }, waist: { min: 95, max: 103 } } },
];

export interface Shop {
  storeId: string;
  secret: string;
  productTypeId: string;
  sizeChartId: string;
  productId: string;
  /** size label → the variant id of that size */
  variants: Record<SizeLabel, string>;
}

let counter = 0;

/**
 * A tops product on the chest/waist body chart above, with one variant per size, created over HTTP with `secret`
 * (a key with the catalog scope or admin).
 */
export async function createShop(t: TestApp, storeId: string, secret: string): Promise<Shop> {
  const base = `/v1/stores/${storeId}`;
  const n = ++counter;
  const type = await t
    .http()
    .post(`${base}/product-types`)
    .set(bearer(secret))
    .send({ name: `Tops ${n}`, category: 'tops', zone_weights: { chest: 1, waist: 0.5 } });
  expect(type.status).toBe(201);
  const chart = await t
    .http()
    .post(`${base}/size-charts`)
    .set(bearer(secret))
    .send({ name: `Body chart ${n}`, unit: 'cm', measurement_type: 'body', sizes: BODY_CHART });
  expect(chart.status).toBe(201);
  const productId = (
    await createProduct(t, secret, storeId, { title: `Tee ${n}`, product_type_id: type.body.id, size_chart_id: chart.body.id })
  ).id;
  const variants = {} as Record<SizeLabel, string>;
  for (const label of SIZES)
    variants[label] = (await createVariant(t, secret, storeId, productId, { size_label: label, sku: `SKU-${n}-${label}` })).id;
  return { storeId, secret, productTypeId: type.body.id, sizeChartId: chart.body.id, productId, variants };
}

/** A questionnaire of the store, created over HTTP (scope fit). */
export async function createQuestionnaire(
  t: TestApp,
  storeId: string,
  secret: string,
  questions: { key: string; required: boolean }[],
): Promise<{ id: string; version: number; questions: { key: string; required: boolean }[] }> {
  const response = await t
    .http()
    .post(`/v1/stores/${storeId}/questionnaires`)
    .set(bearer(secret))
    .send({ name: `Quiz ${++counter}`, questions });
  expect(response.status).toBe(201);
  return response.body;
}

/** An event row, as the events table holds it (read straight from the database, with columns the API does not show). */
export interface EventRow {
  id: string;
  merchant_id: string;
  store_id: string;
  source: string;
  external_id: string;
  type: string;
  product_id: string | null;
  variant_id: string | null;
  session_id: string | null;
  occurred_at: Date;
  received_at: Date;
}

/** Every event recorded for a session, oldest first. */
export async function sessionEvents(t: TestApp, sessionId: string): Promise<EventRow[]> {
  const rows: EventRow[] = await t.app.get(DataSource).query(
    `SELECT id, merchant_id, store_id, source, external_id, type, product_id, variant_id, session_id, occurred_at, received_at
         FROM events WHERE session_id = $1 ORDER BY occurred_at, id`,
    [sessionId],
  );
  return rows;
}

/**
 * Makes every insert into `events` of one of `types` for `sessionId` fail inside the database, runs `body`, and
 * removes the failure again whatever happens. Only that session is affected, so other tests (and other suites
 * sharing a PostgreSQL database) never see it.
 */
export async function withFailingEventInsert(t: TestApp, sessionId: string, types: string[], body: () => Promise<void>): Promise<void> {
  if (!/^[0-9a-f-]{36}$/.test(sessionId) || types.some((type) => !/^[a-z_]+$/.test(type))) {
    throw new Error('withFailingEventInsert: unexpected session id or event type');
  }
  const typeList = types.map((type) => `'${type}'`).join(', ');
  await withFailingEventInsertWhere(
    t,
    sessionId.replace(/-/g, ''),
    `NEW.session_id = '${sessionId}'::uuid AND NEW.type IN (${typeList})`,
    body,
  );
}

/**
 * Makes every insert into `events` whose row satisfies `condition` (SQL over `NEW`, built by the caller from checked
 * values) fail inside the database while `body` runs. `tag` names the trigger; keep it unique per test.
 */
export async function withFailingEventInsertWhere(t: TestApp, tag: string, condition: string, body: () => Promise<void>): Promise<void> {
  const db = t.app.get(DataSource);
  if (!/^[a-z0-9_]+$/.test(tag)) throw new Error('withFailingEventInsertWhere: unexpected tag');
  const name = `test_fail_events_${tag}`;
  await db.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${condition} THEN
         RAISE EXCEPTION 'injected failure for a test';
       END IF;
       RETURN NEW;
     END $$`,
  );
  try {
    await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    try {
      await body();
    } finally {
      await db.query(`DROP TRIGGER IF EXISTS ${name} ON events`);
    }
  } finally {
    await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
  }
  const [left] = await db.query(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = $1`, [name]);
  expect(left.n).toBe(0);
}

// ——— sessions as the API answers them ———

/** The questions a session asks when neither it nor the store names a questionnaire. */
export const DEFAULT_QUESTIONS = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'age', required: false },
  { key: 'sex', required: false },
  { key: 'fit_preference', required: false },
];
/** Height and weight, and optionally sex and the size she usually wears. */
export const USUAL_SIZE_QUESTIONS = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'sex', required: false },
  { key: 'usual_size', required: false },
];
/** The default questions plus the two zones the shop's chart measures, both optional. */
export const MEASURED_QUESTIONS = [...DEFAULT_QUESTIONS, { key: 'chest', required: false }, { key: 'waist', required: false }];

const VERDICTS = ['too_small', 'snug', 'regular', 'loose', 'too_large'];

export interface Recommendation {
  id: string;
  size_label: SizeLabel;
  variant_id: string | null;
  confidence: number;
  fit: Record<string, string>;
  alternatives: { size_label: SizeLabel; variant_id: string | null; confidence: number }[];
  measurements: Record<string, { value_cm: number; source: 'answered' | 'estimated'; sd_cm: number }>;
  model_version: string;
  outcomes: { size_label: SizeLabel; variant_id: string | null; too_small: number; fit: number; too_large: number }[];
  warnings: { code: 'no_variant'; message: string }[];
  adjustment: {
    source: 'learned' | 'merchant' | 'none';
    size_steps: number;
    sd: number | null;
    evidence: number;
    chart_size_label: string;
  };
  created_at: string;
}

export interface Session {
  id: string;
  store_id: string;
  product_id: string;
  questionnaire_id: string | null;
  questionnaire_version: number | null;
  questions: { key: string; required: boolean }[];
  state: 'started' | 'recommended' | 'completed';
  outcome: 'accepted' | 'overridden' | null;
  answers: Record<string, unknown> | null;
  recommendation: Recommendation | null;
  decision: { size_label: string; variant_id: string | null; outcome: string; decided_at: string } | null;
  created_at: string;
  updated_at: string;
}

/** Everything a recommendation on the shop's chart must be, whatever the answers. */
export function expectWellFormed(
  recommendation: Recommendation | null,
  shop: Pick<Shop, 'variants'>,
): asserts recommendation is Recommendation {
  expect(recommendation).not.toBeNull();
  const r = recommendation as Recommendation;
  expect(Object.keys(r).sort()).toEqual(
    [
      'adjustment',
      'alternatives',
      'confidence',
      'created_at',
      'fit',
      'id',
      'measurements',
      'model_version',
      'outcomes',
      'size_label',
      'variant_id',
      'warnings',
    ].sort(),
  );
  // a store without outcomes tells no odds of what a size turns out as
  expect(r.outcomes).toEqual([]);
  // a store without outcomes: the stated chart's answer, moved by the merchant's own adjustment at most
  expect(r.adjustment).toEqual({
    source: expect.stringMatching(/^(none|merchant)$/),
    size_steps: expect.any(Number),
    sd: null,
    evidence: 0,
    chart_size_label: r.size_label,
    shopper_steps: null,
  });
  expect(typeof r.id).toBe('string');
  expect(SIZES).toContain(r.size_label);
  expect(r.variant_id).toBe(shop.variants[r.size_label]);
  expect(r.confidence).toBeGreaterThan(0);
  expect(r.confidence).toBeLessThanOrEqual(1);
  expect(r.created_at).toMatch(TIMESTAMP);
  expect(typeof r.model_version).toBe('string');
  expect(r.model_version.length).toBeGreaterThan(0);

  // how the recommended size fits, zone by zone: the chart measures chest and waist
  expect(Object.keys(r.fit).sort()).toEqual(['chest', 'waist']);
  for (const verdict of Object.values(r.fit)) expect(VERDICTS).toContain(verdict);

  // the alternatives: other sizes of the chart, each with its variant, most likely first
  const labels = r.alternatives.map((a) => a.size_label);
  expect(new Set(labels).size).toBe(labels.length);
  expect(labels).not.toContain(r.size_label);
  for (const alternative of r.alternatives) {
    expect(Object.keys(alternative).sort()).toEqual(['confidence', 'size_label', 'variant_id']);
    expect(SIZES).toContain(alternative.size_label);
    expect(alternative.variant_id).toBe(shop.variants[alternative.size_label]);
    expect(alternative.confidence).toBeGreaterThan(0);
    expect(alternative.confidence).toBeLessThanOrEqual(1);
  }
  const confidences = r.alternatives.map((a) => a.confidence);
  expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
  const total = r.confidence + confidences.reduce((sum, c) => sum + c, 0);
  expect(Math.abs(total - 1)).toBeLessThanOrEqual(0.02);

  // the body measurements used: the chart's zones, each with a positive spread
  expect(Object.keys(r.measurements).sort()).toEqual(['chest', 'waist']);
  for (const m of Object.values(r.measurements)) {
    expect(Object.keys(m).sort()).toEqual(['sd_cm', 'source', 'value_cm']);
    expect(['answered', 'estimated']).toContain(m.source);
    expect(Number.isFinite(m.value_cm)).toBe(true);
    expect(m.value_cm).toBeGreaterThan(0);
    expect(m.sd_cm).toBeGreaterThan(0);
  }
}

/** The recommendation without what differs from one answer to the next (its id and time). */
export const content = (r: Recommendation | null) => {
  const { id: _id, created_at: _at, ...rest } = r as Recommendation;
  return rest;
};

/** The types of these events, sorted. */
export const types = (events: EventRow[]) => events.map((e) => e.type).sort();
