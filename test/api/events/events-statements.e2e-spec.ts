/** The statements of the event path are prepared: PostgreSQL parses and plans each once per connection. */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { ago, eventsApi, minutes, uniqueId } from '../../support/event-fixtures.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

describe('statements of the event path', () => {
  const t = useApp();
  const { newShop, deliver, postRaw } = eventsApi(t);

  // The embedded database serves one connection, so every statement this file's requests prepared is on it; on
  // PostgreSQL they are spread over the pool's connections, which another connection cannot see.
  (onPostgres ? it.skip : it)('are prepared once per connection and then reused', async () => {
    const shop = await newShop();
    const prepared = async (): Promise<Map<string, string>> => {
      const rows: Array<{ name: string; statement: string }> = await t.app
        .get(DataSource)
        .query('SELECT name, statement FROM pg_prepared_statements');
      return new Map(rows.map((row) => [row.name, row.statement]));
    };
    for (let round = 0; round < 2; round++) {
      const viewed = { source: 'storefront', external_id: uniqueId(), type: 'fit_viewed', occurred_at: ago(minutes(1)) };
      const first = await deliver(shop, viewed);
      // An identical redelivery: 200 with the stored event, read back by its delivery key.
      const again = await postRaw(shop, viewed);
      expect([again.status, again.body]).toEqual([200, first]);
      await deliver(shop, {
        source: 'storefront',
        external_id: uniqueId(),
        type: 'add_to_cart',
        product_id: shop.productId,
        occurred_at: ago(minutes(1)),
      });
    }
    const names = await prepared();
    expect([...names.keys()]).toEqual(
      expect.arrayContaining(['api-keys.authenticate', 'events.insert-one', 'events.insert-alone', 'events.find-stored']),
    );
    expect(names.get('events.insert-alone')).toMatch(/^WITH p AS \(SELECT id FROM catalog_products/);
  });

  // Learning keeps one lesson per order line; what teaches nothing (a purchase with no outcome waiting for it, alone or
  // naming its session) must not pay for it: none of its statements is ever prepared until an outcome comes.
  (onPostgres ? it.skip : it)('of a purchase with no outcome waiting read nothing of what outcomes teach', async () => {
    const shop = await newShop();
    const learning = async () => {
      const rows: Array<{ name: string }> = await t.app.get(DataSource).query('SELECT name FROM pg_prepared_statements');
      return rows.map((row) => row.name).filter((name) => /^(line-lessons|evidence)\./.test(name));
    };
    const session = await t
      .http()
      .post(`/v1/stores/${shop.storeId}/sessions`)
      .set(bearer(shop.secret))
      .send({ product_id: shop.productId });
    expect(session.status).toBe(201);
    const line = () => ({ order_id: uniqueId('order'), line_item_id: uniqueId('line'), variant_id: shop.variants.M });
    const purchase = (fields: object) => ({
      source: 'checkout',
      external_id: uniqueId(),
      type: 'purchase',
      product_id: shop.productId,
      occurred_at: new Date().toISOString(),
      ...fields,
    });
    const bought = line();
    await deliver(shop, purchase(bought));
    await deliver(shop, purchase({ ...line(), session_id: session.body.id }));
    expect(await learning()).toEqual([]);
    await deliver(shop, { ...purchase(bought), type: 'item_kept' });
    expect(await learning()).toEqual(expect.arrayContaining(['line-lessons.read']));
  });
});
