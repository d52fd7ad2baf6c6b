/** Fit sessions e2e: what a session may be started on, who may see and move one, and the store's list of them. */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createStore, expectErrors, expectProblem, issueKey, MISSING_ID } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { SHOPPER } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { createQuestionnaire, DEFAULT_QUESTIONS, type Session, sessionEvents, type Shop, SIZES } from '../../support/session-fixtures.js';

describe('fit sessions', () => {
  const t = useApp();
  const { sessionsPath, startRaw, answerRaw, decideRaw, getRaw, listRaw, newShop, start, recommended, read } = sessionsApi(t);

  describe('starting a session', () => {
    it.each([
      ['no product', () => ({}), 'product_id'],
      ['a product id that is not an id', () => ({ product_id: 'tee' }), 'product_id'],
      ['an unknown product', () => ({ product_id: MISSING_ID }), 'product_id'],
      ['an unknown questionnaire', (shop: Shop) => ({ product_id: shop.productId, questionnaire_id: MISSING_ID }), 'questionnaire_id'],
      ['an unknown field', (shop: Shop) => ({ product_id: shop.productId, state: 'completed' }), 'state'],
    ])('refuses %s with 400 and starts nothing', async (_, body, field) => {
      const shop = await newShop();
      const response = await startRaw(shop, body(shop));
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
      expect((await listRaw(shop)).body.data).toEqual([]);
    });

    it("refuses another merchant's product and another merchant's questionnaire with 400", async () => {
      const shop = await newShop();
      const stranger = await newShop();
      const strangersQuiz = await createQuestionnaire(t, stranger.storeId, stranger.secret, DEFAULT_QUESTIONS);
      expectErrors(await startRaw(shop, { product_id: stranger.productId }), [{ field: 'product_id', code: 'not_found' }]);
      expectErrors(await startRaw(shop, { product_id: shop.productId, questionnaire_id: strangersQuiz.id }), [
        { field: 'questionnaire_id', code: 'not_found' },
      ]);
      expect((await listRaw(shop)).body.data).toEqual([]);
    });
  });

  // ——— tenancy and access ———

  describe('who may see and move a session', () => {
    it('answers 404 for a session that does not exist', async () => {
      const shop = await newShop();
      for (const id of [MISSING_ID, 'not-an-id']) {
        expectProblem(await getRaw(shop, id), 404, 'not_found');
        expectProblem(await answerRaw(shop, id, SHOPPER), 404, 'not_found');
        expectProblem(await decideRaw(shop, id, { size_label: 'M' }), 404, 'not_found');
      }
    });

    it("answers 404 for another merchant's session and leaves it alone", async () => {
      const owner = await newShop();
      const stranger = await newShop();
      const session = await recommended(owner);
      const eventsBefore = await sessionEvents(t, session.id);

      // the stranger's key on its own store, naming the owner's session
      const asStranger = { ...owner, storeId: stranger.storeId, secret: stranger.secret };
      expectProblem(await getRaw(asStranger, session.id), 404, 'not_found');
      expectProblem(await answerRaw(asStranger, session.id, SHOPPER), 404, 'not_found');
      expectProblem(await decideRaw(asStranger, session.id, { size_label: 'M' }), 404, 'not_found');
      expect((await listRaw(asStranger)).body.data).toEqual([]);
      // the stranger's key on the owner's store
      expectProblem(await getRaw({ ...owner, secret: stranger.secret }, session.id), 404, 'not_found');
      expectProblem(await decideRaw({ ...owner, secret: stranger.secret }, session.id, { size_label: 'M' }), 404, 'not_found');

      await expect(read(owner, session.id)).resolves.toEqual(session);
      await expect(sessionEvents(t, session.id)).resolves.toEqual(eventsBefore);
    });

    it("answers 404 for a session of the merchant's other store", async () => {
      const shop = await newShop();
      const otherStore = await createStore(t, shop.secret);
      const session = await recommended(shop);
      const elsewhere = { ...shop, storeId: otherStore };
      expectProblem(await getRaw(elsewhere, session.id), 404, 'not_found');
      expectProblem(await decideRaw(elsewhere, session.id, { size_label: 'M' }), 404, 'not_found');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('lets a fit key bound to the store run the whole flow', async () => {
      const shop = await newShop();
      const fit = await issueKey(t, shop.secret, { scopes: ['fit'], store_id: shop.storeId });
      const asFit = { ...shop, secret: fit.secret };
      const started = await startRaw(asFit, { product_id: shop.productId });
      expect(started.status).toBe(201);
      expect((await answerRaw(asFit, started.body.id, SHOPPER)).status).toBe(200);
      expect((await decideRaw(asFit, started.body.id, { size_label: 'S' })).status).toBe(200);
      expect((await getRaw(asFit, started.body.id)).body.state).toBe('completed');
      expect((await listRaw(asFit)).body.data.map((s: Session) => s.id)).toEqual([started.body.id]);
    });

    it('refuses a fit key bound to another store with 403 store_forbidden', async () => {
      const shop = await newShop();
      const otherStore = await createStore(t, shop.secret);
      const foreign = await issueKey(t, shop.secret, { scopes: ['fit'], store_id: otherStore });
      const session = await recommended(shop);

      expectProblem(await startRaw(shop, { product_id: shop.productId }, foreign.secret), 403, 'store_forbidden');
      expectProblem(await getRaw(shop, session.id, foreign.secret), 403, 'store_forbidden');
      expectProblem(await listRaw(shop, '', foreign.secret), 403, 'store_forbidden');
      expectProblem(await answerRaw(shop, session.id, SHOPPER, foreign.secret), 403, 'store_forbidden');
      expectProblem(await decideRaw(shop, session.id, { size_label: 'M' }, foreign.secret), 403, 'store_forbidden');
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect((await listRaw(shop)).body.data).toHaveLength(1);
    });

    it.each([['catalog'], ['events'], ['analytics']])('refuses a %s-only key with 403 insufficient_scope', async (scope) => {
      const shop = await newShop();
      const key = await issueKey(t, shop.secret, { scopes: [scope], store_id: shop.storeId });
      const session = await recommended(shop);

      expectProblem(await startRaw(shop, { product_id: shop.productId }, key.secret), 403, 'insufficient_scope');
      expectProblem(await getRaw(shop, session.id, key.secret), 403, 'insufficient_scope');
      expectProblem(await listRaw(shop, '', key.secret), 403, 'insufficient_scope');
      expectProblem(await answerRaw(shop, session.id, SHOPPER, key.secret), 403, 'insufficient_scope');
      expectProblem(await decideRaw(shop, session.id, { size_label: 'M' }, key.secret), 403, 'insufficient_scope');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('refuses a call without a key with 401', async () => {
      const shop = await newShop();
      const response = await t.http().post(sessionsPath(shop.storeId)).send({ product_id: shop.productId });
      expectProblem(response, 401, 'unauthenticated');
    });
  });

  // ——— listing ———

  describe('listing', () => {
    it('lists the store’s sessions newest first, filtered by state and product, in pages', async () => {
      const shop = await newShop();
      const otherProduct = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      for (const label of SIZES) await createVariant(t, shop.secret, shop.storeId, otherProduct, { size_label: label });

      const started = await start(shop);
      const answered = await recommended(shop);
      const completed = await recommended(shop);
      expect((await decideRaw(shop, completed.id, { size_label: 'M' })).status).toBe(200);
      const onOther = await start(shop, { product_id: otherProduct });

      const ids = async (query: string) => {
        const response = await listRaw(shop, query);
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
        return (response.body.data as Session[]).map((s) => s.id);
      };
      await expect(ids('')).resolves.toEqual([onOther.id, completed.id, answered.id, started.id]);
      await expect(ids('?state=started')).resolves.toEqual([onOther.id, started.id]);
      await expect(ids('?state=recommended')).resolves.toEqual([answered.id]);
      await expect(ids('?state=completed')).resolves.toEqual([completed.id]);
      await expect(ids(`?product_id=${shop.productId}`)).resolves.toEqual([completed.id, answered.id, started.id]);
      await expect(ids(`?product_id=${otherProduct}&state=started`)).resolves.toEqual([onOther.id]);
      await expect(ids(`?product_id=${otherProduct}&state=completed`)).resolves.toEqual([]);

      const firstPage = await listRaw(shop, '?limit=3');
      expect(firstPage.body.data.map((s: Session) => s.id)).toEqual([onOther.id, completed.id, answered.id]);
      expect(firstPage.body).toMatchObject({ has_more: true, next_cursor: answered.id });
      const secondPage = await listRaw(shop, `?limit=3&starting_after=${firstPage.body.next_cursor}`);
      expect(secondPage.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(secondPage.body.data.map((s: Session) => s.id)).toEqual([started.id]);

      const listed = (await listRaw(shop, '?state=completed')).body.data[0];
      await expect(read(shop, completed.id)).resolves.toEqual(listed);
    });

    it.each([
      ['an unknown state', '?state=abandoned', 'state'],
      ['a product id that is not an id', '?product_id=tee', 'product_id'],
    ])('refuses %s with 400', async (_, query, field) => {
      const shop = await newShop();
      const response = await listRaw(shop, query);
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    });
  });
});
