import { expect } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, type TestApp } from './app.js';
import { createProduct, createVariant } from './catalog-fixtures.js';

/** The body chart every session test shops from, smallest size first (cm). */
export const SIZES = ['S', 'M', 'L', 'XL'] as const;
export type SizeLabel = (typeof SIZES)[number];

const BODY_CHART = [
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
