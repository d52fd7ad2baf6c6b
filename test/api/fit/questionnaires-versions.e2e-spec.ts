/** Questionnaires e2e: versions — what makes a new one, reading earlier ones, and refused changes. */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createTenant, expectErrors, expectProblem, TIMESTAMP } from '../../support/fixtures.js';
import { questionnaireRequests } from '../../support/questionnaire-fixtures.js';

describe('questionnaires', () => {
  const t = useApp();
  const { questionnairesOf, get, patch, createQuestionnaire, read } = questionnaireRequests(t);

  describe('versions', () => {
    it('makes a new version when the name or the questions change, and keeps every earlier one readable', async () => {
      const { admin, storeId } = await createTenant(t);
      const v1 = await createQuestionnaire(admin.secret, storeId, { name: 'Quiz' });
      const path = `${questionnairesOf(storeId)}/${v1.id}`;

      const v2 = await patch(admin.secret, path, { name: 'Quiz, renamed' });
      expect(v2.status).toBe(200);
      expect(v2.body).toEqual({ ...v1, name: 'Quiz, renamed', version: 2, updated_at: expect.stringMatching(TIMESTAMP) });

      const questions = [
        { key: 'height', required: true },
        { key: 'chest', required: false },
      ];
      const v3 = await patch(admin.secret, path, { questions });
      expect(v3.body).toMatchObject({ name: 'Quiz, renamed', version: 3, questions });

      const v4 = await patch(admin.secret, path, { name: 'Quiz 4', questions: v1.questions });
      expect(v4.body).toMatchObject({ name: 'Quiz 4', version: 4, questions: v1.questions });

      expect((await get(admin.secret, `${path}?version=1`)).body).toMatchObject({
        id: v1.id,
        name: 'Quiz',
        version: 1,
        questions: v1.questions,
      });
      expect((await get(admin.secret, `${path}?version=2`)).body).toMatchObject({
        name: 'Quiz, renamed',
        version: 2,
        questions: v1.questions,
      });
      expect((await get(admin.secret, `${path}?version=3`)).body).toMatchObject({ name: 'Quiz, renamed', version: 3, questions });
      expect((await get(admin.secret, `${path}?version=4`)).body).toEqual((await get(admin.secret, path)).body);
      expect((await get(admin.secret, path)).body).toMatchObject({ version: 4, name: 'Quiz 4' });
    });

    it('does not make a new version for a PATCH that changes only default, or nothing', async () => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      const made = await patch(admin.secret, path, { default: true });
      expect(made.status).toBe(200);
      expect(made.body).toMatchObject({ version: 1, default: true });
      const same = await patch(admin.secret, path, { name: questionnaire.name, questions: questionnaire.questions });
      expect(same.body).toMatchObject({ version: 1, default: true });
      const empty = await patch(admin.secret, path, {});
      expect(empty.body).toMatchObject({ version: 1, default: true });
      const unmade = await patch(admin.secret, path, { default: false });
      expect(unmade.body).toMatchObject({ version: 1, default: false });
      expectProblem(await get(admin.secret, `${path}?version=2`), 404, 'not_found');
    });

    it('does not make a new version for the same questions sent with their fields in another order', async () => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      const reordered = questionnaire.questions.map(({ key, required }) => ({ required, key }));
      const response = await patch(admin.secret, path, { questions: reordered });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ version: 1, questions: questionnaire.questions });
    });

    it.each([
      ['version=99', 404],
      ['version=0', 400],
      ['version=-1', 400],
      ['version=1.5', 400],
      ['version=latest', 400],
      ['version=0x1', 400],
      ['version=1e0', 400],
    ])('answers ?%s with %i', async (query, status) => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const response = await get(admin.secret, `${questionnairesOf(storeId)}/${questionnaire.id}?${query}`);
      if (status === 404) expectProblem(response, 404, 'not_found');
      else expectErrors(response, { version: undefined });
    });

    it.each([
      [
        'a duplicate question',
        {
          questions: [
            { key: 'age', required: true },
            { key: 'age', required: true },
          ],
        },
        { 'questions[1].key': 'duplicate_question' },
      ],
      ['an unknown question', { questions: [{ key: 'mood', required: true }] }, { 'questions[0].key': 'unknown_question' }],
      ['no questions', { questions: [] }, { questions: 'must_not_be_empty' }],
      ['null questions', { questions: null }, { questions: 'must_be_array' }],
      ['a null name', { name: null }, { name: undefined }],
      ['a version', { version: 5 }, { version: 'unknown_field' }],
    ])('refuses a PATCH with %s and changes nothing', async (_, body, errors) => {
      const { admin, storeId } = await createTenant(t);
      const questionnaire = await createQuestionnaire(admin.secret, storeId);
      const path = `${questionnairesOf(storeId)}/${questionnaire.id}`;
      expectErrors(await patch(admin.secret, path, body), errors);
      expect(await read(admin.secret, storeId, questionnaire.id)).toEqual(questionnaire);
      expectProblem(await get(admin.secret, `${path}?version=2`), 404, 'not_found');
    });
  });
});
