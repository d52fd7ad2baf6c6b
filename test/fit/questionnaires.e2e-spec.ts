import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, useApp } from '../support/app.js';
import { createProduct } from '../support/catalog-fixtures.js';
import { createStore, createTenant, expectErrors, expectProblem, issueKey, type Tenant, MISSING_ID } from '../support/fixtures.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ZONES = ['chest', 'waist', 'hip', 'inseam', 'neck', 'sleeve', 'foot_length', 'head', 'thigh'];
const BUILT_IN_QUESTIONS = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'age', required: false },
  { key: 'sex', required: false },
  { key: 'fit_preference', required: false },
];

interface QuestionnaireBody {
  id: string;
  store_id: string;
  name: string;
  version: number;
  questions: { key: string; required: boolean }[];
  default: boolean;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

describe('questionnaires', () => {
  const t = useApp();

  const questionnairesOf = (storeId: string) => `/v1/stores/${storeId}/questionnaires`;
  const get = (secret: string, path: string) => t.http().get(path).set(bearer(secret));
  const post = (secret: string, path: string, body: object) => t.http().post(path).set(bearer(secret)).send(body);
  const patch = (secret: string, path: string, body: object) => t.http().patch(path).set(bearer(secret)).send(body);
  const del = (secret: string, path: string) => t.http().delete(path).set(bearer(secret));

  async function createQuestionnaire(secret: string, storeId: string, body: Record<string, unknown> = {}): Promise<QuestionnaireBody> {
    const response = await post(secret, questionnairesOf(storeId), {
      name: 'Tops quiz',
      questions: [
        { key: 'height', required: true },
        { key: 'weight', required: true },
      ],
      ...body,
    });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return response.body as QuestionnaireBody;
  }

  const read = async (secret: string, storeId: string, id: string): Promise<QuestionnaireBody> => {
    const response = await get(secret, `${questionnairesOf(storeId)}/${id}`);
    expect(response.status).toBe(200);
    return response.body as QuestionnaireBody;
  };

  /**
   * Concurrent requests are repeated: on PostgreSQL they really run side by side, and a race shows in a few rounds.
   * The embedded database runs one transaction at a time, so one round is all it needs.
   */
  const ROUNDS = process.env.DATABASE_URL ? 5 : 1;

  /** `201`, `409:in_use`, `400:questionnaire_id/not_found`: what a client would branch on. */
  const outcome = (response: Response): string => {
    if (response.status === 400) {
      return `400:${(response.body.errors as { field: string; code: string }[]).map((e) => `${e.field}/${e.code}`).join(',')}`;
    }
    return response.body?.code ? `${response.status}:${response.body.code}` : String(response.status);
  };

  /** The outcomes of a race: one of the orders the requests could have run in. */
  function expectOneOf(seen: string[], allowed: string[][]): void {
    expect(seen).toEqual(allowed.find((one) => one.join() === seen.join()) ?? allowed);
  }

  async function startSession(tenant: Tenant, body: Record<string, unknown>): Promise<Response> {
    return post(tenant.admin.secret, `/v1/stores/${tenant.storeId}/sessions`, body);
  }

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
      ['questions left out', { questions: undefined }, { questions: 'must_be_array' }],
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
        questions: [{ key: 'custom:brand', required: true }],
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
