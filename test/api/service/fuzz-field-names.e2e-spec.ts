/**
 * Fuzzing e2e (test/support/fuzz-walk.ts): a field named after a member of Object.prototype (`toString`, `valueOf`,
 * `constructor`…) is refused wherever any unknown field is: at the top of every body, in every object nested in it
 * (zone weights, a size and its measurements, answers, questions, the events of a batch), and in the query string
 * of every route that reads one.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bearer } from '../../support/app.js';
import { expectProblem } from '../../support/fixtures.js';
import { type RawAnswer, toJsonText } from '../../support/fuzz-arbitraries.js';
import { runs, useFuzzWalk } from '../../support/fuzz-walk.js';

/** Every name an object inherits, and `prototype`. */
const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];
/** Names refused while the JSON is read, wherever they are (decision 002), before any route's rules. */
const REFUSED_IN_ANY_JSON = new Set(['__proto__', 'constructor', 'prototype']);
/** A name no route knows, anywhere: what a prototype name must be treated as. */
const UNKNOWN = 'zz_not_a_field';

type Path = (string | number)[];

/** The path of every object (not array) in `value`, the root included. */
function objectPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const children = Object.entries(value).flatMap(([key, child]) => objectPaths(child, [...path, Array.isArray(value) ? Number(key) : key]));
  return Array.isArray(value) ? children : [path, ...children];
}

/** `sizes[0].measurements.chest`, as errors name a field. */
const fieldName = (path: Path): string =>
  path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');

/** A copy of `seed` with the own field `key` added to the object at `path` (`__proto__` included, as JSON can). */
function withField(seed: unknown, path: Path, key: string, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(seed)) as unknown;
  const node = path.reduce<unknown>((at, step) => (at as Record<string | number, unknown>)[step], copy);
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

interface FieldError {
  field: string;
}

/**
 * How a request was refused, with `key` written as `<key>`: whether it was, and the fields the errors name (a batch's
 * refused events as `events[i].<field>`, as a refusal of the whole batch names them).
 */
function refusal(answer: RawAnswer, key: string) {
  const body = answer.json as { code?: string; errors?: FieldError[]; results?: { status: number; error?: { errors?: FieldError[] } }[] };
  const name = (field: string) => field.replaceAll(key, '<key>');
  const refusedItems = (body?.results ?? []).flatMap((result, i) =>
    result.status === 400 ? (result.error?.errors ?? []).map((e) => name(`events[${i}].${e.field}`)) : [],
  );
  return {
    refused: answer.status >= 400 || refusedItems.length > 0,
    fields: [...(body?.errors ?? []).map((e) => name(e.field)), ...refusedItems].sort(),
  };
}

describe('fields named after members of Object.prototype', () => {
  const walk = useFuzzWalk();
  const { t, mine, apiRoutes, deletesLast, seedFor, wellFormed, exercise, fingerprint, changedTables } = walk;

  it('are refused at the top of a body and in its nested objects, on every route that takes one, as an unknown name is', async () => {
    for (const route of deletesLast(apiRoutes()).filter((r) => seedFor(r.route))) {
      const seed = seedFor(route.route) as () => unknown;
      const send = (body: unknown) => exercise(route, { ...wellFormed(route), body: Buffer.from(toJsonText(body)) });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...PROTOTYPE_NAMES),
          fc.nat(),
          fc.constantFrom<unknown>(1, '1', true, { min: 1, max: 2 }, { value: 1, unit: 'cm' }),
          async (key, at, value) => {
            const paths = objectPaths(seed());
            const path = paths[at % paths.length];
            const unknown = await send(withField(seed(), path, UNKNOWN, value));
            const prototypeName = await send(withField(seed(), path, key, value));
            const where = { route: route.route, path: fieldName(path), key };
            if (REFUSED_IN_ANY_JSON.has(key)) {
              // refused with the whole body, naming the key itself, wherever it is
              const errors = (prototypeName.json as { errors?: unknown }).errors;
              expect({ ...where, status: prototypeName.status, errors }).toEqual({
                ...where,
                status: 400,
                errors: [expect.objectContaining({ field: fieldName([...path, key]), code: 'unknown_field' })],
              });
              return;
            }
            expect({ ...where, ...refusal(prototypeName, key) }).toEqual({ ...where, ...refusal(unknown, UNKNOWN) });
            if (path.length === 0) expect({ ...where, status: prototypeName.status }).toEqual({ ...where, status: 400 });
          },
        ),
        runs(12),
      );
    }
  });

  it('are refused in the query string of every route, as an unknown name is', async () => {
    // Reads only: what is stored is checked once, around them all.
    const before = await fingerprint();
    walk.batched = true;
    try {
      for (const route of apiRoutes().filter((r) => r.method === 'GET')) {
        const req = wellFormed(route);
        const unknown = await exercise(route, { ...req, path: `${req.path}?${UNKNOWN}=1` });
        for (const key of PROTOTYPE_NAMES) {
          const prototypeName = await exercise(route, { ...req, path: `${req.path}?${encodeURIComponent(key)}=1` });
          const where = { route: route.route, key };
          expect({ ...where, status: prototypeName.status, ...refusal(prototypeName, key) }).toEqual({
            ...where,
            status: unknown.status,
            ...refusal(unknown, UNKNOWN),
          });
        }
      }
    } finally {
      walk.batched = false;
    }
    expect(changedTables(before, await fingerprint())).toEqual([]);
  });

  it.each([
    ['toString', { name: 'n', toString: '1' }],
    ['valueOf', { name: 'n', valueOf: 1 }],
    ['hasOwnProperty', { name: 'n', hasOwnProperty: 'x' }],
  ])('POST /v1/stores with %s is 400 unknown_field on that field', async (field, body) => {
    const response = await t.http().post('/v1/stores').set(bearer(mine.tenant.admin.secret)).send(body);
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual([{ field, code: 'unknown_field', message: `${field} is not a known field` }]);
  });

  it.each([
    [
      'a product type',
      'product-types',
      { name: 'T', category: 'tops', zone_weights: { chest: 1, toString: 1 } },
      { field: 'zone_weights.toString', code: 'unknown_zone' },
    ],
    [
      'a size chart',
      'size-charts',
      {
        name: 'C',
        unit: 'cm',
        measurement_type: 'body',
        sizes: [{ label: 'M', measurements: { chest: { min: 90, max: 100 }, toString: { min: 1, max: 2 } } }],
      },
      { field: 'sizes[0].measurements.toString', code: 'unknown_zone' },
    ],
    [
      "a session's answers",
      'sessions/{session}/answers',
      { answers: { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, toString: 1 } },
      { field: 'answers.toString', code: 'not_asked' },
    ],
  ])('refuses toString inside %s with the nested code', async (_, collection, body, error) => {
    const path = `/v1/stores/${mine.tenant.storeId}/${collection.replace('{session}', mine.sessionId)}`;
    const response = await t.http().post(path).set(bearer(mine.tenant.admin.secret)).send(body);
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual([expect.objectContaining(error)]);
  });

  it('GET /v1/api-keys?toString=1 is 400 unknown_field', async () => {
    const response = await t.http().get('/v1/api-keys?toString=1').set(bearer(mine.tenant.admin.secret));
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual([{ field: 'toString', code: 'unknown_field', message: 'toString is not a known field' }]);
  });
});
