/**
 * Fuzzing e2e (test/support/fuzz-walk.ts): query strings, an over-long request line, path ids, and numeric
 * extremes in every query and path parameter.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { signUp } from '../../support/console-client.js';
import { encodeBytes, NUMERIC_EXTREMES, queryArb, type RawRequest, segmentArb } from '../../support/fuzz-arbitraries.js';
import { RUNS, runs, useFuzzWalk } from '../../support/fuzz-walk.js';
import { queryParameters } from '../../support/query-parameters.js';
import { fillPath, type RegisteredRoute } from '../../support/route-table.js';

describe('fuzzing every route', () => {
  const walk = useFuzzWalk();
  const {
    t,
    routes,
    openapi,
    mine,
    theirs,
    allIds,
    placeholder,
    ownValues,
    isConsole,
    apiRoutes,
    deletesLast,
    wellFormed,
    fingerprint,
    changedTables,
    exercise,
  } = walk;

  // ——— query strings ———

  it('answers random, repeated and oddly encoded query parameters on every route below 500, as problem details', async () => {
    for (const route of deletesLast(apiRoutes())) {
      const [template] = Object.entries(openapi.paths).filter(([path]) => path === route.path);
      const names = (template?.[1][route.method.toLowerCase()]?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      await fc.assert(
        fc.asyncProperty(queryArb(names, allIds()), async (query) => {
          const req = wellFormed(route);
          await exercise(route, { ...req, path: `${req.path}${query}` });
        }),
        runs(RUNS.queries),
      );
    }
  });

  it('answers a request line longer than the server takes with 431 problem details', async () => {
    const route = apiRoutes().find((r) => r.route === 'GET /v1/stores/{store_id}/products') as RegisteredRoute;
    const req = wellFormed(route);
    const answer = await exercise(route, { ...req, path: `${req.path}?external_id=${'a'.repeat(20_000)}` });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.text).detail).toBe(
      'The request line and headers are over 16 KiB: send shorter query parameters or fewer headers',
    );
  });

  // ——— path ids ———

  it("answers odd, foreign and malformed path ids on every route below 500, as problem details, without touching the other tenant's rows", async () => {
    for (const route of deletesLast(routes.filter((r) => r.params.length && !isConsole(r)))) {
      const segments = route.params.map((name) =>
        segmentArb(placeholder(route.path, name, mine), [placeholder(route.path, name, theirs), ...allIds()]).map(
          (value) => [name, value] as const,
        ),
      );
      await fc.assert(
        fc.asyncProperty(fc.tuple(...segments), async (pairs) => {
          const values = Object.fromEntries(pairs);
          // filled in as generated (already encoded or deliberately raw), not encoded again
          const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name]);
          const answer = await exercise(route, { ...wellFormed(route), path });
          // another tenant's resource is never found, whatever its spelling (a value both tenants use, such as a
          // shopper's id, which names nothing of anyone's, is not another tenant's)
          const theirsOnly = (name: string) => placeholder(route.path, name, theirs) !== placeholder(route.path, name, mine);
          const foreign = pairs.some(([name, value]) => theirsOnly(name) && value.toLowerCase() === placeholder(route.path, name, theirs));
          if (foreign && answer.status < 400 && !route.path.startsWith('/problems')) {
            throw new Error(`${route.route} with ${JSON.stringify(values)} answered ${answer.status} for another tenant's id`);
          }
        }),
        runs(RUNS.paths),
      );
    }
  });

  // ——— numbers in the URL ———

  it('answers numeric extremes in every query parameter and every path parameter of every route below 500, refusals as problem details', async () => {
    const params = queryParameters(t.app);
    expect([...params.keys()].sort()).toEqual(routes.map((r) => r.route).sort());
    // the numeric parameters the validation rules declare are the ones the API documents as numbers, and back
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, op]) =>
        (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ route: `${method.toUpperCase()} ${path}`, ...p })),
      ),
    );
    const asText = (list: { route: string; name: string }[]) => list.map((p) => `${p.route} ?${p.name}`).sort();
    const declared = [...params]
      .filter(([route]) => route.includes(' /v1/'))
      .flatMap(([route, list]) => list.map((p) => ({ route, ...p })));
    expect(asText(declared)).toEqual(asText(documented));
    const numeric = asText(declared.filter((p) => p.numeric));
    expect(numeric).toEqual(asText(documented.filter((p) => p.schema?.type === 'integer' || p.schema?.type === 'number')));
    expect(numeric).toContain('GET /v1/stores/{store_id}/questionnaires/{id} ?version');

    const console = await signUp(t, mine.tenant);
    /** The route well formed, signed in for the console (with the CSRF token on a form), `path` as given. */
    const request = (route: RegisteredRoute, path: string): RawRequest => {
      if (!isConsole(route)) return { ...wellFormed(route), path };
      const cookie = `sf_console=${console.cookie('sf_console')}; sf_csrf=${console.cookie('sf_csrf')}`;
      if (route.method !== 'POST') return { method: route.method, path, headers: { Cookie: cookie } };
      const form = Buffer.from(`_csrf=${encodeBytes(console.csrf as string)}`);
      return { method: 'POST', path, headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form };
    };
    // None of these requests is valid, whatever it answers: nothing stored may change (checked once per route).
    walk.batched = true;
    try {
      for (const route of deletesLast(routes)) {
        const own = ownValues(route);
        const before = await fingerprint();
        for (const value of NUMERIC_EXTREMES) {
          for (const { name } of params.get(route.route) ?? [])
            await exercise(route, request(route, `${fillPath(route.path, own)}?${name}=${value}`));
          // one placeholder at a time, the others right, so that each is what the answer depends on
          for (const name of route.params) {
            const path = route.path.replace(/\{([a-z_]+)\}/g, (_, other: string) =>
              other === name ? value : encodeURIComponent(own[other]),
            );
            await exercise(route, request(route, path));
          }
        }
        expect({ route: route.route, changed: changedTables(before, await fingerprint()) }).toEqual({ route: route.route, changed: [] });
      }
    } finally {
      walk.batched = false;
    }
  });
});
