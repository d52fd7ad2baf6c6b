import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from './support/app.js';
import { createTenant, expectProblem } from './support/fixtures.js';

describe('rate limiting', () => {
  const t = useApp({ rateLimitPerMinute: 4 });

  it('answers 429 with Retry-After and the IETF RateLimit headers once a key spends its budget', async () => {
    const tenant = await createTenant(t); // spends the operator's and the admin key's budgets, not a new key's
    const store = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    expect(store.status).toBe(201);
    const secret = store.body.secret as string;

    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await t.http().get('/v1/merchant').set(bearer(secret)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"default";q=4;w=60');
    expect(answers[0].headers['ratelimit']).toMatch(/^"default";r=3;t=\d+$/);
    expect(answers[3].headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);

    const limited = answers[4];
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
    expect(limited.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('counts each key separately', async () => {
    const tenant = await createTenant(t);
    const other = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    for (let i = 0; i < 4; i++) await t.http().get('/v1/merchant').set(bearer(other.body.secret));
    expect((await t.http().get('/v1/merchant').set(bearer(other.body.secret))).status).toBe(429);
    const fresh = await t.http().post('/v1/api-keys').set(bearer(tenant.admin.secret)).send({ name: 'k', scopes: ['admin'] });
    expect((await t.http().get('/v1/merchant').set(bearer(fresh.body.secret))).status).toBe(200);
  });

  it('stops a flood of unknown keys before it reaches authentication', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http().get('/v1/merchant').set(bearer('sfk_not-a-key'))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('never limits health checks', async () => {
    for (let i = 0; i < 8; i++) expect((await t.http().get('/healthz')).status).toBe(200);
  });
});
