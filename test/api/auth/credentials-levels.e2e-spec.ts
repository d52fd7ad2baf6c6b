/**
 * Credentials e2e: each credential level (none, revoked, operator, admin, store-bound admin, events) against each
 * merchant, key and store route.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response, Test } from 'supertest';
import { SECRET_PATTERN } from '../../support/api-key-fixtures.js';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import {
  createStore,
  createTenant,
  expectProblem,
  expectUnauthenticated,
  issueKey,
  type Tenant,
  TIMESTAMP,
  UUID,
} from '../../support/fixtures.js';

describe('credentials', () => {
  const t = useApp();

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
});
