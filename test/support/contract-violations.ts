/**
 * The check behind contract-audit.ts, apart from its recording so that it can be tested alone: which answers the
 * OpenAPI document does not allow. An answer must have a documented status of its operation, a documented content
 * type, a body valid against that schema and, for a problem, a `code` among the examples of its status. A request
 * body the service accepted (a 2xx) must be valid against the operation's request schema: the document may not
 * refuse what the service takes (a batch, which answers 200 with a verdict per item, is judged by its items).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** One answer as a test received it. */
export interface Answer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
  /** The JSON body the request sent, if any. */
  readonly request?: unknown;
}

interface MediaType {
  readonly schema?: unknown;
  readonly examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  readonly requestBody?: { content?: Record<string, MediaType> };
  readonly responses: Record<string, { content?: Record<string, MediaType> }>;
}
/** The parts of an OpenAPI 3.0 document the check reads. */
export interface ContractDocument {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, unknown> };
}

/** The document's operations, with a pattern for their paths (a placeholder matches one segment). */
function operations(document: ContractDocument) {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method,
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: (template.match(/\{/g) ?? []).length,
      operation,
    })),
  );
}

/** One line per broken rule, sorted; none when every answer is one the document allows. */
export function contractViolations(document: ContractDocument, answers: readonly Answer[]): string[] {
  // `nullable` is OpenAPI 3.0's; Ajv reads it. Formats are checked: a date-time that is not one is a broken answer.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components }, 'document');
  const compiled = new Map<string, ValidateFunction>();
  const validator = (pointer: string, schema: unknown): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/')));
      compiled.set(pointer, validate);
    }
    return validate;
  };
  const all = operations(document);
  const broken = new Set<string>();
  for (const answer of answers) {
    // Fewer placeholders first: `/events/batch` is its own route, not `/events/{id}`.
    const match = all
      .filter((candidate) => candidate.method === answer.method && candidate.pattern.test(answer.path))
      .sort((a, b) => a.literal - b.literal)[0];
    const where = `${answer.method.toUpperCase()} ${match?.template ?? answer.path} → ${answer.status}`;
    if (!match) {
      // An address no operation has is a 404 (or 405) by the service's own rules, checked by its own tests.
      continue;
    }
    const requestSchema = match.operation.requestBody?.content?.['application/json']?.schema;
    const judgedByItem = Array.isArray((answer.body as { results?: unknown } | null)?.results);
    if (answer.status < 300 && answer.request !== undefined && requestSchema && !judgedByItem) {
      const validate = validator(`${match.template} ${answer.method} request`, requestSchema);
      if (!validate(answer.request)) {
        for (const error of validate.errors ?? [])
          broken.add(`${where}: request ${error.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '(body)'} ${error.message}`);
      }
    }
    const response = match.operation.responses[String(answer.status)];
    if (!response) {
      broken.add(`${where}: status not documented`);
      continue;
    }
    if (answer.status === 204) continue;
    const media = response.content?.[answer.type];
    if (!media?.schema) {
      broken.add(`${where}: ${answer.type || 'no content type'} not documented`);
      continue;
    }
    const validate = validator(`${match.template} ${answer.method} ${answer.status} ${answer.type}`, media.schema);
    if (!validate(answer.body)) {
      // One line per place in the schema, not per item of a list.
      for (const error of validate.errors ?? [])
        broken.add(`${where}: ${error.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '(body)'} ${error.message}`);
      continue;
    }
    // A problem's code must be one the status documents: its examples show each code it answers with.
    const code = (answer.body as { code?: unknown } | null)?.code;
    if (media.examples && typeof code === 'string') {
      const documented = Object.values(media.examples).map((example) => (example.value as { code?: unknown } | undefined)?.code);
      if (!documented.includes(code)) broken.add(`${where}: code \`${code}\` not documented`);
    }
  }
  return [...broken].sort();
}
