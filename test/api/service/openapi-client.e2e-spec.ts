/**
 * A client generated from the served document by openapi-typescript with its default options (what an integrator
 * runs first) lets a request leave out every field the service defaults: the requests of the README's first steps,
 * written with only the fields they need, type-check against it under `strict`.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { useApp } from '../../support/app.js';

/** Requests without `currency`, `unit_system`, `fit_adjustment`, `default` or `quantity`. */
const REQUESTS = `
import type { components } from './schema';
type Body<Name extends keyof components['schemas']> = components['schemas'][Name];
export const store: Body<'CreateStoreRequest'> = { name: 'Acme EU' };
export const product: Body<'CreateProductRequest'> = { title: 'Crew tee', product_type_id: 't', size_chart_id: 'c' };
export const questionnaire: Body<'CreateQuestionnaireRequest'> = { name: 'Tops', questions: [{ key: 'height', required: true }] };
export const event: Body<'EventRequest'> = {
  source: 'shop',
  external_id: 'purchase-1001-1',
  type: 'purchase',
  occurred_at: '2026-11-21T09:18:03.250Z',
};
`;

/** The diagnostics of type-checking `files`, written to a temporary folder, under strict options. */
function typeCheck(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'size-fit-client-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
    };
    const program = ts.createProgram([join(dir, 'requests.ts')], options);
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a client generated with default options', () => {
  const t = useApp();

  it('lets requests leave out the fields the service defaults', async () => {
    const document = (await t.http().get('/openapi.json')).body;
    const schema = astToString(await openapiTS(document));
    // the generator's default: a property with a `default` in a named schema comes out required
    expect(schema).toMatch(/unit_system\?: /);
    expect(typeCheck({ 'schema.ts': schema, 'requests.ts': REQUESTS })).toEqual([]);
    // and the check does fail on a request that leaves out what is required
    expect(typeCheck({ 'schema.ts': schema, 'requests.ts': `${REQUESTS}\nexport const bad: Body<'CreateStoreRequest'> = {};\n` })).toEqual([
      expect.stringContaining("Property 'name' is missing"),
    ]);
  }, 60_000);

  it('says each default in the description instead', async () => {
    const document = (await t.http().get('/openapi.json')).body;
    const schemas = document.components.schemas as Record<
      string,
      { properties?: Record<string, { default?: unknown; description?: string }> }
    >;
    expect(schemas.CreateStoreRequest.properties?.unit_system).not.toHaveProperty('default');
    expect(schemas.CreateStoreRequest.properties?.unit_system?.description).toContain('Default: `"metric"`.');
    expect(schemas.EventRequest.properties?.quantity?.description).toContain('Default: `1`.');
  });
});
