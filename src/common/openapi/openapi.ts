import type { INestApplication } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PROBLEMS } from '../problems/problem-catalog.js';

class ProblemFieldError {
  @ApiProperty({ example: 'expires_at' })
  field: string;

  @ApiProperty({ example: 'too_far_in_future', description: 'Stable, snake_case.' })
  code: string;

  @ApiProperty()
  message: string;
}

class ProblemDetails {
  @ApiProperty({ example: '/problems/validation_failed', description: 'A page of this service that explains `code`.' })
  type: string;

  @ApiProperty({ example: 'Validation failed' })
  title: string;

  @ApiProperty({ example: 400 })
  status: number;

  @ApiPropertyOptional({ description: 'For people; never branch on it.' })
  detail?: string;

  @ApiProperty({ enum: Object.keys(PROBLEMS), description: 'Stable; branch on `status` and `code`.' })
  code: string;

  @ApiProperty({ description: 'Equals the Request-Id response header.' })
  request_id: string;

  @ApiPropertyOptional({ type: [ProblemFieldError], description: 'One entry per offending field (400 only).' })
  errors?: ProblemFieldError[];
}

const PROBLEM_REF = { $ref: '#/components/schemas/ProblemDetails' };
const COMMON_ERRORS: Record<string, string> = {
  '400': 'Malformed JSON, an unknown field or a field that breaks a rule (`invalid_json`, `validation_failed`).',
  '429': 'Rate limited (`rate_limited`); see `Retry-After`.',
  '503': 'The database is unreachable (`unavailable`).',
};
const BODY_ERRORS: Record<string, string> = {
  '413': 'Body over 64 KiB (`payload_too_large`).',
  '415': 'Body not sent as `application/json` (`unsupported_media_type`).',
};

const TAGS: Record<string, string> = {
  Merchants: 'Merchants and their first admin key (operator bootstrap key).',
  'API keys': 'The merchant’s keys: issue, list, revoke. Secrets are shown once.',
  'Console accounts': 'Who can sign in to the merchant’s seller console.',
  Stores: 'The merchant’s stores.',
  Catalog: 'A store’s product types, size charts, products and variants.',
  Fit: 'Questionnaires and fit sessions: answers in, a recommended size with its confidence out, then the decision.',
  Events: 'Storefront and order events (purchases, returns, exchanges, kept items), deduplicated by source and external_id.',
  Metrics: 'Descriptive cohort metrics of a store’s fit sessions, in total and per UTC day.',
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
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'sfo_ key', description: 'The operator bootstrap key (sfo_…)' }, 'operator')
      .build(),
    { extraModels: [ProblemDetails, ProblemFieldError] },
  );
  documentProblems(document);
  documentOperations(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

/** Every error answer of a /v1 operation is a problem-details body; list the ones any operation can give. */
function documentProblems(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of [item.get, item.post, item.patch, item.put, item.delete]) {
      if (!operation) continue;
      const errors = { ...COMMON_ERRORS, ...(operation.requestBody ? BODY_ERRORS : {}) };
      for (const [status, description] of Object.entries(errors)) {
        operation.responses[status] ??= { description };
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (response && Number(status) >= 400 && !('$ref' in response)) {
          response.content = { 'application/problem+json': { schema: PROBLEM_REF } };
        }
      }
    }
  }
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
