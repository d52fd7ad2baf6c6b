import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Response, Test } from 'supertest';
import { DataSource } from 'typeorm';
import { generateSecret, MERCHANT_KEY_PREFIX, OPERATOR_KEY_PREFIX } from '../../src/auth/key-secret.js';
import { bearer, OPERATOR_KEY, useApp } from '../support/app.js';
import { createStore, createTenant, expectProblem, issueKey, type Tenant } from '../support/fixtures.js';

/** The fields of an API key record, exactly: the create response adds `secret`, nothing else ever does. */
const KEY_RECORD_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes', 'store_id'];
const SECRET_PATTERN = /^sfk_[0-9A-Za-z]{46}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('credentials', () => {
  const t = useApp();

  /** 401 with the one body for every authentication failure, and the Bearer challenge. */
  function expectUnauthenticated(response: Response): void {
    expectProblem(response, 401, 'unauthenticated');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
  }

  /** Everything about a problem body except the parts that differ per request. */
  function problemShape(response: Response): Record<string, unknown> {
    const { request_id: _requestId, ...rest } = response.body as Record<string, unknown>;
    return { status: response.status, ...rest };
  }

  async function getMerchant(secret: string): Promise<Response> {
    return t.http().get('/v1/merchant').set(bearer(secret));
  }

  async function merchantsNamed(name: string): Promise<number> {
    const rows: unknown[] = await t.app.get(DataSource).query('SELECT id FROM merchants WHERE name = $1', [name]);
    return rows.length;
  }

  describe('authentication', () => {
    it('answers 401 unauthenticated with a Bearer challenge when no key is sent', async () => {
      const response = await t.http().get('/v1/merchant');
      expectUnauthenticated(response);
    });

    it('answers 401 to a well-formed key that the service never issued', async () => {
      const response = await getMerchant(generateSecret(MERCHANT_KEY_PREFIX));
      expectUnauthenticated(response);
    });

    it('answers 401 to a real key with one character changed', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      const last = secret.at(-1) === 'a' ? 'b' : 'a';
      const response = await getMerchant(secret.slice(0, -1) + last);
      expectUnauthenticated(response);
    });

    it('answers 401 to an operator-shaped key that is not the operator key', async () => {
      const response = await t
        .http()
        .post('/v1/merchants')
        .set(bearer(generateSecret(OPERATOR_KEY_PREFIX)))
        .send({ name: 'Nobody' });
      expectUnauthenticated(response);
    });

    it.each([
      ['a Basic scheme', (secret: string) => `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`],
      ['the scheme alone', () => 'Bearer'],
      ['an empty token', () => 'Bearer '],
      ['two tokens', (secret: string) => `Bearer ${secret} ${secret}`],
      ['no scheme', (secret: string) => secret],
      ['a token of garbage', () => 'Bearer not-a-key'],
    ])('answers 401 to a malformed Authorization header: %s', async (_label, header) => {
      const tenant = await createTenant(t);
      const response = await t.http().get('/v1/merchant').set('Authorization', header(tenant.admin.secret));
      expectUnauthenticated(response);
    });

    it('gives one and the same 401 body for no key, an unknown key, a malformed header and a revoked key', async () => {
      const tenant = await createTenant(t);
      const revoked = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const revocation = await t.http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(tenant.admin.secret));
      expect(revocation.status).toBe(200);

      const answers = [
        await t.http().get('/v1/merchant'),
        await getMerchant(generateSecret(MERCHANT_KEY_PREFIX)),
        await t.http().get('/v1/merchant').set('Authorization', 'Bearer'),
        await getMerchant(revoked.secret),
      ];
      for (const answer of answers) expectUnauthenticated(answer);
      const shapes = answers.map(problemShape);
      for (const shape of shapes.slice(1)) expect(shape).toEqual(shapes[0]);
      expect(new Set(answers.map((a) => a.headers['www-authenticate'])).size).toBe(1);
    });
  });

  describe('POST /v1/merchants', () => {
    it('creates a merchant and its first unrestricted admin key with the operator bootstrap key', async () => {
      const name = `Acme ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name });

      expect(response.status).toBe(201);
      const { merchant, api_key: key } = response.body as { merchant: Record<string, unknown>; api_key: Record<string, unknown> };
      expect(Object.keys(response.body as object).sort()).toEqual(['api_key', 'merchant']);
      expect(Object.keys(merchant).sort()).toEqual(['created_at', 'id', 'name']);
      expect(merchant).toEqual({ id: expect.stringMatching(UUID), name, created_at: expect.stringMatching(TIMESTAMP) });

      expect(Object.keys(key).sort()).toEqual([...KEY_RECORD_FIELDS, 'secret'].sort());
      expect(key).toEqual({
        id: expect.stringMatching(UUID),
        name: expect.any(String),
        store_id: null,
        scopes: ['admin'],
        prefix: expect.any(String),
        created_at: expect.stringMatching(TIMESTAMP),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        secret: expect.stringMatching(SECRET_PATTERN),
      });
      expect(key.prefix).toBe((key.secret as string).slice(0, 8));

      const own = await getMerchant(key.secret as string);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(merchant);
    });

    it('gives every merchant a different secret', async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      expect(a.admin.secret).not.toBe(b.admin.secret);
      expect(a.admin.id).not.toBe(b.admin.id);
      expect(a.merchantId).not.toBe(b.merchantId);
    });

    it('refuses a merchant admin key with 403 insufficient_scope and creates nothing', async () => {
      const tenant = await createTenant(t);
      const name = `Refused ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(bearer(tenant.admin.secret)).send({ name });
      expectProblem(response, 403, 'insufficient_scope');
      expect(await merchantsNamed(name)).toBe(0);
    });

    it.each([
      ['no key', {}],
      ['an unknown key', bearer(generateSecret(MERCHANT_KEY_PREFIX))],
      ['a malformed Bearer header', { Authorization: `Bearer ${OPERATOR_KEY} extra` }],
      ['the operator key under another scheme', { Authorization: `Token ${OPERATOR_KEY}` }],
      ['a truncated operator key', bearer(OPERATOR_KEY.slice(0, -1))],
    ])('answers 401 unauthenticated to %s and creates nothing', async (_label, headers: Record<string, string>) => {
      const name = `Refused ${randomUUID()}`;
      const response = await t.http().post('/v1/merchants').set(headers).send({ name });
      expectUnauthenticated(response);
      expect(await merchantsNamed(name)).toBe(0);
    });

    it('answers 400 validation_failed when the name is missing', async () => {
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({});
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));
    });

    it('answers 400 validation_failed to an unknown field', async () => {
      const response = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name: 'Acme', plan: 'gold' });
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'plan', code: 'unknown_field' })]);
    });
  });

  describe('GET /v1/merchant', () => {
    it("returns the caller's own merchant, never another one", async () => {
      const nameA = `Alpha ${randomUUID()}`;
      const nameB = `Beta ${randomUUID()}`;
      const a = await createTenant(t, nameA);
      const b = await createTenant(t, nameB);

      const forA = await getMerchant(a.admin.secret);
      const forB = await getMerchant(b.admin.secret);

      expect(forA.status).toBe(200);
      expect(forA.body).toEqual({ id: a.merchantId, name: nameA, created_at: expect.stringMatching(TIMESTAMP) });
      expect(forB.status).toBe(200);
      expect(forB.body).toEqual({ id: b.merchantId, name: nameB, created_at: expect.stringMatching(TIMESTAMP) });
    });

    it("returns the merchant of a store-bound admin key's store", async () => {
      const tenant = await createTenant(t);
      const storeAdmin = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await getMerchant(storeAdmin.secret);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: tenant.merchantId });
    });
  });

  describe('each credential level against each route', () => {
    type Level = 'no key' | 'revoked key' | 'operator key' | 'unrestricted admin key' | 'store-bound admin key' | 'store-scoped events key';
    const LEVELS: Level[] = [
      'no key',
      'revoked key',
      'operator key',
      'unrestricted admin key',
      'store-bound admin key',
      'store-scoped events key',
    ];

    interface Context {
      readonly level: Level;
      readonly tenant: Tenant;
      /** A second store of the same merchant, which a store-bound key must never see. */
      readonly otherStoreId: string;
      /** A catalog key of the tenant's store, the target of DELETE. */
      readonly targetKeyId: string;
      readonly targetSecret: string;
    }

    interface Route {
      readonly name: string;
      readonly send: (c: Context) => Test;
      readonly status: number;
      /** Checks the body of a successful answer. */
      readonly succeeded: (response: Response, c: Context) => Promise<void> | void;
      /** Checks that a refused request changed nothing. */
      readonly unchanged?: (c: Context) => Promise<void>;
    }

    const admin = (c: Context) => bearer(c.tenant.admin.secret);
    const listKeys = async (c: Context) => {
      const response = await t.http().get('/v1/api-keys?limit=100').set(admin(c));
      expect(response.status).toBe(200);
      return response.body.data as Array<Record<string, unknown>>;
    };
    const listStores = async (c: Context) => {
      const response = await t.http().get('/v1/stores?limit=100').set(admin(c));
      expect(response.status).toBe(200);
      return response.body.data as Array<Record<string, unknown>>;
    };

    const ROUTES: Route[] = [
      {
        name: 'POST /v1/merchants',
        send: () => t.http().post('/v1/merchants').send({ name: 'Table merchant' }),
        status: 201,
        succeeded: (response) => {
          expect(response.body.merchant).toMatchObject({ name: 'Table merchant' });
          expect(response.body.api_key.secret).toMatch(SECRET_PATTERN);
        },
      },
      {
        name: 'GET /v1/merchant',
        send: () => t.http().get('/v1/merchant'),
        status: 200,
        succeeded: (response, c) => expect(response.body).toMatchObject({ id: c.tenant.merchantId }),
      },
      {
        name: 'POST /v1/api-keys',
        send: () =>
          t
            .http()
            .post('/v1/api-keys')
            .send({ name: 'from the table', scopes: ['admin'] }),
        status: 201,
        succeeded: (response) => {
          expect(response.body).toMatchObject({ name: 'from the table', scopes: ['admin'], store_id: null });
          expect(response.body.secret).toMatch(SECRET_PATTERN);
        },
        unchanged: async (c) => {
          expect((await listKeys(c)).filter((key) => key.name === 'from the table')).toEqual([]);
        },
      },
      {
        name: 'GET /v1/api-keys',
        send: () => t.http().get('/v1/api-keys'),
        status: 200,
        succeeded: (response, c) => {
          const ids = (response.body.data as Array<{ id: string }>).map((key) => key.id);
          expect(ids).toEqual(expect.arrayContaining([c.tenant.admin.id, c.targetKeyId]));
        },
      },
      {
        name: 'DELETE /v1/api-keys/{key_id}',
        send: (c) => t.http().delete(`/v1/api-keys/${c.targetKeyId}`),
        status: 200,
        succeeded: async (response, c) => {
          expect(response.body).toMatchObject({ id: c.targetKeyId, revoked_at: expect.stringMatching(TIMESTAMP) });
          const target = await t.http().get(`/v1/stores/${c.tenant.storeId}`).set(bearer(c.targetSecret));
          expectProblem(target, 401, 'unauthenticated');
        },
        unchanged: async (c) => {
          const target = (await listKeys(c)).find((key) => key.id === c.targetKeyId);
          expect(target).toMatchObject({ revoked_at: null });
        },
      },
      {
        name: 'POST /v1/stores',
        send: () => t.http().post('/v1/stores').send({ name: 'Table store' }),
        status: 201,
        succeeded: (response) => expect(response.body).toMatchObject({ id: expect.stringMatching(UUID), name: 'Table store' }),
        unchanged: async (c) => {
          expect((await listStores(c)).filter((store) => store.name === 'Table store')).toEqual([]);
        },
      },
      {
        name: 'GET /v1/stores',
        send: () => t.http().get('/v1/stores'),
        status: 200,
        succeeded: (response, c) => {
          const ids = (response.body.data as Array<{ id: string }>).map((store) => store.id);
          if (c.level === 'store-bound admin key') expect(ids).toEqual([c.tenant.storeId]);
          else expect(ids.sort()).toEqual([c.tenant.storeId, c.otherStoreId].sort());
        },
      },
      {
        name: 'GET /v1/stores/{store_id}',
        send: (c) => t.http().get(`/v1/stores/${c.tenant.storeId}`),
        status: 200,
        succeeded: (response, c) => expect(response.body).toMatchObject({ id: c.tenant.storeId }),
      },
      {
        name: 'PATCH /v1/stores/{store_id}',
        send: (c) => t.http().patch(`/v1/stores/${c.tenant.storeId}`).send({ name: 'Renamed by the table' }),
        status: 200,
        succeeded: (response, c) => expect(response.body).toMatchObject({ id: c.tenant.storeId, name: 'Renamed by the table' }),
        unchanged: async (c) => {
          const store = (await listStores(c)).find((s) => s.id === c.tenant.storeId);
          expect(store?.name).not.toBe('Renamed by the table');
        },
      },
    ];

    type Expected = 'allowed' | 'unauthenticated' | 'insufficient_scope';
    /** Rows: routes; columns: operator, unrestricted admin, store-bound admin, store-scoped events. */
    const ALLOWED: Record<string, [Expected, Expected, Expected, Expected]> = {
      'POST /v1/merchants': ['allowed', 'insufficient_scope', 'insufficient_scope', 'insufficient_scope'],
      'GET /v1/merchant': ['insufficient_scope', 'allowed', 'allowed', 'insufficient_scope'],
      'POST /v1/api-keys': ['insufficient_scope', 'allowed', 'insufficient_scope', 'insufficient_scope'],
      'GET /v1/api-keys': ['insufficient_scope', 'allowed', 'insufficient_scope', 'insufficient_scope'],
      'DELETE /v1/api-keys/{key_id}': ['insufficient_scope', 'allowed', 'allowed', 'insufficient_scope'],
      'POST /v1/stores': ['insufficient_scope', 'allowed', 'insufficient_scope', 'insufficient_scope'],
      'GET /v1/stores': ['insufficient_scope', 'allowed', 'allowed', 'insufficient_scope'],
      'GET /v1/stores/{store_id}': ['insufficient_scope', 'allowed', 'allowed', 'insufficient_scope'],
      'PATCH /v1/stores/{store_id}': ['insufficient_scope', 'allowed', 'allowed', 'insufficient_scope'],
    };

    function expected(route: Route, level: Level): Expected {
      if (level === 'no key' || level === 'revoked key') return 'unauthenticated';
      const column = ['operator key', 'unrestricted admin key', 'store-bound admin key', 'store-scoped events key'].indexOf(level);
      return ALLOWED[route.name][column];
    }

    const cases = ROUTES.flatMap((route) =>
      LEVELS.map((level) => {
        const outcome = expected(route, level);
        const title =
          outcome === 'allowed'
            ? `${route.name} answers ${route.status} to the ${level}`
            : outcome === 'unauthenticated'
              ? `${route.name} answers 401 unauthenticated to a request with ${level === 'no key' ? 'no key' : 'a revoked key'}`
              : `${route.name} answers 403 insufficient_scope to the ${level} and changes nothing`;
        return { title, route, level, outcome };
      }),
    );

    async function context(level: Level): Promise<Context> {
      const tenant = await createTenant(t);
      const otherStoreId = await createStore(t, tenant.admin.secret);
      const target = await issueKey(t, tenant.admin.secret, { scopes: ['catalog'], store_id: tenant.storeId, name: 'target' });
      return { level, tenant, otherStoreId, targetKeyId: target.id, targetSecret: target.secret };
    }

    async function credential(c: Context): Promise<Record<string, string>> {
      const secret = c.tenant.admin.secret;
      switch (c.level) {
        case 'no key':
          return {};
        case 'revoked key': {
          const key = await issueKey(t, secret, { scopes: ['admin'] });
          const revoked = await t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(secret));
          expect(revoked.status).toBe(200);
          return bearer(key.secret);
        }
        case 'operator key':
          return bearer(OPERATOR_KEY);
        case 'unrestricted admin key':
          return bearer(secret);
        case 'store-bound admin key':
          return bearer((await issueKey(t, secret, { scopes: ['admin'], store_id: c.tenant.storeId })).secret);
        case 'store-scoped events key':
          return bearer((await issueKey(t, secret, { scopes: ['events'], store_id: c.tenant.storeId })).secret);
      }
    }

    it.each(cases)('$title', async ({ route, level, outcome }) => {
      const c = await context(level);
      const response = await route.send(c).set(await credential(c));

      if (outcome === 'allowed') {
        expect(response.status).toBe(route.status);
        await route.succeeded(response, c);
        return;
      }
      if (outcome === 'unauthenticated') expectUnauthenticated(response);
      else expectProblem(response, 403, 'insufficient_scope');
      await route.unchanged?.(c);
    });
  });

  describe('a key bound to store A naming another store B', () => {
    interface Target {
      readonly storeId: string;
      /** The admin key of B's merchant, when B exists, to check that B did not change. */
      readonly ownerSecret: string | null;
    }
    const TARGETS: Array<[string, (tenant: Tenant) => Promise<Target>]> = [
      [
        'B is another store of the same merchant',
        async (tenant) => ({
          storeId: await createStore(t, tenant.admin.secret),
          ownerSecret: tenant.admin.secret,
        }),
      ],
      [
        'B is a store of another merchant',
        async () => {
          const other = await createTenant(t);
          return { storeId: other.storeId, ownerSecret: other.admin.secret };
        },
      ],
      ['B is a random uuid that names no store', async () => ({ storeId: randomUUID(), ownerSecret: null })],
      ['B is not a uuid at all', async () => ({ storeId: 'not-a-store-id', ownerSecret: null })],
    ];

    it.each(TARGETS)('GET /v1/stores/{B} answers 403 store_forbidden when %s', async (_label, target) => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const b = await target(tenant);

      const response = await t.http().get(`/v1/stores/${b.storeId}`).set(bearer(bound.secret));

      expectProblem(response, 403, 'store_forbidden');
      expect(response.text).not.toContain(b.storeId);
    });

    it.each(TARGETS)('PATCH /v1/stores/{B} answers 403 store_forbidden and leaves B unchanged when %s', async (_label, target) => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const b = await target(tenant);

      const response = await t.http().patch(`/v1/stores/${b.storeId}`).set(bearer(bound.secret)).send({ name: 'Hijacked' });

      expectProblem(response, 403, 'store_forbidden');
      if (b.ownerSecret !== null) {
        const store = await t.http().get(`/v1/stores/${b.storeId}`).set(bearer(b.ownerSecret));
        expect(store.status).toBe(200);
        expect(store.body.name).not.toBe('Hijacked');
      }
    });

    it('gives the same 403 body whether or not B exists, so a key cannot probe for stores', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const sibling = await createStore(t, tenant.admin.secret);
      const foreign = (await createTenant(t)).storeId;

      const answers = [];
      for (const id of [sibling, foreign, randomUUID(), 'not-a-store-id']) {
        answers.push(await t.http().get(`/v1/stores/${id}`).set(bearer(bound.secret)));
      }
      for (const answer of answers) expectProblem(answer, 403, 'store_forbidden');
      const shapes = answers.map(problemShape);
      for (const shape of shapes.slice(1)) expect(shape).toEqual(shapes[0]);
    });

    it('still reaches its own store A', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(bound.secret));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: tenant.storeId });
    });
  });

  describe("another merchant's resources with an unrestricted admin key", () => {
    it("answers 404 not_found to GET of another merchant's store, exactly as for a store that does not exist", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);

      const foreign = await t.http().get(`/v1/stores/${other.storeId}`).set(bearer(tenant.admin.secret));
      const missing = await t.http().get(`/v1/stores/${randomUUID()}`).set(bearer(tenant.admin.secret));
      const malformed = await t.http().get('/v1/stores/not-a-store-id').set(bearer(tenant.admin.secret));

      expectProblem(foreign, 404, 'not_found');
      expectProblem(missing, 404, 'not_found');
      expectProblem(malformed, 404, 'not_found');
      expect(problemShape(foreign)).toEqual(problemShape(missing));
      expect(problemShape(malformed)).toEqual(problemShape(missing));
    });

    it("answers 404 not_found to PATCH of another merchant's store and leaves it unchanged", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const before = await t.http().get(`/v1/stores/${other.storeId}`).set(bearer(other.admin.secret));

      const response = await t.http().patch(`/v1/stores/${other.storeId}`).set(bearer(tenant.admin.secret)).send({ name: 'Hijacked' });

      expectProblem(response, 404, 'not_found');
      const after = await t.http().get(`/v1/stores/${other.storeId}`).set(bearer(other.admin.secret));
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
    });

    it("never lists another merchant's stores", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const response = await t.http().get('/v1/stores').set(bearer(tenant.admin.secret));
      expect(response.status).toBe(200);
      expect((response.body.data as Array<{ id: string }>).map((s) => s.id)).toEqual([tenant.storeId]);
      expect(response.text).not.toContain(other.storeId);
    });
  });

  describe('secrets in error bodies', () => {
    function expectNoSecret(response: Response, secret: string): void {
      expect(response.text).not.toContain(secret);
      expect(response.text).not.toContain(secret.slice(8));
      expect(JSON.stringify(response.headers)).not.toContain(secret.slice(8));
    }

    it('never echoes an unknown key', async () => {
      const secret = generateSecret(MERCHANT_KEY_PREFIX);
      const response = await getMerchant(secret);
      expectUnauthenticated(response);
      expectNoSecret(response, secret);
    });

    it('never echoes a mistyped key', async () => {
      const tenant = await createTenant(t);
      const wrong = `${tenant.admin.secret.slice(0, -1)}${tenant.admin.secret.endsWith('x') ? 'y' : 'x'}`;
      const response = await getMerchant(wrong);
      expectUnauthenticated(response);
      expectNoSecret(response, wrong);
      expectNoSecret(response, tenant.admin.secret);
    });

    it('never echoes a revoked key', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      expect((await t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      const response = await getMerchant(key.secret);
      expectUnauthenticated(response);
      expectNoSecret(response, key.secret);
    });

    it('never echoes a valid key that is refused for its scope or its store', async () => {
      const tenant = await createTenant(t);
      const events = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const scope = await t.http().get('/v1/api-keys').set(bearer(events.secret));
      const store = await t.http().get(`/v1/stores/${randomUUID()}`).set(bearer(bound.secret));
      const operator = await t.http().get('/v1/merchant').set(bearer(OPERATOR_KEY));

      expectProblem(scope, 403, 'insufficient_scope');
      expectProblem(store, 403, 'store_forbidden');
      expectProblem(operator, 403, 'insufficient_scope');
      expectNoSecret(scope, events.secret);
      expectNoSecret(store, bound.secret);
      expectNoSecret(operator, OPERATOR_KEY);
    });

    it('refuses a key in the query string with 400 and does not echo it', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      for (const query of [`api_key=${secret}`, `access_token=${secret}`, `q=${secret}`]) {
        const response = await t.http().get(`/v1/merchant?${query}`).set(bearer(secret));
        expectProblem(response, 400, 'validation_failed');
        expectNoSecret(response, secret);
      }
    });

    it('refuses a key in the request body with 400 and does not echo it', async () => {
      const tenant = await createTenant(t);
      const secret = tenant.admin.secret;
      const inBody = await t.http().post('/v1/stores').set(bearer(secret)).send({ name: 'Store', access_token: secret });
      const asUnknownField = await t.http().post('/v1/stores').set(bearer(secret)).send({ name: 'Store', api_key: secret });

      expectProblem(inBody, 400, 'validation_failed');
      expectProblem(asUnknownField, 400, 'validation_failed');
      expectNoSecret(inBody, secret);
      expectNoSecret(asUnknownField, secret);
    });

    it('does not echo a key sent as a key id in the path', async () => {
      const tenant = await createTenant(t);
      const other = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const response = await t.http().delete(`/v1/api-keys/${other.secret}`).set(bearer(tenant.admin.secret));
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expectNoSecret(response, other.secret);
    });
  });
});
