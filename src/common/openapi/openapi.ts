import type { INestApplication } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { isProblemCode, PROBLEMS, type ProblemCode } from '../problems/problem-catalog.js';
import { type ProblemCase, PROBLEMS_EXTENSION } from './api-problems.js';
import { EXAMPLE_ID, EXAMPLE_REQUEST_ID } from './examples.js';
import { documentRequestRules } from './request-schemas.js';

/** The extension through which the document learns that a route honours `Idempotency-Key` (`@Idempotent()`). */
export const IDEMPOTENT_EXTENSION = 'x-idempotent' as const;

class ProblemFieldError {
  @ApiProperty({ example: 'expires_at' })
  field: string;

  @ApiProperty({ example: 'too_far_in_future', description: 'Stable, snake_case.' })
  code: string;

  @ApiProperty({ example: 'expires_at must be at most one year ahead' })
  message: string;
}

class ProblemDetails {
  @ApiProperty({ example: '/problems/validation_failed', description: 'A page of this service that explains `code`.' })
  type: string;

  @ApiProperty({ example: 'Validation failed' })
  title: string;

  @ApiProperty({ type: 'integer', example: 400 })
  status: number;

  @ApiPropertyOptional({
    description: 'For people; never branch on it.',
    example: 'A field is missing, unknown or breaks a rule; errors lists each one',
  })
  detail?: string;

  @ApiProperty({ enum: Object.keys(PROBLEMS), description: 'Stable; branch on `status` and `code`.', example: 'validation_failed' })
  code: string;

  @ApiProperty({ description: 'Equals the Request-Id response header.', example: EXAMPLE_REQUEST_ID })
  request_id: string;

  @ApiPropertyOptional({
    type: [ProblemFieldError],
    description:
      'One entry per offending field: with a 400 that names fields, with a 409 `duplicate`, and with a 409 `event_conflict` (each field that differs from the recorded event).',
  })
  errors?: ProblemFieldError[];

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'With a 409 `duplicate`: the id of the resource that already has this `external_id`.',
    example: EXAMPLE_ID.product,
  })
  existing_id?: string;
}

const PROBLEM_REF = { $ref: '#/components/schemas/ProblemDetails' };

/** What every /v1 operation can answer, whatever it does: the gate, the guard, the pipes and the error filter. */
const COMMON_PROBLEMS: readonly ProblemCase[] = [
  {
    code: 'validation_failed',
    when: 'A query parameter is unknown or breaks a rule, the URL is not valid percent-encoded UTF-8, or an API key was sent outside the Authorization header',
  },
  { code: 'unauthenticated', when: 'No key, or an unknown, revoked or expired key' },
  { code: 'rate_limited', when: 'Too many requests from this key or address; see `Retry-After`' },
  { code: 'internal_error', when: 'Something failed inside the service; quote the `request_id`' },
  { code: 'unavailable', when: 'The database is unreachable, or too busy to take the request; nothing was written' },
  // Answered by the HTTP server before any route is chosen, so on every route alike.
  {
    code: 'request_timeout',
    when: 'The headers took over `HEADERS_TIMEOUT_MS`, or the whole request over `REQUEST_TIMEOUT_MS`, to arrive',
  },
  { code: 'headers_too_large', when: 'The request line and headers are over 16 KiB' },
];

/** What every operation with a request body can answer besides (a route that takes a larger body says so itself). */
const BODY_PROBLEMS: readonly ProblemCase[] = [
  { code: 'invalid_json', when: 'The body is not valid JSON, or not a JSON object' },
  { code: 'validation_failed', when: 'A field is missing, unknown or breaks a rule; `errors` lists each one' },
  { code: 'payload_too_large', when: 'The body is over 64 KiB' },
  { code: 'unsupported_media_type', when: 'The body is not sent as `application/json` (UTF-8)' },
];

const TAGS: Record<string, string> = {
  Merchants: 'Merchants and their first admin key (operator bootstrap key).',
  'API keys': 'The merchant’s keys: issue, list, revoke. Secrets are shown once.',
  'Console accounts': 'Who can sign in to the merchant’s seller console.',
  Stores: 'The merchant’s stores.',
  Catalog: 'A store’s product types, size charts, products and variants.',
  Fit:
    'Questionnaires and fit sessions: answers in, a recommended size with its confidence out, then the decision; how ' +
    'products fit, as learned from outcomes, and past orders imported to learn from.',
  Events: 'Storefront and order events (purchases, returns, exchanges, kept items), deduplicated by source and external_id.',
  Metrics: 'Descriptive cohort metrics of a store’s fit sessions, in total and per UTC day.',
  Experiments:
    'Randomized experiments of what size help changes: arms (size help, a holdout, the chart alone), shoppers’ arms ' +
    'when a product page is shown, and results with intervals that stay valid when read every day.',
};

const SUCCESS: Record<string, string> = { '200': 'OK.', '201': 'Created.', '204': 'Done; no body.' };

/** Serves `/openapi.json`, `/openapi.yaml` and `/docs`, all generated from the controllers and DTOs. */
export function setUpOpenApi(app: INestApplication, publicUrl: string): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Size-Fit API')
      .setDescription(
        'Helps shoppers pick a size and ties their choices to purchase outcomes. Every /v1 route takes ' +
          '`Authorization: Bearer <API_KEY>`; errors are RFC 9457 problem details (`application/problem+json`, ' +
          'codes at /problems).',
      )
      .setVersion('1')
      .setLicense('Proprietary', `${publicUrl}/docs`)
      .addServer(publicUrl)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'sfk_ key', description: 'A merchant API key (sfk_…)' }, 'api_key')
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'sfo_ key', description: 'The operator bootstrap key (sfo_…)' },
        'operator',
      )
      .build(),
    { extraModels: [ProblemDetails, ProblemFieldError] },
  );
  documentRequestRules(app, document);
  documentProblems(document);
  documentOperations(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

/**
 * Every error answer of a /v1 operation is a problem-details body. Each status lists the codes the operation answers
 * with under it, each with an example: the common ones, the body ones, and the route's own (`@ApiProblems`) after
 * what the access decorators already say. A description naming a code under another status is a mistake.
 */
function documentProblems(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of operationsOf(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const extended = operation as typeof operation & { [PROBLEMS_EXTENSION]?: ProblemCase[]; [IDEMPOTENT_EXTENSION]?: true };
      const own = [...(extended[PROBLEMS_EXTENSION] ?? []), ...(extended[IDEMPOTENT_EXTENSION] ? documentIdempotency(operation) : [])];
      delete extended[PROBLEMS_EXTENSION];
      delete extended[IDEMPOTENT_EXTENSION];
      const defaults = [...(operation.requestBody ? BODY_PROBLEMS : []), ...COMMON_PROBLEMS];
      const fieldError = exampleFieldError(document, operation);
      const statuses = new Set([...Object.keys(operation.responses), ...[...own, ...defaults].map((c) => String(PROBLEMS[c.code].status))]);
      for (const status of statuses) {
        if (Number(status) < 400) continue;
        const declared = operation.responses[status];
        if (declared && '$ref' in declared) continue;
        const stated = declared?.description ?? '';
        const named = namedCodes(stated, Number(status), where);
        const here = (c: ProblemCase) => String(PROBLEMS[c.code].status) === status;
        // The route's own cases always show; a common one only where nothing said that code yet.
        const ownHere = own.filter(here);
        const cases = [
          ...ownHere,
          ...defaults.filter((c) => here(c) && !named.includes(c.code) && !ownHere.some((o) => o.code === c.code)),
        ];
        const description = [stated, ...cases.map((c) => `${c.when} (\`${c.code}\`).`)].filter(Boolean).join(' ');
        const codes = [...new Set([...named, ...cases.map((c) => c.code)])];
        if (codes.length === 0) throw new Error(`${where} → ${status}: no problem code documented`);
        operation.responses[status] = {
          description,
          content: {
            'application/problem+json': {
              schema: PROBLEM_REF,
              examples: Object.fromEntries(
                codes.map((code) => [code, problemExample(code, cases.find((c) => c.code === code)?.when, fieldError)]),
              ),
            },
          },
        };
      }
    }
  }
}

/**
 * A route that honours `Idempotency-Key` (`@Idempotent()`): the header, the replay header on its success
 * answer, and the two 409s it adds.
 */
function documentIdempotency(operation: OpenAPIObject['paths'][string]['post'] & object): ProblemCase[] {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the same key with the same request within 24 hours answers what the first request ' +
        'answered (marked `Idempotent-Replayed: true`) and does nothing more. Keys are per credential; use a new ' +
        'UUID for each new request.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      example: '5f0c1a52-8d3e-4d1b-9a57-0d6c2c3b9e41',
    },
  ];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (Number(status) >= 300 || !response || '$ref' in response) continue;
    response.headers = {
      ...response.headers,
      'Idempotent-Replayed': {
        description: '`true` when this is the answer to an earlier request with the same `Idempotency-Key`.',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
  return [
    { code: 'idempotency_key_reused', when: 'The `Idempotency-Key` came earlier with another request' },
    { code: 'idempotency_key_in_use', when: 'The first request with this `Idempotency-Key` is still running' },
  ];
}

/** The problem codes a description names in backquotes; each must be one its status answers with. */
function namedCodes(description: string, status: number, where: string): ProblemCode[] {
  const codes = [...description.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).filter(isProblemCode);
  for (const code of codes) {
    if (PROBLEMS[code].status !== status) throw new Error(`${where} → ${status} names \`${code}\`, a ${PROBLEMS[code].status}`);
  }
  return [...new Set(codes)];
}

interface FieldErrorExample {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/**
 * One error the operation really gives: its body's first required field left out; where nothing is required (a query
 * string, a patch), an unknown field; where the operation reads neither a body nor a query string (it ignores one), a
 * key sent in the URL, which every operation refuses.
 */
function exampleFieldError(
  document: OpenAPIObject,
  operation: { requestBody?: unknown; parameters?: readonly unknown[] },
): FieldErrorExample {
  const body = operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
  const ref = body?.content?.['application/json']?.schema?.$ref;
  const schema = ref ? (document.components?.schemas?.[ref.split('/').pop() ?? ''] as { required?: string[] } | undefined) : undefined;
  const required = schema?.required?.[0];
  if (required) return { field: required, code: 'required', message: `${required} is required` };
  if (body || operation.parameters?.some((parameter) => (parameter as { in?: string }).in === 'query')) {
    return { field: 'sort', code: 'unknown_field', message: 'sort is not a known field' };
  }
  return {
    field: 'access_token',
    code: 'credentials_not_allowed_here',
    message: 'API keys are accepted only in the Authorization header, never in the URL or the body',
  };
}

/** A body as the service sends it for `code`; `validation_failed` with one offending field of the operation. */
function problemExample(code: ProblemCode, when: string | undefined, fieldError: FieldErrorExample) {
  const { status, title } = PROBLEMS[code];
  return {
    summary: title,
    value: {
      type: `/problems/${code}`,
      title,
      status,
      // The service always words a detail: the case's, else the first sentence of the code's page.
      detail: (when ?? firstSentence(PROBLEMS[code].description)).replaceAll('`', ''),
      code,
      request_id: EXAMPLE_REQUEST_ID,
      ...(code === 'validation_failed' ? { errors: [fieldError] } : {}),
    },
  };
}

const firstSentence = (text: string): string => /^.*?\.(?=\s|$)/.exec(text)?.[0] ?? text;

function operationsOf(item: OpenAPIObject['paths'][string]) {
  return (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((method) => (item[method] ? [[method, item[method]] as const] : []));
}

/**
 * What each operation needs, where Swagger UI shows it (its description, not only the `x-credential` extension), a
 * description on every answer, and every tag declared.
 */
function documentOperations(document: OpenAPIObject): void {
  const tags = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.post, item.patch, item.put, item.delete]) {
      if (!operation) continue;
      const credential = (operation as { 'x-credential'?: string })['x-credential'];
      if (credential) {
        const needs = `**Credential:** ${credential}.`;
        operation.description = operation.description ? `${operation.description}\n\n${needs}` : needs;
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response && !('$ref' in response) && !response.description) response.description = SUCCESS[status] ?? 'OK.';
      }
      for (const tag of operation.tags ?? []) tags.add(tag);
    }
  }
  document.tags = [...tags].sort().map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) }));
}
