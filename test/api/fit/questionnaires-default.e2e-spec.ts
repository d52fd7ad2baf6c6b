/**
 * Questionnaires e2e: the store's default questionnaire — at most one, also under concurrent changes — and the
 * questions a session starts on.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createProduct } from '../../support/catalog-fixtures.js';
import { createStore, createTenant, expectErrors, MISSING_ID } from '../../support/fixtures.js';
import {
  BUILT_IN_QUESTIONS,
  outcome,
  type QuestionnaireBody,
  questionnaireRequests,
  ROUNDS,
} from '../../support/questionnaire-fixtures.js';

describe('questionnaires', () => {
  const t = useApp();
  const { questionnairesOf, get, post, patch, createQuestionnaire, read, startSession } = questionnaireRequests(t);

  describe('the default questionnaire', () => {
    it('keeps at most one default per store: a new default un-defaults the old one', async () => {
      const { admin, storeId } = await createTenant(t);
      const sibling = await createStore(t, admin.secret);
      const elsewhere = await createQuestionnaire(admin.secret, sibling, { default: true });
      const a = await createQuestionnaire(admin.secret, storeId, { name: 'A', default: true });
      expect(a.default).toBe(true);

      const b = await createQuestionnaire(admin.secret, storeId, { name: 'B', default: true });
      expect(b.default).toBe(true);
      expect((await read(admin.secret, storeId, a.id)).default).toBe(false);

      const again = await patch(admin.secret, `${questionnairesOf(storeId)}/${a.id}`, { default: true });
      expect(again.body).toMatchObject({ default: true, version: 1 });
      expect((await read(admin.secret, storeId, b.id)).default).toBe(false);

      const c = await createQuestionnaire(admin.secret, storeId, { name: 'C' });
      expect(c.default).toBe(false);
      const listed = (await get(admin.secret, questionnairesOf(storeId))).body.data as QuestionnaireBody[];
      expect(listed.filter((q) => q.default).map((q) => q.id)).toEqual([a.id]);
      // Another store's default is its own business.
      expect((await read(admin.secret, sibling, elsewhere.id)).default).toBe(true);
    });

    it('keeps exactly one default when several are created at the same time', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const body = { name: 'Racer', questions: [{ key: 'height', required: true }], default: true };
        const responses = await Promise.all([0, 1, 2].map(() => post(admin.secret, questionnairesOf(storeId), body)));
        expect(responses.map(outcome)).toEqual(['201', '201', '201']);
        const listed = (await get(admin.secret, questionnairesOf(storeId))).body.data as QuestionnaireBody[];
        expect(listed.filter((q) => q.default)).toHaveLength(1);
      }
    });

    it('keeps exactly one default when several are made the default at the same time', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const ids: string[] = [];
        for (const name of ['A', 'B', 'C']) ids.push((await createQuestionnaire(admin.secret, storeId, { name })).id);
        const responses = await Promise.all(ids.map((id) => patch(admin.secret, `${questionnairesOf(storeId)}/${id}`, { default: true })));
        expect(responses.map(outcome)).toEqual(['200', '200', '200']);
        const listed = (await get(admin.secret, questionnairesOf(storeId))).body.data as QuestionnaireBody[];
        expect(listed.filter((q) => q.default)).toHaveLength(1);
      }
    });

    it('starts a session without a questionnaire on the store default, at its current version', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: false },
      ];
      const questionnaire = await createQuestionnaire(tenant.admin.secret, tenant.storeId, { name: 'Default', default: true, questions });
      await patch(tenant.admin.secret, `${questionnairesOf(tenant.storeId)}/${questionnaire.id}`, { name: 'Default v2' });

      const session = await startSession(tenant, { product_id: product.id });
      expect(session.status).toBe(201);
      expect(session.body).toMatchObject({ questionnaire_id: questionnaire.id, questionnaire_version: 2, questions, state: 'started' });
    });

    it('starts a session on the built-in questions when the store has no default', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      await createQuestionnaire(tenant.admin.secret, tenant.storeId, { name: 'Not default' });
      // Another store's default does not count.
      const sibling = await createStore(t, tenant.admin.secret);
      await createQuestionnaire(tenant.admin.secret, sibling, { default: true });

      const session = await startSession(tenant, { product_id: product.id });
      expect(session.status).toBe(201);
      expect(session.body).toMatchObject({ questionnaire_id: null, questionnaire_version: null, questions: BUILT_IN_QUESTIONS });
    });

    it('starts a session on the questionnaire it names, default or not', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      await createQuestionnaire(tenant.admin.secret, tenant.storeId, { name: 'Default', default: true });
      const named = await createQuestionnaire(tenant.admin.secret, tenant.storeId, {
        name: 'Named',
        questions: [
          { key: 'height', required: true },
          { key: 'weight', required: true },
          { key: 'custom:brand', required: true },
        ],
      });
      const session = await startSession(tenant, { product_id: product.id, questionnaire_id: named.id });
      expect(session.status).toBe(201);
      expect(session.body).toMatchObject({ questionnaire_id: named.id, questionnaire_version: 1, questions: named.questions });
    });

    it('refuses a session on a questionnaire of another store or merchant with 400 not_found', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const sibling = await createStore(t, tenant.admin.secret);
      const other = await createTenant(t);
      for (const questionnaire of [
        await createQuestionnaire(tenant.admin.secret, sibling),
        await createQuestionnaire(other.admin.secret, other.storeId),
      ]) {
        expectErrors(await startSession(tenant, { product_id: product.id, questionnaire_id: questionnaire.id }), {
          questionnaire_id: 'not_found',
        });
      }
      expectErrors(await startSession(tenant, { product_id: product.id, questionnaire_id: MISSING_ID }), { questionnaire_id: 'not_found' });
      expectErrors(await startSession(tenant, { product_id: product.id, questionnaire_id: 'quiz' }), { questionnaire_id: 'must_be_id' });
    });

    it('lets a session keep the version it started with after the questionnaire is edited', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const questionnaire = await createQuestionnaire(tenant.admin.secret, tenant.storeId, { default: true });
      const session = await startSession(tenant, { product_id: product.id });
      expect(session.status).toBe(201);

      const newQuestions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'sex', required: true },
      ];
      const edited = await patch(tenant.admin.secret, `${questionnairesOf(tenant.storeId)}/${questionnaire.id}`, {
        questions: newQuestions,
      });
      expect(edited.body.version).toBe(2);

      const reread = await get(tenant.admin.secret, `/v1/stores/${tenant.storeId}/sessions/${session.body.id}`);
      expect(reread.status).toBe(200);
      expect(reread.body).toMatchObject({
        questionnaire_id: questionnaire.id,
        questionnaire_version: 1,
        questions: questionnaire.questions,
      });

      const later = await startSession(tenant, { product_id: product.id });
      expect(later.body).toMatchObject({ questionnaire_id: questionnaire.id, questionnaire_version: 2, questions: newQuestions });
    });
  });
});
