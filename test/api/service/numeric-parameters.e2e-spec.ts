import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { createTenant, expectErrors, expectProblem } from '../../support/fixtures.js';
import { queryParameters } from '../../support/query-parameters.js';
import { registeredRoutes } from '../../support/route-table.js';
import { createQuestionnaire } from '../../support/session-fixtures.js';

/** The range of a PostgreSQL `integer` column: what any number in a query may end up compared with. */
const INT4_MIN = -(2 ** 31);
const INT4_MAX = 2 ** 31 - 1;

describe('numeric query parameters', () => {
  const t = useApp();

  it('answers a questionnaire version past the integer range with a 400 field error, and the largest one with 404', async () => {
    const { storeId, admin } = await createTenant(t);
    const quiz = await createQuestionnaire(t, storeId, admin.secret, [{ key: 'height', required: true }]);
    const read = (version: string) =>
      t.http().get(`/v1/stores/${storeId}/questionnaires/${quiz.id}?version=${version}`).set(bearer(admin.secret));

    for (const version of ['2147483648', '99999999999999999999', '9007199254740993']) {
      expectErrors(await read(version), { version: 'too_large' });
    }
    for (const version of ['0', '-0', '-1', '-2147483649']) expectErrors(await read(version), { version: 'too_small' });
    // a number is written in digits: an exponent or another base is not one, however large
    for (const version of ['0.5', '1e308', '1e999', '0x10', 'NaN', 'Infinity', 'x']) {
      expectErrors(await read(version), { version: 'must_be_integer' });
    }
    expectProblem(await read(String(INT4_MAX)), 404, 'not_found');
    expect((await read('1')).body).toMatchObject({ id: quiz.id, version: 1 });
  });

  it('bounds every numeric query parameter of every route within the integer range', () => {
    const byRoute = queryParameters(t.app);
    // read from the same controllers as the route table: no route is left out
    expect([...byRoute.keys()].sort()).toEqual(
      registeredRoutes(t.app)
        .map((r) => r.route)
        .sort(),
    );

    const numeric = [...byRoute].flatMap(([route, params]) => params.filter((p) => p.numeric).map((p) => ({ route, ...p })));
    expect(numeric.map((p) => `${p.route} ${p.name}`)).toContain('GET /v1/stores/{store_id}/questionnaires/{id} version');
    const unbounded = numeric.filter((p) => p.min === undefined || p.max === undefined || p.min < INT4_MIN || p.max > INT4_MAX);
    expect(unbounded).toEqual([]);
  });
});
