/**
 * The contract audit can fail: its check, fed answers the document does not allow, names each one, and passes the
 * answers it does allow. First on a small document of its own, then on the document the service serves.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { servedDocument } from '../../support/contract-document.js';
import { type Answer, type ContractDocument, contractViolations } from '../../support/contract-violations.js';

const ID = '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';
const WHEN = '2026-01-02T03:04:05.000Z';

const problem = (status: number, code: string) => ({ type: `/problems/${code}`, title: 'Title', status, code, request_id: ID });

describe('contract check on a small document', () => {
  const document: ContractDocument = {
    paths: {
      '/v1/things/{id}': {
        get: {
          responses: {
            '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '404': {
              content: {
                'application/problem+json': {
                  schema: { $ref: '#/components/schemas/Problem' },
                  examples: { not_found: { value: problem(404, 'not_found') } },
                },
              },
            },
          },
        },
      },
      '/v1/things/batch': {
        get: { responses: { '200': { content: { 'application/json': { schema: { type: 'array' } } } } } },
      },
      '/v1/things': {
        post: {
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['kind'],
                  properties: { kind: { type: 'string', enum: ['a', 'b'] } },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: {
            '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '400': { content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'kind', 'at'],
          properties: {
            id: { type: 'string' },
            kind: { type: 'string', enum: ['a', 'b', null], nullable: true },
            at: { type: 'string', format: 'date-time' },
          },
        },
        Problem: {
          type: 'object',
          required: ['status', 'code'],
          properties: { status: { type: 'integer' }, code: { type: 'string' } },
        },
      },
    },
  };
  const answer = (status: number, body: unknown, type = 'application/json', path = `/v1/things/${ID}`): Answer => ({
    method: 'get',
    path,
    status,
    type,
    body,
  });

  it('passes answers the document allows', () => {
    expect(
      contractViolations(document, [
        answer(200, { id: ID, kind: 'a', at: WHEN }),
        answer(200, { id: ID, kind: null, at: WHEN }),
        answer(404, problem(404, 'not_found'), 'application/problem+json'),
        // The literal route wins over the placeholder: an array is right for it.
        answer(200, [], 'application/json', '/v1/things/batch'),
        // No operation has this address: not the audit's business.
        answer(418, 'teapot', 'text/plain', '/v1/elsewhere'),
      ]),
    ).toEqual([]);
  });

  it('names each request body the service took that the document does not allow, and passes those it refused', () => {
    const created = (request: unknown): Answer => ({
      method: 'post',
      path: '/v1/things',
      status: 201,
      type: 'application/json',
      body: { id: ID, kind: 'a', at: WHEN },
      request,
    });
    const refused: Answer = {
      ...created({ kind: 'c' }),
      status: 400,
      type: 'application/problem+json',
      body: problem(400, 'validation_failed'),
    };
    expect(contractViolations(document, [created({ kind: 'a' }), refused])).toEqual([]);
    expect(contractViolations(document, [created({ kind: 'c' }), created({ kind: 'a', extra: 1 }), created({})])).toEqual([
      'POST /v1/things → 201: request (body) must NOT have additional properties',
      "POST /v1/things → 201: request (body) must have required property 'kind'",
      'POST /v1/things → 201: request /kind must be equal to one of the allowed values',
    ]);
  });

  it('names each answer the document does not allow', () => {
    expect(
      contractViolations(document, [
        answer(200, { id: ID, kind: 'c', at: WHEN }),
        answer(200, { id: ID, kind: 'a', at: 'yesterday' }),
        answer(200, { id: ID, kind: 'a' }),
        answer(409, problem(409, 'duplicate'), 'application/problem+json'),
        answer(404, problem(404, 'gone'), 'application/problem+json'),
        answer(404, 'Not Found', 'text/html'),
      ]),
    ).toEqual([
      "GET /v1/things/{id} → 200: (body) must have required property 'at'",
      'GET /v1/things/{id} → 200: /at must match format "date-time"',
      'GET /v1/things/{id} → 200: /kind must be equal to one of the allowed values',
      'GET /v1/things/{id} → 404: code `gone` not documented',
      'GET /v1/things/{id} → 404: text/html not documented',
      'GET /v1/things/{id} → 409: status not documented',
    ]);
  });
});

describe('contract check on the served document', () => {
  let document: ContractDocument;
  beforeAll(async () => {
    document = (await servedDocument()) as ContractDocument;
  });

  const store = { id: ID, name: 'Shop', currency: 'EUR', unit_system: 'metric', platform: null, platform_shop: null, created_at: WHEN };
  const session = {
    id: ID,
    store_id: ID,
    product_id: ID,
    questionnaire_id: null,
    questionnaire_version: null,
    questions: [{ key: 'height', required: true }],
    state: 'started',
    outcome: null,
    answers: null,
    recommendation: null,
    decision: null,
    created_at: WHEN,
    updated_at: WHEN,
  };
  const get = (path: string, status: number, body: unknown, type = 'application/json'): Answer => ({
    method: 'get',
    path,
    status,
    type,
    body,
  });

  it('passes a store without a platform and a session not yet answered', () => {
    expect(
      contractViolations(document, [
        get(`/v1/stores/${ID}`, 200, store),
        get(`/v1/stores/${ID}/sessions/${ID}`, 200, session),
        get(`/v1/stores/${ID}/sessions/${ID}`, 200, {
          ...session,
          state: 'recommended',
          answers: { height: { value: 178, unit: 'cm' }, age: 34, sex: 'male', 'custom:likes_loose': true },
        }),
        get(`/v1/stores/${ID}/sessions/${ID}`, 404, { ...problem(404, 'not_found'), title: 'Not found' }, 'application/problem+json'),
      ]),
    ).toEqual([]);
  });

  it('names what breaks the document', () => {
    expect(
      contractViolations(document, [
        get(`/v1/stores/${ID}`, 200, { ...store, platform: 'etsy' }),
        get(`/v1/stores/${ID}/sessions/${ID}`, 200, { ...session, recommendation: 'M' }),
        get(`/v1/stores/${ID}/sessions/${ID}`, 200, { ...session, answers: { height: { value: 178 } } }),
        get(`/v1/stores/${ID}/sessions/${ID}`, 409, problem(409, 'session_state_conflict'), 'application/problem+json'),
        get(`/v1/stores/${ID}`, 403, problem(403, 'cannot_revoke_self'), 'application/problem+json'),
      ]),
    ).toEqual(
      expect.arrayContaining([
        'GET /v1/stores/{store_id} → 200: /platform must be equal to one of the allowed values',
        'GET /v1/stores/{store_id} → 403: code `cannot_revoke_self` not documented',
        'GET /v1/stores/{store_id}/sessions/{id} → 200: /recommendation must match exactly one schema in oneOf',
        "GET /v1/stores/{store_id}/sessions/{id} → 200: /answers/height must have required property 'unit'",
        'GET /v1/stores/{store_id}/sessions/{id} → 409: status not documented',
      ]),
    );
  });
});
