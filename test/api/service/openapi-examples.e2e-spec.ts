/**
 * Every /v1 operation of the served document shows a realistic example of its JSON request body and of each 2xx JSON
 * answer: an example can be built from the `example` values of its schema (every required property has one, directly
 * or through its own schema), and that example is valid against the schema it documents. First on a small document
 * of its own (so the check can fail), then on the document the service serves at /openapi.json.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { bearer, useApp } from '../../support/app.js';
import { createTenant } from '../../support/fixtures.js';

type Schema = Record<string, unknown>;
interface MediaType {
  readonly schema?: Schema;
}
interface Operation {
  readonly requestBody?: { content?: Record<string, MediaType> };
  readonly responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, Schema> };
}

/** What `exampleOf` could build, and the property paths where it found no example. */
interface Built {
  readonly value: unknown;
  readonly missing: readonly string[];
}

/**
 * The example a schema shows: its own `example`, else one built from its parts — a `$ref`'s target, the merge of an
 * `allOf`, the first member of a `oneOf`/`anyOf`, one item of an array, and an object's properties (every required
 * one must give an example; an optional one joins when it gives one).
 */
export function exampleOf(document: Document, schema: Schema, path = '(body)', seen: readonly string[] = []): Built {
  if ('example' in schema) return { value: schema.example, missing: [] };
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = document.components.schemas[name];
    if (!target) return { value: undefined, missing: [`${path}: $ref ${schema.$ref} not found`] };
    // A model that holds itself must show an example of its own before that.
    if (seen.includes(name)) return { value: undefined, missing: [`${path}: recursive ${name} without an example`] };
    return exampleOf(document, target, path, [...seen, name]);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((part) => exampleOf(document, part, path, seen));
    const missing = parts.flatMap((part) => part.missing);
    const values = parts.map((part) => part.value);
    const merged = values.every((value) => value !== null && typeof value === 'object' && !Array.isArray(value))
      ? Object.assign({}, ...(values as object[]))
      : values[0];
    return { value: merged, missing };
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[key])) return exampleOf(document, (schema[key] as Schema[])[0], path, seen);
  }
  if (schema.type === 'array') {
    if (!schema.items) return { value: undefined, missing: [`${path}: array without items`] };
    const item = exampleOf(document, schema.items as Schema, `${path}[]`, seen);
    return { value: item.missing.length ? undefined : [item.value], missing: item.missing };
  }
  if (schema.properties) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const value: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const [name, property] of Object.entries(schema.properties as Record<string, Schema>)) {
      const built = exampleOf(document, property, path === '(body)' ? name : `${path}.${name}`, seen);
      if (built.missing.length === 0) value[name] = built.value;
      else if (required.has(name)) missing.push(...built.missing);
    }
    return { value, missing };
  }
  return { value: undefined, missing: [`${path}: no example`] };
}

/** Validates a value against a schema of the document as the contract audit does (formats checked, `nullable` read). */
function validatorOf(document: Document) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components }, 'document');
  return (schema: Schema, value: unknown): string[] => {
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/')));
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message}`);
  };
}

/** One line per JSON body of a /v1 operation without a full example, or with an example its schema refuses. */
export function exampleProblems(document: Document): string[] {
  const validate = validatorOf(document);
  const problems: string[] = [];
  const check = (where: string, media: MediaType | undefined) => {
    if (!media?.schema) return void problems.push(`${where}: no schema`);
    const built = exampleOf(document, media.schema);
    if (built.missing.length) return void problems.push(...built.missing.map((line) => `${where}: ${line}`));
    problems.push(...validate(media.schema, built.value).map((line) => `${where}: example ${line}`));
  };
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (operation.requestBody) check(`${where} (request)`, operation.requestBody.content?.['application/json']);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^2\d\d$/.test(status) || !response.content) continue;
        for (const [type, media] of Object.entries(response.content)) {
          if (/\bjson\b/.test(type)) check(`${where} → ${status}`, media);
        }
      }
    }
  }
  return problems;
}

const ID = '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';

describe('example check on a small document', () => {
  const thing = (overrides: Record<string, Schema> = {}): Schema => ({
    type: 'object',
    required: ['id', 'kind', 'tags'],
    properties: {
      id: { type: 'string', format: 'uuid', example: ID },
      kind: { type: 'string', enum: ['a', 'b'], example: 'a' },
      tags: { type: 'array', items: { type: 'string', example: 'red' } },
      note: { type: 'string' },
      ...overrides,
    },
  });
  const document = (schema: Schema, request?: Schema): Document => ({
    paths: {
      '/v1/things': {
        post: {
          ...(request ? { requestBody: { content: { 'application/json': { schema: request } } } } : {}),
          responses: {
            '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '204': {},
            '400': { content: { 'application/problem+json': { schema: { type: 'object' } } } },
          },
        },
      },
      '/health': { get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object' } } } } } } },
    },
    components: { schemas: { Thing: schema, Other: { type: 'object', properties: { thing: { $ref: '#/components/schemas/Thing' } } } } },
  });

  it('builds an example from the parts of a schema', () => {
    const built = exampleOf(document(thing()), {
      allOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'object', properties: { n: { type: 'integer', example: 3 } } }],
    });
    expect(built).toEqual({ value: { id: ID, kind: 'a', tags: ['red'], n: 3 }, missing: [] });
  });

  it('passes a document whose bodies all have valid examples', () => {
    expect(exampleProblems(document(thing(), { oneOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'string' }] }))).toEqual([]);
  });

  it('names each property without an example, and each example its schema refuses', () => {
    expect(
      exampleProblems(
        document(thing({ kind: { type: 'string', enum: ['a', 'b'], example: 'c' }, tags: { type: 'array', items: { type: 'string' } } }), {
          type: 'object',
          required: ['thing', 'at'],
          properties: {
            thing: { $ref: '#/components/schemas/Thing' },
            at: { type: 'string', format: 'date-time', example: 'yesterday' },
          },
        }),
      ),
    ).toEqual(['POST /v1/things (request): thing.tags[]: no example', 'POST /v1/things → 201: tags[]: no example']);
    expect(exampleProblems(document(thing({ kind: { type: 'string', enum: ['a', 'b'], example: 'c' } })))).toEqual([
      'POST /v1/things → 201: example /kind must be equal to one of the allowed values',
    ]);
    expect(
      exampleProblems(
        document(thing(), { type: 'object', properties: { at: { type: 'string', format: 'date-time', example: 'yesterday' } } }),
      ),
    ).toEqual(['POST /v1/things (request): example /at must match format "date-time"']);
  });
});

describe('examples of the served document', () => {
  const t = useApp();
  let document: Document;
  beforeAll(async () => {
    const response = await t.http().get('/openapi.json').expect(200);
    document = response.body as Document;
  });

  it('checks every /v1 operation', () => {
    const operations = Object.entries(document.paths).filter(([path]) => path.startsWith('/v1/'));
    expect(operations.length).toBeGreaterThan(20);
  });

  it('gives every JSON request body and 2xx answer of /v1 a full example its schema accepts', () => {
    expect(exampleProblems(document)).toEqual([]);
  });

  it('shows a key just issued as the service answers it: never used yet', async () => {
    const { admin, storeId } = await createTenant(t);
    const issued = await t
      .http()
      .post('/v1/api-keys')
      .set(bearer(admin.secret))
      .send({ name: 'Checkout backend', store_id: storeId, scopes: ['events'] });
    expect(issued.status).toBe(201);
    expect(issued.body.last_used_at).toBeNull();
    const built = exampleOf(document, { $ref: '#/components/schemas/CreatedApiKeyResponse' });
    expect((built.value as { last_used_at: unknown }).last_used_at).toBeNull();
  });

  it('shows in each 400 example a field error the operation can give: a required field of its body, an unknown one, or a key in the URL', () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(document.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, operation] of Object.entries(item)) {
        const examples = (operation.responses['400']?.content?.['application/problem+json'] as { examples?: Record<string, unknown> })
          ?.examples as Record<string, { value: { errors?: { field: string; code: string }[] } }> | undefined;
        const error = examples?.validation_failed?.value.errors?.[0];
        if (!error) continue;
        const ref = operation.requestBody?.content?.['application/json']?.schema?.$ref;
        const body = typeof ref === 'string' ? document.components.schemas[ref.replace('#/components/schemas/', '')] : undefined;
        const required = (body?.required as string[] | undefined) ?? [];
        const known = [
          ...Object.keys((body?.properties as Schema | undefined) ?? {}),
          ...((operation as { parameters?: { name: string }[] }).parameters ?? []).map((parameter) => parameter.name),
        ];
        // an unknown field only where the operation reads a body or a query string: the others ignore what they do not read
        const reads =
          operation.requestBody !== undefined || (operation as { parameters?: { in: string }[] }).parameters?.some((p) => p.in === 'query');
        const real =
          error.code === 'required'
            ? required.includes(error.field)
            : error.code === 'unknown_field'
              ? reads === true && !known.includes(error.field)
              : error.code === 'credentials_not_allowed_here' && error.field === 'access_token';
        if (!real) wrong.push(`${method.toUpperCase()} ${path}: ${error.field} ${error.code}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
