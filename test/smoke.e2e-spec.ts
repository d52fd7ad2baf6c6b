import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, type TestApp } from './support/app.js';
import { createTenant } from './support/fixtures.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a tenant', async () => {
    const tenant = await createTenant(t);
    expect(tenant.admin.secret).toMatch(/^sfk_/);
  });
});
