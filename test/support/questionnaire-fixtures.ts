import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, type TestApp } from './app.js';
import type { Tenant } from './fixtures.js';

/** A questionnaire as the API answers it. */
export interface QuestionnaireBody {
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

/** The questions a session asks when neither it nor the store names a questionnaire. */
export { DEFAULT_QUESTIONS as BUILT_IN_QUESTIONS } from './session-fixtures.js';

/**
 * Concurrent requests are repeated: on PostgreSQL they really run side by side, and a race shows in a few rounds.
 * The embedded database runs one transaction at a time, so one round is all it needs.
 */
export const ROUNDS = process.env.DATABASE_URL ? 5 : 1;

/** `201`, `409:in_use`, `400:questionnaire_id/not_found`: what a client would branch on. */
export const outcome = (response: Response): string => {
  if (response.status === 400) {
    return `400:${(response.body.errors as { field: string; code: string }[]).map((e) => `${e.field}/${e.code}`).join(',')}`;
  }
  return response.body?.code ? `${response.status}:${response.body.code}` : String(response.status);
};

/**
 * The questionnaire tests' requests on the app `t`, each with a key: `questionnairesOf(storeId)` is the store's
 * collection, `get`/`post`/`patch`/`del` send one request, `createQuestionnaire` and `read` expect success, and
 * `startSession` starts a fit session with the tenant's admin key. Call it in a `describe` block; use what it returns
 * in tests.
 */
export function questionnaireRequests(t: TestApp) {
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

  async function startSession(tenant: Tenant, body: Record<string, unknown>): Promise<Response> {
    return post(tenant.admin.secret, `/v1/stores/${tenant.storeId}/sessions`, body);
  }

  return { questionnairesOf, get, post, patch, del, createQuestionnaire, read, startSession };
}
