import { expect } from '@jest/globals';
import { bearer, type TestApp } from './app.js';
import type { Tenant } from './fixtures.js';
import { newMetricsShop, SHOPPER } from './metrics-fixtures.js';
import type { Session, Shop } from './session-fixtures.js';

/**
 * The fit session endpoints on the app `t`, as the session specs call them: `…Raw` sends one request and returns
 * whatever the service answered; `start`, `answer`, `recommended` and `read` expect success. Call it in a `describe`
 * block (after `useApp`); use what it returns in tests. It shops with the metrics fixtures' `newMetricsShop` and
 * `SHOPPER`, which is why it is not in session-fixtures.ts (metrics-fixtures.ts imports that file).
 */
export function sessionsApi(t: TestApp) {
  const sessionsPath = (storeId: string) => `/v1/stores/${storeId}/sessions`;
  const startRaw = (shop: Shop, body: object, secret = shop.secret) =>
    t.http().post(sessionsPath(shop.storeId)).set(bearer(secret)).send(body);
  const answerRaw = (shop: Shop, id: string, answers: unknown, secret = shop.secret) =>
    t
      .http()
      .post(`${sessionsPath(shop.storeId)}/${id}/answers`)
      .set(bearer(secret))
      .send({ answers });
  const decideRaw = (shop: Shop, id: string, body: object, secret = shop.secret) =>
    t
      .http()
      .post(`${sessionsPath(shop.storeId)}/${id}/decision`)
      .set(bearer(secret))
      .send(body);
  const getRaw = (shop: Shop, id: string, secret = shop.secret) =>
    t
      .http()
      .get(`${sessionsPath(shop.storeId)}/${id}`)
      .set(bearer(secret));
  const listRaw = (shop: Shop, query = '', secret = shop.secret) =>
    t
      .http()
      .get(`${sessionsPath(shop.storeId)}${query}`)
      .set(bearer(secret));

  /** A fresh merchant and store with the shop's catalog; calls use the admin key. */
  const newShop = (): Promise<Shop & { tenant: Tenant }> => newMetricsShop(t);

  async function start(shop: Shop, body: object = {}): Promise<Session> {
    const response = await startRaw(shop, { product_id: shop.productId, ...body });
    expect(response.status).toBe(201);
    return response.body as Session;
  }

  async function answer(shop: Shop, id: string, answers: Record<string, unknown> = SHOPPER): Promise<Session> {
    const response = await answerRaw(shop, id, answers);
    // on failure, show the problem the service answered rather than a bare status
    if (response.status !== 200) expect(response.body).toEqual({ status: 200 });
    expect(response.status).toBe(200);
    return response.body as Session;
  }

  async function recommended(shop: Shop, answers: Record<string, unknown> = SHOPPER, body: object = {}): Promise<Session> {
    const session = await start(shop, body);
    return answer(shop, session.id, answers);
  }

  async function read(shop: Shop, id: string): Promise<Session> {
    const response = await getRaw(shop, id);
    expect(response.status).toBe(200);
    return response.body as Session;
  }

  return { sessionsPath, startRaw, answerRaw, decideRaw, getRaw, listRaw, newShop, start, answer, recommended, read };
}
