/** Questionnaires e2e: access — which keys may manage a store's questionnaires, and other stores' and merchants'. */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createStore, createTenant, expectProblem, issueKey, MISSING_ID } from '../../support/fixtures.js';
import { questionnaireRequests } from '../../support/questionnaire-fixtures.js';

describe('questionnaires', () => {
  const t = useApp();
  const { questionnairesOf, get, post, patch, del, createQuestionnaire, read } = questionnaireRequests(t);

  describe('access', () => {
    it('lets a fit key bound to the store manage questionnaires', async () => {
      const { admin, storeId } = await createTenant(t);
      const key = await issueKey(t, admin.secret, { scopes: ['fit'], store_id: storeId });
      const questionnaire = await createQuestionnaire(key.secret, storeId);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      expect((await patch(key.secret, path, { name: 'Mine' })).body.version).toBe(2);
      expect((await get(key.secret, questionnairesOf(storeId))).body.data).toHaveLength(1);
      expect((await del(key.secret, path)).status).toBe(204);
    });

    it.each([['catalog'], ['events'], ['analytics']])('refuses a key with only the %s scope with 403 insufficient_scope', async (scope) => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const key = await issueKey(t, admin.secret, { scopes: [scope], store_id: storeId });
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      expectProblem(
        await post(key.secret, questionnairesOf(storeId), { name: 'x', questions: [{ key: 'age', required: true }] }),
        403,
        'insufficient_scope',
      );
      expectProblem(await get(key.secret, questionnairesOf(storeId)), 403, 'insufficient_scope');
      expectProblem(await get(key.secret, path), 403, 'insufficient_scope');
      expectProblem(await patch(key.secret, path, { name: 'Hijacked' }), 403, 'insufficient_scope');
      expectProblem(await del(key.secret, path), 403, 'insufficient_scope');
      expect(await read(admin.secret, storeId, questionnaire.id)).toEqual(questionnaire);
    });

    it('refuses a store-bound key on another store with 403 store_forbidden', async () => {
      const { admin, storeId } = await createTenant(t);
      const sibling = await createStore(t, admin.secret);
      const other = await createTenant(t);
      const theirs = await createQuestionnaire(admin.secret, sibling);
      const foreign = await createQuestionnaire(other.admin.secret, other.storeId);
      const key = await issueKey(t, admin.secret, { scopes: ['fit'], store_id: storeId });
      for (const path of [
        questionnairesOf(sibling),
        `${questionnairesOf(sibling)}/${theirs.id}`,
        `${questionnairesOf(other.storeId)}/${foreign.id}`,
      ]) {
        expectProblem(await get(key.secret, path), 403, 'store_forbidden');
      }
      expectProblem(await patch(key.secret, `${questionnairesOf(sibling)}/${theirs.id}`, { default: true }), 403, 'store_forbidden');
      expectProblem(await del(key.secret, `${questionnairesOf(sibling)}/${theirs.id}`), 403, 'store_forbidden');
      expectProblem(
        await post(key.secret, questionnairesOf(sibling), { name: 'x', questions: [{ key: 'age', required: true }] }),
        403,
        'store_forbidden',
      );
      expect(await read(admin.secret, sibling, theirs.id)).toEqual(theirs);
    });

    it('answers another merchant’s questionnaire, or one of another store, with 404 and leaves it alone', async () => {
      const mine = await createTenant(t);
      const other = await createTenant(t);
      const sibling = await createStore(t, mine.admin.secret);
      const foreign = await createQuestionnaire(other.admin.secret, other.storeId);
      const siblings = await createQuestionnaire(mine.admin.secret, sibling);
      const missing = await get(mine.admin.secret, `${questionnairesOf(mine.storeId)}/${MISSING_ID}`);
      expectProblem(missing, 404, 'not_found');
      for (const path of [
        `${questionnairesOf(mine.storeId)}/${foreign.id}`,
        `${questionnairesOf(mine.storeId)}/${siblings.id}`,
        `${questionnairesOf(other.storeId)}/${foreign.id}`,
      ]) {
        const response = await get(mine.admin.secret, path);
        expectProblem(response, 404, 'not_found');
        if (path.startsWith(questionnairesOf(mine.storeId))) expect(response.body.detail).toBe(missing.body.detail);
        expectProblem(await get(mine.admin.secret, `${path}?version=1`), 404, 'not_found');
        expectProblem(await patch(mine.admin.secret, path, { name: 'Hijacked', default: true }), 404, 'not_found');
        expectProblem(await del(mine.admin.secret, path), 404, 'not_found');
      }
      expectProblem(await get(mine.admin.secret, questionnairesOf(other.storeId)), 404, 'not_found');
      expect(await read(other.admin.secret, other.storeId, foreign.id)).toEqual(foreign);
      expect(await read(mine.admin.secret, sibling, siblings.id)).toEqual(siblings);
    });

    it('answers ids that are not ids with 404', async () => {
      const { admin, storeId } = await createTenant(t);
      for (const id of ['not-an-id', MISSING_ID.toUpperCase(), '1']) {
        const path = `${questionnairesOf(storeId)}/${id}`;
        expectProblem(await get(admin.secret, path), 404, 'not_found');
        expectProblem(await patch(admin.secret, path, { name: 'x' }), 404, 'not_found');
        expectProblem(await del(admin.secret, path), 404, 'not_found');
      }
    });

    it('refuses calls without a key with 401', async () => {
      const { storeId } = await createTenant(t);
      expectProblem(await t.http().get(questionnairesOf(storeId)), 401, 'unauthenticated');
    });
  });
});
