/**
 * The document's request schemas are no looser than the service (test/support/fuzz-walk.ts for the routes and
 * their valid bodies): every request body schema, and every object written out in one, refuses fields it does not
 * list, as the service does; and for every route that takes a body, a body the service refuses for the length or
 * value of one of its fields (an empty string, one past the longest, an unknown currency, an unknown field) is one
 * the document refuses too, and one the document allows at the edge is one the service takes.
 */
import { describe, expect, it } from '@jest/globals';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { toJsonText } from '../../support/fuzz-arbitraries.js';
import { useFuzzWalk } from '../../support/fuzz-walk.js';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};
interface Document {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

/** Places in `schema` (followed through `$ref`s) where an object lists its properties without closing. */
function openObjects(document: Document, schema: Schema | undefined, at: string, seen = new Set<string>()): string[] {
  if (!schema) return [];
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return [];
    seen.add(name);
    return openObjects(document, document.components.schemas[name], name, seen);
  }
  const own = schema.properties && schema.additionalProperties !== false ? [at] : [];
  const children = [
    ...Object.entries(schema.properties ?? {}).map(([name, child]) => [`${at}.${name}`, child] as const),
    [`${at}[]`, schema.items] as const,
    [`${at}.*`, typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined] as const,
    ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].map((child) => [at, child] as const),
  ];
  return [...own, ...children.flatMap(([where, child]) => openObjects(document, child, where, seen))];
}

describe('request schemas of the served document', () => {
  const { openapi, apiRoutes, seedFor, wellFormed, exercise } = useFuzzWalk();
  const document = openapi as unknown as Document;

  const bodySchema = (path: string, method: string): Schema | undefined =>
    document.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;

  function validatorOf(schema: Schema): ValidateFunction {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ components: document.components }, 'document');
    return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/')));
  }

  it('closes every request body, and every object written out in one, to fields it does not list', () => {
    const bodies = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).flatMap((method) => (bodySchema(path, method) ? [[path, method] as const] : [])),
    );
    expect(bodies.length).toBeGreaterThan(15);
    const open = bodies.flatMap(([path, method]) => openObjects(document, bodySchema(path, method), `${method.toUpperCase()} ${path}`));
    expect([...new Set(open)]).toEqual([]);
  });

  it('states the lengths the service enforces on the strings it requires non-empty, and the same limits on create and update', () => {
    const schemas = document.components.schemas;
    for (const field of ['source', 'external_id', 'order_id', 'line_item_id']) {
      expect({ field, minLength: schemas.EventRequest.properties?.[field]?.minLength }).toEqual({ field, minLength: 1 });
    }
    for (const [name, schema] of Object.entries(schemas).filter(([n]) => n.endsWith('Request'))) {
      const property = schema.properties?.name;
      if (property) expect({ name, minLength: property.minLength }).toEqual({ name, minLength: 1 });
    }
    for (const field of ['sku', 'title', 'external_id']) {
      const limits = (schema: Schema) => [schema.properties?.[field]?.minLength, schema.properties?.[field]?.maxLength];
      expect({ field, update: limits(schemas.UpdateVariantRequest) }).toEqual({ field, update: limits(schemas.CreateVariantRequest) });
    }
  });

  it('refuses, on every route that takes a body, what the service refuses for a length, a value or an unknown field, and takes what it takes', async () => {
    const disagreements: string[] = [];
    let tried = 0;
    for (const route of apiRoutes().filter((r) => seedFor(r.route) && bodySchema(r.path, r.method))) {
      const schema = bodySchema(route.path, route.method) as Schema;
      const validate = validatorOf(schema);
      const target = schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
      const seed = seedFor(route.route) as () => Record<string, unknown>;
      const variants: [string, (body: Record<string, unknown>) => void][] = [['an unknown field', (body) => (body.zz_unknown = 1)]];
      for (const [field, property] of Object.entries(target.properties ?? {})) {
        if (property.type !== 'string') continue;
        if (property.maxLength !== undefined) {
          variants.push([
            `${field} of ${property.maxLength + 1} characters`,
            (body) => (body[field] = 'x'.repeat(property.maxLength! + 1)),
          ]);
        }
        if (property.minLength !== undefined) variants.push([`an empty ${field}`, (body) => (body[field] = '')]);
        if (field === 'currency') {
          for (const code of ['ZZZ', 'XXX', 'eur', 'JPY', 'CHF']) variants.push([`currency ${code}`, (body) => (body[field] = code)]);
        }
      }
      for (const [what, change] of variants) {
        const body = seed();
        change(body);
        const answer = await exercise(route, { ...wellFormed(route), body: Buffer.from(toJsonText(body)) });
        const serviceRefuses = answer.status === 400;
        const documentRefuses = !validate(body);
        tried++;
        if (serviceRefuses !== documentRefuses) {
          disagreements.push(
            `${route.route} with ${what}: the service ${serviceRefuses ? 'refuses' : `answers ${answer.status}`}, the document ${documentRefuses ? 'refuses' : 'allows'}`,
          );
        }
      }
    }
    expect(tried).toBeGreaterThan(40);
    expect(disagreements).toEqual([]);
  });
});
