/** Questionnaires e2e: delete — gone when no session used it, archived when one did, and a delete racing a session. */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createProduct } from '../../support/catalog-fixtures.js';
import { createTenant, expectErrors, expectProblem, TIMESTAMP } from '../../support/fixtures.js';
import { BUILT_IN_QUESTIONS, outcome, questionnaireRequests, ROUNDS } from '../../support/questionnaire-fixtures.js';

describe('questionnaires', () => {
  const t = useApp();
  const { questionnairesOf, get, patch, del, createQuestionnaire, read, startSession } = questionnaireRequests(t);

  /** The outcomes of a race: one of the orders the requests could have run in. */
  function expectOneOf(seen: string[], allowed: string[][]): void {
    expect(seen).toEqual(allowed.find((one) => one.join() === seen.join()) ?? allowed);
  }

  describe('delete', () => {
    it('deletes a questionnaire no session used with 204, versions and all', async () => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      await patch(admin.secret, path, { name: 'v2' });
      const response = await del(admin.secret, path);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expectProblem(await get(admin.secret, path), 404, 'not_found');
      expectProblem(await get(admin.secret, `${path}?version=1`), 404, 'not_found');
      expectProblem(await del(admin.secret, path), 404, 'not_found');
      expect((await get(admin.secret, questionnairesOf(storeId))).body.data).toEqual([]);
    });

    it('deleting the unused default leaves sessions on the built-in questions', async () => {
      const tenant = await createTenant(t);
      const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
      const questionnaire = await createQuestionnaire(tenant.admin.secret, tenant.storeId, { default: true });
      expect((await del(tenant.admin.secret, `${questionnairesOf(tenant.storeId)}/${questionnaire.id}`)).status).toBe(204);
      const session = await startSession(tenant, { product_id: product.id });
      expect(session.body).toMatchObject({ questionnaire_id: null, questions: BUILT_IN_QUESTIONS });
    });

    it('a questionnaire deleted while a session starts on it is either archived or gone, never a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const tenant = await createTenant(t);
        const product = await createProduct(t, tenant.admin.secret, tenant.storeId);
        const questionnaire = await createQuestionnaire(tenant.admin.secret, tenant.storeId);
        const [started, deleted] = await Promise.all([
          startSession(tenant, { product_id: product.id, questionnaire_id: questionnaire.id }),
          del(tenant.admin.secret, `${questionnairesOf(tenant.storeId)}/${questionnaire.id}`),
        ]);
        expectOneOf(
          [outcome(started), outcome(deleted)],
          [
            ['201', '200'],
            ['400:questionnaire_id/not_found', '204'],
          ],
        );
      }
    });

    it('archives a questionnaire that sessions used, and it is no longer the default', async () => {
      const tenant = await createTenant(t);
      const { admin, storeId } = tenant;
      const product = await createProduct(t, admin.secret, storeId);
      const questionnaire = await createQuestionnaire(admin.secret, storeId, { default: true });
      const session = await startSession(tenant, { product_id: product.id });
      expect(session.body.questionnaire_id).toBe(questionnaire.id);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;

      const archived = await del(admin.secret, path);
      expect(archived.status).toBe(200);
      expect(archived.body).toEqual({
        ...questionnaire,
        default: false,
        archived_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(await read(admin.secret, storeId, questionnaire.id)).toEqual(archived.body);
      expect((await get(admin.secret, `${path}?version=1`)).status).toBe(200);

      const again = await del(admin.secret, path);
      expect(again.status).toBe(200);
      expect(again.body.archived_at).toBe(archived.body.archived_at);

      // Sessions fall back to the built-in questions, and cannot name the archived questionnaire.
      const next = await startSession(tenant, { product_id: product.id });
      expect(next.body).toMatchObject({ questionnaire_id: null, questions: BUILT_IN_QUESTIONS });
      expectErrors(await startSession(tenant, { product_id: product.id, questionnaire_id: questionnaire.id }), {
        questionnaire_id: 'archived',
      });
      expectErrors(await patch(admin.secret, path, { default: true }), { default: 'archived' });
      expect((await read(admin.secret, storeId, questionnaire.id)).default).toBe(false);

      // The session that used it still reads as it started.
      const old = await get(admin.secret, `/v1/stores/${storeId}/sessions/${session.body.id}`);
      expect(old.body).toMatchObject({ questionnaire_id: questionnaire.id, questionnaire_version: 1 });
    });
  });
});
