/**
 * Questionnaires e2e: create and read — versions start at 1, the keys a questionnaire may ask, refused bodies, and
 * the list.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { createTenant, expectErrors, TIMESTAMP } from '../../support/fixtures.js';
import { type QuestionnaireBody, questionnaireRequests } from '../../support/questionnaire-fixtures.js';

const ZONES = ['chest', 'waist', 'hip', 'inseam', 'neck', 'sleeve', 'foot_length', 'head', 'thigh'];

describe('questionnaires', () => {
  const t = useApp();
  const { questionnairesOf, get, post, patch, createQuestionnaire, read } = questionnaireRequests(t);

  describe('create and read', () => {
    it('creates a questionnaire at version 1, not the default, and reads it back', async () => {
      const { admin, storeId } = await createTenant(t);
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: false },
        { key: 'custom:favourite_brand', required: false },
      ];
      const response = await post(admin.secret, questionnairesOf(storeId), { name: 'Tops quiz', questions });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        id: expect.any(String),
        store_id: storeId,
        name: 'Tops quiz',
        version: 1,
        questions,
        default: false,
        archived_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(await read(admin.secret, storeId, response.body.id)).toEqual(response.body);
    });

    it('accepts every key the engine understands and custom keys, in the order given', async () => {
      const { admin, storeId } = await createTenant(t);
      const keys = [
        'fit_preference',
        'sex',
        'age',
        'weight',
        'height',
        ...ZONES,
        'custom:a',
        'custom:shoe_size_eu_2',
        `custom:${'x'.repeat(50)}`,
      ];
      const questions = keys.map((key, i) => ({ key, required: i % 2 === 0 }));
      const questionnaire = await createQuestionnaire(admin.secret, storeId, { questions });
      expect(questionnaire.questions).toEqual(questions);
    });

    it.each([
      [
        'a key asked twice',
        {
          questions: [
            { key: 'height', required: true },
            { key: 'weight', required: true },
            { key: 'height', required: false },
          ],
        },
        { 'questions[2].key': 'duplicate_question' },
      ],
      [
        'a custom key asked twice',
        {
          questions: [
            { key: 'custom:a', required: true },
            { key: 'custom:a', required: true },
          ],
        },
        { 'questions[1].key': 'duplicate_question' },
      ],
      [
        'an unknown key',
        {
          questions: [
            { key: 'height', required: true },
            { key: 'shoe_size', required: true },
          ],
        },
        { 'questions[1].key': 'unknown_question' },
      ],
      ['a custom key in capitals', { questions: [{ key: 'custom:Brand', required: true }] }, { 'questions[0].key': 'unknown_question' }],
      [
        'a custom key with a dash',
        { questions: [{ key: 'custom:shoe-size', required: true }] },
        { 'questions[0].key': 'unknown_question' },
      ],
      ['a custom key without a name', { questions: [{ key: 'custom:', required: true }] }, { 'questions[0].key': 'unknown_question' }],
      [
        'a custom key over 50 characters',
        { questions: [{ key: `custom:${'x'.repeat(51)}`, required: true }] },
        { 'questions[0].key': 'unknown_question' },
      ],
      ['a key in capitals', { questions: [{ key: 'Height', required: true }] }, { 'questions[0].key': 'unknown_question' }],
      ['a numeric key', { questions: [{ key: 7, required: true }] }, { 'questions[0].key': 'unknown_question' }],
      ['a question without required', { questions: [{ key: 'height' }] }, { 'questions[0].required': 'must_be_boolean' }],
      ['required as a string', { questions: [{ key: 'height', required: 'yes' }] }, { 'questions[0].required': 'must_be_boolean' }],
      [
        'an unknown field in a question',
        { questions: [{ key: 'height', required: true, label: 'Height' }] },
        { 'questions[0].label': 'unknown_field' },
      ],
      ['a question that is a string', { questions: ['height'] }, { 'questions[0]': 'must_be_object' }],
      ['no questions', { questions: [] }, { questions: 'must_not_be_empty' }],
      ['questions left out', { questions: undefined }, { questions: 'required' }],
      [
        '51 questions',
        { questions: Array.from({ length: 51 }, (_, i) => ({ key: `custom:q${i}`, required: false })) },
        { questions: 'too_many_items' },
      ],
      ['a numeric name', { name: 3 }, { name: 'must_be_string' }],
      ['a blank name', { name: ' ' }, { name: undefined }],
      ['default as a string', { default: 'true' }, { default: 'must_be_boolean' }],
      ['default null', { default: null }, { default: 'must_be_boolean' }],
      ['a version', { version: 2 }, { version: 'unknown_field' }],
      ['an unknown field', { locale: 'en' }, { locale: 'unknown_field' }],
    ])('refuses %s with 400 naming the field, and creates nothing', async (_, override, errors) => {
      const { admin, storeId } = await createTenant(t);
      const body = { name: 'Quiz', questions: [{ key: 'height', required: true }], ...override };
      expectErrors(await post(admin.secret, questionnairesOf(storeId), body), errors);
      expect((await get(admin.secret, questionnairesOf(storeId))).body.data).toEqual([]);
    });

    it('reports every offending field of one body in a single 400', async () => {
      const { admin, storeId } = await createTenant(t);
      const response = await post(admin.secret, questionnairesOf(storeId), {
        name: 42,
        questions: [
          { key: 'height', required: true },
          { key: 'height', required: 'no' },
          { key: 'elbow', required: true },
        ],
        default: 'yes',
        colour: 'red',
      });
      expectErrors(response, {
        name: 'must_be_string',
        'questions[1].key': 'duplicate_question',
        'questions[1].required': 'must_be_boolean',
        'questions[2].key': 'unknown_question',
        default: 'must_be_boolean',
        colour: 'unknown_field',
      });
    });

    it('lists questionnaires newest first, each at its current version, in pages that follow next_cursor', async () => {
      const { admin, storeId } = await createTenant(t);
      const ids: string[] = [];
      for (const name of ['A', 'B', 'C']) ids.push((await createQuestionnaire(admin.secret, storeId, { name })).id);
      const [oldest, middle, newest] = ids;
      await patch(admin.secret, `${questionnairesOf(storeId)}/${oldest}`, { name: 'A2' });

      const first = await get(admin.secret, `${questionnairesOf(storeId)}?limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.data.map((q: QuestionnaireBody) => q.id)).toEqual([newest, middle]);
      expect(first.body).toMatchObject({ has_more: true, next_cursor: middle });
      const second = await get(admin.secret, `${questionnairesOf(storeId)}?limit=2&starting_after=${middle}`);
      expect(second.body.data.map((q: QuestionnaireBody) => ({ id: q.id, name: q.name, version: q.version }))).toEqual([
        { id: oldest, name: 'A2', version: 2 },
      ]);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    });
  });
});
