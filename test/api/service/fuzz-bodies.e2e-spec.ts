/**
 * Fuzzing e2e (test/support/fuzz-walk.ts): the walk covers every registered route, each route that takes a body
 * takes its seed, and mutated bodies and bodies that are not a JSON object, not JSON or not UTF-8.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { applyMutations, mutationArb, rawBodyArb, toJsonText } from '../../support/fuzz-arbitraries.js';
import { RUNS, runs, useFuzzWalk } from '../../support/fuzz-walk.js';

describe('fuzzing every route', () => {
  const { routes, openapi, mine, allIds, ownValues, seedFor, apiRoutes, deletesLast, wellFormed, exercise } = useFuzzWalk();

  // ——— the walk covers everything ———

  it('walks every registered route: the API ones are the OpenAPI document, and each that takes a body has a valid one', async () => {
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(
      apiRoutes()
        .filter((r) => r.path.startsWith('/v1'))
        .map((r) => r.route)
        .sort(),
    ).toEqual(documented.sort());

    for (const [path, methods] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const route = `${method.toUpperCase()} ${path}`;
        const seed = seedFor(route);
        expect({ route, hasBody: operation.requestBody !== undefined }).toEqual({ route, hasBody: seed !== undefined });
        if (!seed) continue;
        // the seed is a body of the documented schema: its required fields, and only documented ones
        const ref = JSON.stringify(operation.requestBody).match(/#\/components\/schemas\/(\w+)/)?.[1] as string;
        const schema = openapi.components.schemas[ref];
        const fields = Object.keys(seed() as object);
        expect({ route, missing: (schema.required ?? []).filter((f) => !fields.includes(f)) }).toEqual({ route, missing: [] });
        expect({ route, unknown: fields.filter((f) => !(f in (schema.properties ?? {}))) }).toEqual({ route, unknown: [] });
      }
    }

    // and the service takes each seed: mutations start from a body that works
    for (const route of routes.filter((r) => seedFor(r.route))) {
      const values = ownValues(route);
      if (route.route.endsWith('/decision')) values.id = mine.spareSessionId;
      const answer = await exercise(route, wellFormed(route, values));
      expect({ route: route.route, status: answer.status, body: answer.json }).toMatchObject({
        route: route.route,
        status: expect.any(Number),
      });
      if (answer.status >= 300)
        expect({ route: route.route, status: answer.status, body: answer.json }).toEqual({ route: route.route, status: 'below 300' });
    }
  });

  // ——— bodies ———

  it('answers mutated bodies on every route that takes one below 500, refusals as problem details, storing nothing when it refuses', async () => {
    for (const route of deletesLast(apiRoutes()).filter((r) => seedFor(r.route))) {
      const seed = seedFor(route.route) as () => unknown;
      await fc.assert(
        fc.asyncProperty(fc.array(mutationArb(allIds()), { minLength: 1, maxLength: 3 }), async (mutations) => {
          const body = applyMutations(seed(), mutations);
          const req = wellFormed(route);
          req.body = body === undefined ? undefined : Buffer.from(toJsonText(body));
          await exercise(route, req);
        }),
        runs(RUNS.bodies),
      );
    }
  });

  it("answers a body without one of its required fields with 400 `required` on that field, on every route, in a batch's events too", async () => {
    const schemaOf = (name: string) => openapi.components.schemas[name];
    let checked = 0;
    for (const route of apiRoutes().filter((r) => seedFor(r.route))) {
      const seed = seedFor(route.route) as () => Record<string, unknown>;
      const operation = openapi.paths[route.path][route.method.toLowerCase()];
      const ref = JSON.stringify(operation.requestBody).match(/#\/components\/schemas\/(\w+)/)?.[1] as string;
      for (const field of schemaOf(ref).required ?? []) {
        const body = seed();
        delete body[field];
        const req = wellFormed(route);
        const answer = await exercise(route, { ...req, body: Buffer.from(toJsonText(body)) });
        const errors = (answer.json as { errors?: { field: string; code: string }[] }).errors ?? [];
        expect({ route: route.route, field, status: answer.status, errors }).toEqual({
          route: route.route,
          field,
          status: 400,
          errors: expect.arrayContaining([expect.objectContaining({ field, code: 'required' })]),
        });
        checked++;
      }
    }
    const batch = apiRoutes().find((r) => r.route === 'POST /v1/stores/{store_id}/events/batch') as (typeof routes)[number];
    for (const field of schemaOf('EventRequest').required ?? []) {
      const body = (seedFor(batch.route) as () => { events: Record<string, unknown>[] })();
      delete body.events[1][field];
      const answer = await exercise(batch, { ...wellFormed(batch), body: Buffer.from(toJsonText(body)) });
      const results = (answer.json as { results: { status: number; error?: { errors?: { field: string; code: string }[] } }[] }).results;
      expect({ field, status: results[1].status, errors: results[1].error?.errors }).toEqual({
        field,
        status: 400,
        errors: [expect.objectContaining({ field, code: 'required' })],
      });
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('answers bodies that are not a JSON object, not JSON or not UTF-8 below 500, as problem details, storing nothing', async () => {
    for (const route of apiRoutes().filter((r) => seedFor(r.route))) {
      const seed = (seedFor(route.route) as () => unknown)();
      await fc.assert(
        fc.asyncProperty(rawBodyArb(seed), async (raw) => {
          await exercise(route, { ...wellFormed(route), body: raw });
        }),
        runs(RUNS.rawBodies),
      );
    }
  });
});
