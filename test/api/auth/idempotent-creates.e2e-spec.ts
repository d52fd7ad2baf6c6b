/**
 * `Idempotency-Key` on creates: a retried request gets the first answer and creates nothing more, under concurrency
 * too; another request with the same key is a 409; keys belong to their credential; the answers kept (a new key's
 * secret among them) are sealed, never in clear.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { IDEMPOTENCY_SWEEP_EVERY_MS, IdempotencySweeper } from '../../../src/idempotency/idempotency-sweeper.js';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import { createProductType, createSizeChart } from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors, expectProblem, issueKey } from '../../support/fixtures.js';
import { createShop, sessionEvents, types } from '../../support/session-fixtures.js';

describe('idempotent creates', () => {
  // What the service schedules with setInterval while it starts, so that a test can run it now instead of waiting.
  const intervals: Array<{ run: () => void; every: number | undefined }> = [];
  beforeAll(() => {
    const setIntervalOf = globalThis.setInterval;
    jest.spyOn(globalThis, 'setInterval').mockImplementation(((run: () => void, every?: number, ...rest: unknown[]) => {
      intervals.push({ run, every });
      return Reflect.apply(setIntervalOf, globalThis, [run, every, ...rest]) as NodeJS.Timeout;
    }) as typeof setInterval);
  });
  afterAll(() => {
    jest.restoreAllMocks();
  });
  const t = useApp();
  const db = () => t.app.get(DataSource);

  const createStore = (secret: string, key: string | undefined, body: object) => {
    const request = t.http().post('/v1/stores').set(bearer(secret));
    return (key === undefined ? request : request.set('Idempotency-Key', key)).send(body);
  };
  const storeCount = async (merchantId: string) =>
    Number((await db().query(`SELECT count(*) AS n FROM stores WHERE merchant_id = $1`, [merchantId]))[0].n);

  it('answers a retry with the first answer, marked as replayed, and creates nothing more', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    const first = await createStore(tenant.admin.secret, key, { name: 'Outlet' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await createStore(tenant.admin.secret, key, { name: 'Outlet' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await storeCount(tenant.merchantId)).toBe(2);
  });

  it('creates one resource for the same key sent many times at once', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => createStore(tenant.admin.secret, key, { name: 'Rush' })));
    const created = answers.filter((answer) => answer.status === 201);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expectProblem(answer, 409, 'idempotency_key_in_use');
      expect(answer.headers['retry-after']).toBe('1');
    }
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    expect(await storeCount(tenant.merchantId)).toBe(2);
    const settled = await createStore(tenant.admin.secret, key, { name: 'Rush' });
    expect(settled.status).toBe(201);
    expect(settled.body.id).toBe(created[0].body.id);
  });

  it('takes the same body with its keys in another order, at any level, for the same request', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    const first = await createStore(tenant.admin.secret, key, { name: 'Outlet', currency: 'EUR', unit_system: 'metric' });
    expect(first.status).toBe(201);
    const again = await createStore(tenant.admin.secret, key, { unit_system: 'metric', currency: 'EUR', name: 'Outlet' });
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'], body: again.body }).toEqual({
      status: 201,
      replayed: 'true',
      body: first.body,
    });
    expect(await storeCount(tenant.merchantId)).toBe(2);

    const typeKey = randomUUID();
    const createType = (body: string) =>
      t
        .http()
        .post(`/v1/stores/${tenant.storeId}/product-types`)
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', typeKey)
        .set('Content-Type', 'application/json')
        .send(body);
    const type = await createType('{"name":"Tops","category":"tops","zone_weights":{"chest":1,"waist":0.5}}');
    expect(type.status).toBe(201);
    const retried = await createType('{"zone_weights":{"waist":0.5,"chest":1},"category":"tops","name":"Tops"}');
    expect({ status: retried.status, id: retried.body.id, replayed: retried.headers['idempotent-replayed'] }).toEqual({
      status: 201,
      id: type.body.id,
      replayed: 'true',
    });
    // the order of a list is content, though
    const quizKey = randomUUID();
    const createQuiz = (labels: string[]) =>
      t
        .http()
        .post(`/v1/stores/${tenant.storeId}/questionnaires`)
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', quizKey)
        .send({ name: 'Quiz', questions: labels.map((k) => ({ key: k, required: true })) });
    expect((await createQuiz(['height', 'weight'])).status).toBe(201);
    expectProblem(await createQuiz(['weight', 'height']), 409, 'idempotency_key_reused');
  });

  it('refuses the same key with another body or on another route', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    expect((await createStore(tenant.admin.secret, key, { name: 'One' })).status).toBe(201);
    expectProblem(await createStore(tenant.admin.secret, key, { name: 'Two' }), 409, 'idempotency_key_reused');
    const type = await t
      .http()
      .post(`/v1/stores/${tenant.storeId}/product-types`)
      .set(bearer(tenant.admin.secret))
      .set('Idempotency-Key', key)
      .send({ name: 'Tops', category: 'tops', zone_weights: { chest: 1 } });
    expectProblem(type, 409, 'idempotency_key_reused');
    expect(await storeCount(tenant.merchantId)).toBe(2);
  });

  it('keeps keys per credential: the same key from another key is another request', async () => {
    const tenant = await createTenant(t);
    const other = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
    const key = randomUUID();
    const mine = await createStore(tenant.admin.secret, key, { name: 'Mine' });
    const theirs = await createStore(other.secret, key, { name: 'Mine' });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('does not remember a refused request: the corrected retry runs', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    expectErrors(await createStore(tenant.admin.secret, key, { name: '' }), { name: 'invalid_length' });
    const fixed = await createStore(tenant.admin.secret, key, { name: 'Fixed' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a malformed key and works as before without one', async () => {
    const tenant = await createTenant(t);
    expectErrors(await createStore(tenant.admin.secret, 'x'.repeat(256), { name: 'Long' }), { 'Idempotency-Key': 'invalid' });
    expectErrors(await createStore(tenant.admin.secret, 'has space', { name: 'Space' }), { 'Idempotency-Key': 'invalid' });
    const plain = [
      await createStore(tenant.admin.secret, undefined, { name: 'A' }),
      await createStore(tenant.admin.secret, undefined, { name: 'A' }),
    ];
    expect(plain.map((answer) => answer.status)).toEqual([201, 201]);
    expect(plain[0].body.id).not.toBe(plain[1].body.id);
  });

  it('replays a new merchant with its admin secret to the operator, and keeps no secret in clear', async () => {
    const key = randomUUID();
    const name = `Retried ${randomUUID()}`;
    const create = () => t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).set('Idempotency-Key', key).send({ name });
    const first = await create();
    const again = await create();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const secret = first.body.api_key.secret as string;
    const merchants = await db().query(`SELECT count(*) AS n FROM merchants WHERE name = $1`, [name]);
    expect(Number(merchants[0].n)).toBe(1);
    const rows: Array<{ sealed_answer: Buffer; key_digest: Buffer; credential: string }> = await db().query(
      `SELECT credential, key_digest, sealed_answer FROM idempotency_keys`,
    );
    for (const row of rows) {
      const stored = `${row.credential} ${row.key_digest.toString('hex')} ${row.sealed_answer?.toString('latin1')}`;
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(name);
    }
  });

  it('replays an issued key with its secret, and covers every create of the catalog and the fit flow', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    const issue = () =>
      t
        .http()
        .post('/v1/api-keys')
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', key)
        .send({ name: 'ci', scopes: ['events'], store_id: tenant.storeId });
    const [first, again] = [await issue(), await issue()];
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.secret).toBe(first.body.secret);

    const base = `/v1/stores/${tenant.storeId}`;
    const type = await createProductType(t, tenant.admin.secret, tenant.storeId);
    const chart = await createSizeChart(t, tenant.admin.secret, tenant.storeId);
    const creates: Array<[string, object]> = [
      [`${base}/product-types`, { name: 'Bottoms', category: 'bottoms', zone_weights: { waist: 1 } }],
      [`${base}/size-charts`, { name: 'Chart', unit: 'cm', measurement_type: 'body', sizes: chart.sizes }],
      [`${base}/products`, { title: 'Jeans', product_type_id: type.id, size_chart_id: chart.id }],
      [
        `${base}/questionnaires`,
        {
          name: 'Short',
          questions: [
            { key: 'height', required: true },
            { key: 'weight', required: true },
          ],
        },
      ],
    ];
    for (const [path, body] of creates) {
      const send = (idempotencyKey: string) =>
        t.http().post(path).set(bearer(tenant.admin.secret)).set('Idempotency-Key', idempotencyKey).send(body);
      const once = randomUUID();
      const [a, b] = [await send(once), await send(once)];
      expect([path, a.status, b.status, b.headers['idempotent-replayed']]).toEqual([path, 201, 201, 'true']);
      expect(b.body.id).toBe(a.body.id);
    }
    const product = (await t.http().get(`${base}/products`).set(bearer(tenant.admin.secret))).body.data[0];
    const variantKey = randomUUID();
    const variant = () =>
      t
        .http()
        .post(`${base}/products/${product.id}/variants`)
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', variantKey)
        .send({ size_label: chart.sizes[0].label, sku: 'J-1' });
    const [v1, v2] = [await variant(), await variant()];
    expect([v1.status, v2.status, v2.body.id]).toEqual([201, 201, v1.body.id]);
    const sessionKey = randomUUID();
    const session = () =>
      t
        .http()
        .post(`${base}/sessions`)
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', sessionKey)
        .send({ product_id: product.id });
    const [s1, s2] = [await session(), await session()];
    expect([s1.status, s2.status, s2.body.id]).toEqual([201, 201, s1.body.id]);
  });

  it('replays a key revoked or expired since as it is now: revoked_at shown, its secret no longer', async () => {
    const tenant = await createTenant(t);
    const issue = (key: string, name: string) =>
      t
        .http()
        .post('/v1/api-keys')
        .set(bearer(tenant.admin.secret))
        .set('Idempotency-Key', key)
        .send({ name, scopes: ['events'], store_id: tenant.storeId });
    const [revokedKey, expiredKey, liveKey] = [randomUUID(), randomUUID(), randomUUID()];
    const [first, expiring, live] = [await issue(revokedKey, 'ci'), await issue(expiredKey, 'old'), await issue(liveKey, 'live')];
    expect([first.status, expiring.status, live.status]).toEqual([201, 201, 201]);
    const revoked = await t.http().delete(`/v1/api-keys/${first.body.id}`).set(bearer(tenant.admin.secret));
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    await db().query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expiring.body.id]);

    const again = await issue(revokedKey, 'ci');
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'], body: again.body }).toEqual({
      status: 201,
      replayed: 'true',
      // the key as it is now: what its revocation answered, with no secret
      body: revoked.body,
    });
    const expired = await issue(expiredKey, 'old');
    expect([expired.status, expired.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(expired.body).not.toHaveProperty('secret');
    expect(new Date(expired.body.expires_at).getTime()).toBeLessThanOrEqual(Date.now());
    // a live key's replay is its first answer, secret included
    const liveAgain = await issue(liveKey, 'live');
    expect([liveAgain.headers['idempotent-replayed'], liveAgain.body]).toEqual(['true', live.body]);
  });

  it("replays a new merchant whose first admin key was revoked since without that key's secret", async () => {
    const key = randomUUID();
    const name = `Revoked ${randomUUID()}`;
    const create = () => t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).set('Idempotency-Key', key).send({ name });
    const first = await create();
    expect(first.status).toBe(201);
    const successor = await issueKey(t, first.body.api_key.secret, { scopes: ['admin'] });
    const revoked = await t.http().delete(`/v1/api-keys/${first.body.api_key.id}`).set(bearer(successor.secret));
    expect(revoked.status).toBe(200);

    const again = await create();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    // the key as it is now (used since, then revoked): what its revocation answered, with no secret
    expect(again.body).toEqual({ merchant: first.body.merchant, api_key: revoked.body });
    expect(revoked.body).toMatchObject({ id: first.body.api_key.id, revoked_at: expect.any(String) });
  });

  it("replays a session's answers and its decision: a retried decision gets its answer, not a conflict", async () => {
    const tenant = await createTenant(t);
    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    const sessions = `/v1/stores/${tenant.storeId}/sessions`;
    const session = await t.http().post(sessions).set(bearer(tenant.admin.secret)).send({ product_id: shop.productId });
    expect(session.status).toBe(201);
    const post = (path: string, key: string, body: object) =>
      t.http().post(`${sessions}/${session.body.id}/${path}`).set(bearer(tenant.admin.secret)).set('Idempotency-Key', key).send(body);
    const answers = { answers: { height: { value: 178, unit: 'cm' }, weight: { value: 72, unit: 'kg' } } };

    const answerKey = randomUUID();
    const [answered, answeredAgain] = [await post('answers', answerKey, answers), await post('answers', answerKey, answers)];
    expect([answered.status, answeredAgain.status, answeredAgain.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(answeredAgain.body).toEqual(answered.body);
    const eventsAfterAnswers = types(await sessionEvents(t, session.body.id));

    const decisionKey = randomUUID();
    const decision = { size_label: answered.body.recommendation.size_label };
    const [decided, decidedAgain] = [await post('decision', decisionKey, decision), await post('decision', decisionKey, decision)];
    expect([decided.status, decidedAgain.status, decidedAgain.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(decidedAgain.body).toEqual(decided.body);
    // The decision's event once, the answers' events as they were.
    expect(types(await sessionEvents(t, session.body.id))).toEqual([...eventsAfterAnswers, 'recommendation_accepted'].sort());
    // Without the key, or with a new one, a second decision is the conflict it always was.
    expectProblem(await post('decision', randomUUID(), decision), 409, 'session_state_conflict');
    expectProblem(await post('answers', answerKey, { answers: { ...answers.answers, age: 30 } }), 409, 'idempotency_key_reused');
  });

  it('forgets keys 24 hours after their first use on a schedule of its own, a revoked key’s too', async () => {
    const tenant = await createTenant(t);
    const other = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
    const sha256 = (text: string) => createHash('sha256').update(text).digest();
    const [stale, fresh] = [randomUUID(), randomUUID()];
    expect((await createStore(other.secret, stale, { name: 'Stale' })).status).toBe(201);
    expect((await createStore(other.secret, fresh, { name: 'Fresh' })).status).toBe(201);
    // the key is revoked: it will never claim another key, which would have dropped its own expired ones
    expect((await t.http().delete(`/v1/api-keys/${other.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
    await db().query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key_digest = $1`, [sha256(stale)]);
    const held = async () =>
      (await db().query(`SELECT key_digest FROM idempotency_keys WHERE credential = $1`, [`key:${other.id}`])).map(
        (row: { key_digest: Buffer }) => row.key_digest.toString('hex'),
      );
    expect(await held()).toHaveLength(2);

    // The service's own timer: the callback it scheduled at start, every IDEMPOTENCY_SWEEP_EVERY_MS, run now.
    const scheduled = intervals.filter((interval) => interval.every === IDEMPOTENCY_SWEEP_EVERY_MS);
    expect(scheduled).toHaveLength(1);
    scheduled[0].run();
    for (let wait = 0; (await held()).length === 2 && wait < 50; wait++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await held()).toEqual([sha256(fresh).toString('hex')]);
    expect(await t.app.get(IdempotencySweeper).sweep()).toBe(0);
  });
});
