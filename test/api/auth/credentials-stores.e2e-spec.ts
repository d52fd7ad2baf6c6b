/**
 * Credentials e2e: other stores — a store-bound key naming another store, and an admin key naming another
 * merchant's.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { bearer, useApp } from '../../support/app.js';
import { createStore, createTenant, expectProblem, issueKey, problemShape, type Tenant } from '../../support/fixtures.js';

describe('credentials', () => {
  const t = useApp();

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
});
