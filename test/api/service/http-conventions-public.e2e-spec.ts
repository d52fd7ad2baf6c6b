/** HTTP conventions e2e: the public routes — health, problem pages, the OpenAPI document and /docs. */
import { describe, expect, it } from '@jest/globals';
import { PROBLEMS } from '../../../src/common/problems/problem-catalog.js';
import { useApp } from '../../support/app.js';
import { checkProblemPagesAfterAll, problem } from '../../support/http-conventions.js';

describe('HTTP conventions', () => {
  // Before useApp(): afterAll hooks run in the order they are declared, and this one needs the app up.
  checkProblemPagesAfterAll(() => t);
  const t = useApp();

  describe('public routes', () => {
    it('answers GET /healthz and GET /readyz with 200 and no key', async () => {
      const live = await t.http().get('/healthz');
      expect(live.status).toBe(200);
      expect(live.body.status).toBe('ok');
      const ready = await t.http().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
    });

    it('serves an HTML page for every problem code', async () => {
      const codes = Object.keys(PROBLEMS) as (keyof typeof PROBLEMS)[];
      expect(codes.length).toBeGreaterThan(10);
      for (const code of codes) {
        const response = await t.http().get(`/problems/${code}`);
        expect({ code, status: response.status }).toEqual({ code, status: 200 });
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.text).toContain(code);
        expect(response.text).toContain(PROBLEMS[code].title);
        expect(response.text).toContain(String(PROBLEMS[code].status));
      }
    });

    it('lists every problem code on /problems', async () => {
      const response = await t.http().get('/problems');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      for (const code of Object.keys(PROBLEMS)) expect(response.text).toContain(`/problems/${code}`);
    });

    it('answers an unknown problem code with a 404 problem', async () => {
      problem(await t.http().get('/problems/no_such_code'), 404, 'not_found');
      problem(await t.http().get('/problems/__proto__'), 404, 'not_found');
      problem(await t.http().get('/problems/toString'), 404, 'not_found');
    });

    it('describes every /v1 route in GET /openapi.json, each with a security requirement and x-credential', async () => {
      const response = await t.http().get('/openapi.json');
      expect(response.status).toBe(200);
      const paths = response.body.paths as Record<string, Record<string, { security?: unknown[]; 'x-credential'?: unknown }>>;
      const documented = Object.entries(paths)
        .filter(([path]) => path.startsWith('/v1/'))
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
      const expected = [
        'POST /v1/merchants',
        'GET /v1/merchant',
        'POST /v1/api-keys',
        'GET /v1/api-keys',
        'DELETE /v1/api-keys/{key_id}',
        'POST /v1/stores',
        'GET /v1/stores',
        'GET /v1/stores/{store_id}',
        'PATCH /v1/stores/{store_id}',
      ];
      expect(documented).toEqual(expect.arrayContaining(expected));

      // Every route the application actually serves under /v1 is in the document.
      const router = (
        t.app.getHttpAdapter().getInstance() as { router?: { stack?: { route?: { path: unknown; methods: Record<string, boolean> } }[] } }
      ).router;
      const served = (router?.stack ?? [])
        // `/v1/*path` is the API gate, middleware that Nest mounts as a route for every method: not an operation
        .filter((layer) => typeof layer.route?.path === 'string' && layer.route.path.startsWith('/v1/') && !layer.route.path.includes('*'))
        .flatMap((layer) =>
          Object.keys(layer.route!.methods).map(
            (m) => `${m.toUpperCase()} ${(layer.route!.path as string).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`,
          ),
        );
      expect(served).toEqual(expect.arrayContaining(expected));
      expect(documented.sort()).toEqual(expect.arrayContaining(served.sort()));

      for (const [path, operations] of Object.entries(paths).filter(([p]) => p.startsWith('/v1/'))) {
        for (const [method, operation] of Object.entries(operations)) {
          const where = `${method.toUpperCase()} ${path}`;
          expect({ where, security: Array.isArray(operation.security) && operation.security.length > 0 }).toEqual({
            where,
            security: true,
          });
          expect({ where, credential: typeof operation['x-credential'] }).toEqual({ where, credential: 'string' });
        }
      }
      expect(paths['/v1/merchants'].post.security).toEqual([{ operator: [] }]);
      expect(paths['/v1/stores'].get.security).toEqual([{ api_key: [] }]);
      expect(Object.keys(response.body.components.securitySchemes).sort()).toEqual(['api_key', 'operator']);
    });

    it('documents every error answer of every /v1 operation as problem details', async () => {
      const { paths, components } = (await t.http().get('/openapi.json')).body;
      expect(components.schemas.ProblemDetails.properties.code.enum.sort()).toEqual(Object.keys(PROBLEMS).sort());
      for (const [path, item] of Object.entries(
        paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>,
      )) {
        for (const [method, operation] of Object.entries(item)) {
          const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
          expect({ path, method, statuses: errors.map(([status]) => status) }).toMatchObject({
            // 408 and 431 come from the HTTP server itself, before any route: every operation can answer them.
            statuses: expect.arrayContaining(['400', '401', '403', '408', '429', '431', '503']),
          });
          for (const [, response] of errors) {
            expect(response.content?.['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
          }
        }
      }
    });

    it('types whole-number parameters and fields as integers, so generated clients do too', async () => {
      const { paths, components } = (await t.http().get('/openapi.json')).body as {
        paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: { type?: string } }[] }>>;
        components: { schemas: Record<string, { properties: Record<string, { type?: string }> }> };
      };
      const parameters = Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? []));
      const named = (name: string) => parameters.filter((p) => p.in === 'query' && p.name === name);
      expect(named('limit').length).toBeGreaterThan(5);
      expect(named('version').length).toBeGreaterThan(0);
      for (const p of [...named('limit'), ...named('version')])
        expect({ name: p.name, type: p.schema.type }).toEqual({ name: p.name, type: 'integer' });
      expect(components.schemas.QuestionnaireResponse.properties.version.type).toBe('integer');
    });

    it('keeps health, docs and problem pages out of the API description', async () => {
      const response = await t.http().get('/openapi.json');
      expect(Object.keys(response.body.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
    });

    it('serves the API documentation at /docs as HTML, with no key', async () => {
      const response = await t.http().get('/docs');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toMatch(/<html/i);
    });
  });
});
