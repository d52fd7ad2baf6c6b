import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, startApp, type TestApp } from '../support/app.js';
import { createTenant, expectProblem } from '../support/fixtures.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

describe('when things break underneath', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('answers 503 unavailable, fast, when the database is gone', async () => {
    const tenant = await createTenant(t);
    await t.app.get(DataSource).destroy();

    const ready = await t.http().get('/readyz');
    expectProblem(ready, 503, 'unavailable');
    expect((await t.http().get('/healthz')).status).toBe(200);

    const read = await t.http().get('/v1/merchant').set(bearer(tenant.admin.secret));
    expectProblem(read, 503, 'unavailable');
    expect(JSON.stringify(read.body)).not.toMatch(/pool|pglite|typeorm|select/i);
  });

  // Breaking the schema on purpose is safe only on a throw-away embedded database.
  (onPostgres ? it.skip : it)('turns an unexpected error into a 500 that reveals nothing', async () => {
    const tenant = await createTenant(t);
    await t.app.get(DataSource).query('ALTER TABLE stores RENAME COLUMN currency TO currency_code');

    const broken = await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(tenant.admin.secret));
    expectProblem(broken, 500, 'internal_error');
    expect(Object.keys(broken.body).sort()).toEqual(['code', 'detail', 'request_id', 'status', 'title', 'type']);
    expect(JSON.stringify(broken.body)).not.toMatch(/currency|column|stores|select|at .*\.js/i);
  });
});
