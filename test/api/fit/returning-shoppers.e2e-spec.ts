/**
 * Returning shoppers, e2e: a session may name the integrator's id for its shopper (`shopper_ref`); her earlier outcomes
 * in the store inform her next recommendations beyond what they say about the product; the id is stored only as a
 * keyed hash per store, never returned, and `DELETE …/shoppers/{shopper_ref}` erases her.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, useApp } from '../../support/app.js';
import { createStore, expectProblem } from '../../support/fixtures.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { createQuestionnaire, createShop, type Shop, SIZES, USUAL_SIZE_QUESTIONS } from '../../support/session-fixtures.js';
import { withUsualSize } from '../../../src/sizing/usual-size.js';
import { canonicalJson } from '../../../src/common/http/canonical-json.js';

const SHOPPER = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };
type Size = (typeof SIZES)[number];

describe('returning shoppers', () => {
  const t = useApp();
  const { newShop, batchRaw, postRaw } = eventsApi(t);
  const { startRaw, answer } = sessionsApi(t);
  const db = () => t.app.get(DataSource);

  /** A session for `ref` (or none) answered as SHOPPER: its id and recommendation. */
  async function recommended(shop: Shop, ref?: string) {
    const started = await startRaw(shop, { product_id: shop.productId, ...(ref === undefined ? {} : { shopper_ref: ref }) });
    expect(started.status).toBe(201);
    expect(JSON.stringify(started.body)).not.toContain('shopper');
    const session = await answer(shop, started.body.id, SHOPPER);
    return {
      id: session.id,
      recommendation: session.recommendation as NonNullable<typeof session.recommendation> & { adjustment: Record<string, unknown> },
    };
  }

  /** `count` sessions of `ref`, each bought in the chart's size moved by `steps` and kept. */
  async function keeps(shop: Shop, ref: string, count: number, steps: number) {
    const events = [];
    for (let i = 0; i < count; i++) {
      const { id, recommendation } = await recommended(shop, ref);
      const size = SIZES[SIZES.indexOf(recommendation.adjustment.chart_size_label as Size) + steps];
      // after the session was created
      const line = {
        order_id: uniqueId('o'),
        line_item_id: uniqueId('l'),
        variant_id: shop.variants[size],
        occurred_at: new Date().toISOString(),
      };
      events.push(eventBody('purchase', shop, { ...line, session_id: id }), eventBody('item_kept', shop, line));
    }
    const response = await batchRaw(shop, { events });
    expect(response.status).toBe(200);
    expect((response.body.results as { status: number }[]).every((r) => r.status === 201)).toBe(true);
  }

  it('recommends a size down to a shopper who keeps a size down, and not to another with the same body', async () => {
    const shop = await newShop();
    // the chart's answer for this body is L: a size down is M, inside the chart (the largest size kept says less)
    await keeps(shop, 'cust-small', 8, -1);
    await keeps(shop, 'cust-true', 8, 0);

    const small = (await recommended(shop, 'cust-small')).recommendation;
    const fits = (await recommended(shop, 'cust-true')).recommendation;
    const stranger = (await recommended(shop)).recommendation;
    expect(small.adjustment.shopper_steps as number).toBeLessThan(-0.3);
    expect(fits.adjustment.shopper_steps as number).toBeGreaterThan(0);
    expect(stranger.adjustment.shopper_steps).toBeNull();
    expect(SIZES.indexOf(small.size_label as Size)).toBe(SIZES.indexOf(small.adjustment.chart_size_label as Size) - 1);
    expect(SIZES.indexOf(fits.size_label as Size)).toBe(SIZES.indexOf(fits.adjustment.chart_size_label as Size));
    expect(small.model_version).not.toBe(fits.model_version);
  });

  it('reads the size she names as usual at how the product runs, her own offset counted once, on her body', async () => {
    const shop = await newShop();
    const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, USUAL_SIZE_QUESTIONS);
    // she keeps a size up (XL where the chart answers L): the product learns part of it, she the rest
    await keeps(shop, 'cust-roomy', 4, 1);
    const answered = async (extra: Record<string, unknown>) => {
      const started = await startRaw(shop, { product_id: shop.productId, questionnaire_id: quiz.id, shopper_ref: 'cust-roomy' });
      expect(started.status).toBe(201);
      return (await answer(shop, started.body.id, { ...SHOPPER, ...extra })).recommendation as NonNullable<
        Awaited<ReturnType<typeof answer>>['recommendation']
      > & { adjustment: { size_steps: number; shopper_steps: number | null } };
    };
    const plain = await answered({});
    const named = await answered({ usual_size: 'L' });
    const { size_steps: steps, shopper_steps: own } = plain.adjustment;
    expect(named.adjustment).toMatchObject({ size_steps: steps, shopper_steps: own });
    expect(own as number).toBeGreaterThan(0.3);
    const distribution = (r: typeof plain) =>
      SIZES.map((label) => (label === r.size_label ? r.confidence : (r.alternatives.find((a) => a.size_label === label)?.confidence ?? 0)));
    const body = distribution(plain);
    const productSteps = steps - (own as number);
    const expected = withUsualSize(body, SIZES.indexOf('L') + productSteps);
    const doubled = withUsualSize(body, SIZES.indexOf('L') + steps);
    // the two readings differ enough to tell apart
    expect(Math.max(...expected.map((p, s) => Math.abs(p - doubled[s])))).toBeGreaterThan(0.05);
    distribution(named).forEach((p, s) => expect(Math.abs(p - expected[s])).toBeLessThan(0.01));
    expect(named.size_label).toBe(SIZES[expected.indexOf(Math.max(...expected))]);
  });

  it('stores only a keyed hash of the id, different in each store, and erases it on request', async () => {
    const shop = await newShop();
    const otherStoreId = await createStore(t, shop.secret);
    const twin = await createShop(t, otherStoreId, shop.secret);
    const ref = `cust-${uniqueId()}`;
    await keeps(shop, ref, 6, 1);
    const inTwin = await recommended(twin, ref);

    const stored = await db().query(
      `SELECT s.store_id, s.shopper_digest FROM sessions s WHERE s.store_id = ANY($1::uuid[]) AND s.shopper_digest IS NOT NULL`,
      [[shop.storeId, otherStoreId]],
    );
    const digests = (storeId: string) =>
      new Set(
        stored
          .filter((r: { store_id: string }) => r.store_id === storeId)
          .map((r: { shopper_digest: Buffer }) => r.shopper_digest.toString('hex')),
      );
    expect(digests(shop.storeId).size).toBe(1);
    expect(digests(otherStoreId).size).toBe(1);
    expect([...digests(shop.storeId)][0]).not.toBe([...digests(otherStoreId)][0]);
    // the other store learned nothing about her
    expect(inTwin.recommendation.adjustment.shopper_steps ?? null).toBeNull();
    // the clear id is in no table
    const tables: { table_name: string }[] = await db().query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of tables) {
      const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM "${table_name}" x WHERE to_jsonb(x)::text LIKE $1`, [`%${ref}%`]);
      expect({ table_name, n }).toEqual({ table_name, n: 0 });
    }

    const erased = await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/${ref}`).set(bearer(shop.secret));
    expect(erased.status).toBe(204);
    const [{ linked }] = await db().query(
      `SELECT count(*)::int AS linked FROM sessions WHERE store_id = $1 AND shopper_digest IS NOT NULL`,
      [shop.storeId],
    );
    expect(linked).toBe(0);
    expect((await recommended(shop, ref)).recommendation.adjustment.shopper_steps).toBeNull();
    // erasing someone the store never knew is the same answer
    expect((await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/nobody`).set(bearer(shop.secret))).status).toBe(204);
  });

  it('keeps no digest of her id with a retried session create, and her erasure forgets the create', async () => {
    const shop = await newShop();
    const sessions = `/v1/stores/${shop.storeId}/sessions`;
    const start = (key: string, ref: string) =>
      t.http().post(sessions).set(bearer(shop.secret)).set('Idempotency-Key', key).send({ product_id: shop.productId, shopper_ref: ref });
    // what the kept request's digest would be, were her id digested as itself
    const unkeyed = (ref: string) =>
      createHash('sha256')
        .update(`POST ${sessions}\n${canonicalJson({ product_id: shop.productId, shopper_ref: ref })}`)
        .digest();
    const holding = async (digest: Buffer) =>
      (await db().query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE request_digest = $1`, [digest]))[0].n as number;
    const kept = async (key: string) =>
      (
        await db().query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key_digest = $1`, [
          createHash('sha256').update(key).digest(),
        ])
      )[0].n as number;

    const [ref, other] = [`cust-${uniqueId()}`, `cust-${uniqueId()}`];
    const [key, otherKey] = [randomUUID(), randomUUID()];
    const first = await start(key, ref);
    const theirs = await start(otherKey, other);
    expect([first.status, theirs.status]).toEqual([201, 201]);
    const again = await start(key, ref);
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
    expect(await kept(key)).toBe(1);
    expect(await holding(unkeyed(ref))).toBe(0);

    const erased = await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/${ref}`).set(bearer(shop.secret));
    expect(erased.status).toBe(204);
    expect(await kept(key)).toBe(0);
    expect(await holding(unkeyed(ref))).toBe(0);
    // the retry is a new request: a new session, not the erased one's answer
    const retried = await start(key, ref);
    expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(retried.body.id).not.toBe(first.body.id);
    // another shopper's create is still replayed
    const theirsAgain = await start(otherKey, other);
    expect([theirsAgain.headers['idempotent-replayed'], theirsAgain.body]).toEqual(['true', theirs.body]);
  });

  it('leaves nothing of a shopper erased while an outcome of hers is being stored', async () => {
    const shop = await newShop();
    // on PostgreSQL the two really run side by side, and a race shows in a few rounds; the embedded database needs one
    for (let round = 0; round < (process.env.DATABASE_URL ? 8 : 1); round++) {
      const ref = `cust-${uniqueId()}`;
      const { id, recommendation } = await recommended(shop, ref);
      const line = {
        order_id: uniqueId('o'),
        line_item_id: uniqueId('l'),
        variant_id: shop.variants[recommendation.adjustment.chart_size_label as Size],
        occurred_at: new Date().toISOString(),
      };
      const purchase = eventBody('purchase', shop, { ...line, session_id: id });
      const kept = eventBody('item_kept', shop, line);
      // odd rounds: the purchase in the outcome's own batch
      if (round % 2 === 0) expect((await postRaw(shop, purchase)).status).toBe(201);
      const [stored, erased] = await Promise.all([
        round % 2 === 0 ? postRaw(shop, kept) : batchRaw(shop, { events: [purchase, kept] }),
        t.http().delete(`/v1/stores/${shop.storeId}/shoppers/${ref}`).set(bearer(shop.secret)),
      ]);
      const statuses = stored.body.results ? (stored.body.results as { status: number }[]).map((r) => r.status) : [stored.status];
      expect([...statuses, erased.status]).toEqual([...statuses.map(() => 201), 204]);
      const [{ left }] = await db().query(`SELECT count(*)::int AS left FROM shopper_evidence WHERE store_id = $1`, [shop.storeId]);
      expect({ round, left }).toEqual({ round, left: 0 });
    }
  });

  it('refuses a shopper_ref that is not text, and erasure without the fit scope', async () => {
    const shop = await newShop();
    expectProblem(await startRaw(shop, { product_id: shop.productId, shopper_ref: 42 }), 400, 'validation_failed');
    expectProblem(await startRaw(shop, { product_id: shop.productId, shopper_ref: 'x'.repeat(201) }), 400, 'validation_failed');
    const events = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(shop.secret))
      .send({ name: 'events only', scopes: ['events'], store_id: shop.storeId });
    expect(events.status).toBe(201);
    expectProblem(
      await t.http().delete(`/v1/stores/${shop.storeId}/shoppers/cust-1`).set(bearer(events.body.secret)),
      403,
      'insufficient_scope',
    );
  });
});
