import { expect } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, type TestApp } from './app.js';
import { uniqueId } from './event-fixtures.js';
import type { Shop } from './session-fixtures.js';

/** A shopper's outcome in a populated experiment: lines bought after her exposure, and how many came back for size. */
interface Outcome {
  readonly lines: number;
  readonly returned: number;
}

/**
 * Experiments over the API, for the console's tests: a draft started, shoppers shown its products (each exposed in her
 * arm, as the integration's call to the assignments route does), their purchases naming them and returns for size.
 */
export function experimentsApi(t: TestApp) {
  const path = (shop: Shop, rest = '') => `/v1/stores/${shop.storeId}/experiments${rest}`;

  async function create(shop: Shop, body: object): Promise<{ id: string }> {
    const response = await t.http().post(path(shop)).set(bearer(shop.secret)).send(body);
    if (response.status !== 201) expect({ status: response.status, body: response.body }).toEqual({ status: 201 });
    return response.body as { id: string };
  }

  async function start(shop: Shop, id: string): Promise<void> {
    const response = await t
      .http()
      .post(path(shop, `/${id}/start`))
      .set(bearer(shop.secret));
    if (response.status !== 200) expect({ status: response.status, body: response.body }).toEqual({ status: 200 });
  }

  async function read(shop: Shop, id: string, rest = ''): Promise<Record<string, unknown>> {
    const response = await t
      .http()
      .get(path(shop, `/${id}${rest}`))
      .set(bearer(shop.secret));
    if (response.status !== 200) expect({ status: response.status, body: response.body }).toEqual({ status: 200 });
    return response.body as Record<string, unknown>;
  }

  /**
   * `shoppers` shoppers shown the shop's product, then what `outcome` says each did (by her arm and her number), sent
   * as purchases naming her and returns for size, in batches.
   */
  async function populate(shop: Shop, shoppers: number, outcome: (arm: string, i: number) => Outcome, prefix = uniqueId('shopper')) {
    const arms: string[] = [];
    for (let from = 0; from < shoppers; from += 50) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(50, shoppers - from) }, (_, k) =>
          t
            .http()
            .post(`/v1/stores/${shop.storeId}/assignments`)
            .set(bearer(shop.secret))
            .send({ shopper_ref: `${prefix}-${from + k}`, product_id: shop.productId }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        arms.push(answer.body.arm as string);
      }
    }
    const at = new Date().toISOString();
    const events: object[] = [];
    arms.forEach((arm, i) => {
      const { lines, returned } = outcome(arm, i);
      for (let l = 0; l < lines; l++) {
        const line = { order_id: `${prefix}-order-${i}`, line_item_id: String(l), product_id: shop.productId, variant_id: shop.variants.M };
        events.push({
          source: 'test-shop',
          external_id: uniqueId('buy'),
          type: 'purchase',
          occurred_at: at,
          shopper_ref: `${prefix}-${i}`,
          ...line,
        });
        if (l < returned) {
          events.push({
            source: 'test-shop',
            external_id: uniqueId('return'),
            type: 'return_requested',
            reason: 'size',
            occurred_at: at,
            ...line,
          });
        }
      }
    });
    for (let from = 0; from < events.length; from += 500) {
      const response = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/events/batch`)
        .set(bearer(shop.secret))
        .send({ events: events.slice(from, from + 500) });
      expect(response.status).toBe(200);
      const refused = (response.body.results as { status: number }[]).filter((result) => result.status >= 400);
      expect(refused).toEqual([]);
    }
    return arms;
  }

  /**
   * Exposures straight in the database, `counts[i]` in the i-th arm: a split far from the planned one, which only a
   * broken integration would give.
   */
  async function skew(shop: Shop, id: string, counts: Readonly<Record<string, number>>): Promise<void> {
    let offset = 0;
    for (const [arm, n] of Object.entries(counts)) {
      await t.app.get(DataSource).query(
        `INSERT INTO experiment_exposures (experiment_id, store_id, unit_digest, arm, exposed_at)
         SELECT $1::uuid, $2::uuid, sha256(convert_to($1::text || n::text, 'UTF8')), $3, now()
           FROM generate_series($4::int + 1, $4::int + $5::int) AS n`,
        [id, shop.storeId, arm, offset, n],
      );
      offset += n;
    }
  }

  return { create, start, read, populate, skew };
}
