/**
 * API keys e2e: DELETE /v1/api-keys/{key_id} — revocation, self-revocation, rotation, who may revoke what, and
 * requests racing a revocation.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { apiKeyRequests, KEY_RECORD_FIELDS } from '../../support/api-key-fixtures.js';
import { bearer, OPERATOR_KEY, useApp } from '../../support/app.js';
import { createStore, createTenant, expectProblem, issueKey, TIMESTAMP } from '../../support/fixtures.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

describe('API keys', () => {
  const t = useApp();
  const { post, revoke, getMerchant, keyRecord } = apiKeyRequests(t);

  describe('DELETE /v1/api-keys/{key_id}', () => {
    it('revokes a key: 200 with the record and revoked_at set, and the key gets 401 on the very next request', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: 'doomed' });
      expect((await getMerchant(key.secret)).status).toBe(200);

      const response = await revoke(tenant.admin.secret, key.id);

      expect(response.status).toBe(200);
      expect(Object.keys(response.body as object).sort()).toEqual(KEY_RECORD_FIELDS);
      expect(response.body).toMatchObject({
        id: key.id,
        name: 'doomed',
        store_id: null,
        scopes: ['admin'],
        revoked_at: expect.stringMatching(TIMESTAMP),
      });
      const next = await getMerchant(key.secret);
      expectProblem(next, 401, 'unauthenticated');
      expect(next.headers['www-authenticate']).toMatch(/^Bearer\b/);
    });

    it('refuses a revoked store-scoped key on its own store', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret))).status).toBe(200);
      expect((await revoke(tenant.admin.secret, key.id)).status).toBe(200);
      const response = await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret));
      expectProblem(response, 401, 'unauthenticated');
    });

    it('answers 200 again to a second revocation and leaves revoked_at unchanged', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });
      const first = await revoke(tenant.admin.secret, key.id);
      expect(first.status).toBe(200);
      await sleep(20);

      const second = await revoke(tenant.admin.secret, key.id);

      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect((await keyRecord(tenant.admin.secret, key.id))?.revoked_at).toBe(first.body.revoked_at);
    });

    it('refuses self-revocation with 403 cannot_revoke_self, and the key still works', async () => {
      const tenant = await createTenant(t);
      const response = await revoke(tenant.admin.secret, tenant.admin.id);

      expectProblem(response, 403, 'cannot_revoke_self');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it('refuses self-revocation by a store-bound admin key, and the key still works', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const response = await revoke(bound.secret, bound.id);

      expectProblem(response, 403, 'cannot_revoke_self');
      expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(bound.secret))).status).toBe(200);
    });

    it('never revokes the calling key through another spelling of its id (ids are exact strings)', async () => {
      const tenant = await createTenant(t);
      const response = await revoke(tenant.admin.secret, tenant.admin.id.toUpperCase());

      expectProblem(response, 404, 'not_found');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it('rotates: a new unrestricted admin key revokes the old one; the old gets 401, the new works', async () => {
      const tenant = await createTenant(t);
      const replacement = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], name: 'replacement' });

      const response = await revoke(replacement.secret, tenant.admin.id);

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: tenant.admin.id, revoked_at: expect.stringMatching(TIMESTAMP) });
      expectProblem(await getMerchant(tenant.admin.secret), 401, 'unauthenticated');
      const merchant = await getMerchant(replacement.secret);
      expect(merchant.status).toBe(200);
      expect(merchant.body.id).toBe(tenant.merchantId);
      expect((await post(replacement.secret, { name: 'after rotation', scopes: ['admin'] })).status).toBe(201);
    });

    it('lets a store-bound admin key revoke a key of its own store', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const target = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });

      const response = await revoke(bound.secret, target.id);

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: target.id, store_id: tenant.storeId, revoked_at: expect.stringMatching(TIMESTAMP) });
    });

    it('answers 404 when a store-bound admin key revokes a key of another store of the same merchant, which still works', async () => {
      const tenant = await createTenant(t);
      const otherStore = await createStore(t, tenant.admin.secret);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
      const target = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: otherStore });

      const response = await revoke(bound.secret, target.id);

      expectProblem(response, 404, 'not_found');
      expect((await t.http().get(`/v1/stores/${otherStore}`).set(bearer(target.secret))).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, target.id))?.revoked_at).toBeNull();
    });

    it('answers 404 when a store-bound admin key revokes an unrestricted key, which still works', async () => {
      const tenant = await createTenant(t);
      const bound = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const response = await revoke(bound.secret, tenant.admin.id);

      expectProblem(response, 404, 'not_found');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
      expect((await keyRecord(tenant.admin.secret, tenant.admin.id))?.revoked_at).toBeNull();
    });

    it("answers 404 to another merchant's key id, and that key still works", async () => {
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      const foreign = await issueKey(t, other.admin.secret, { scopes: ['admin'], store_id: other.storeId });

      const forKey = await revoke(tenant.admin.secret, foreign.id);
      const forAdmin = await revoke(tenant.admin.secret, other.admin.id);
      const missing = await revoke(tenant.admin.secret, randomUUID());

      expectProblem(forKey, 404, 'not_found');
      expectProblem(forAdmin, 404, 'not_found');
      expectProblem(missing, 404, 'not_found');
      expect(forKey.body.detail).toBe(missing.body.detail);
      expect((await t.http().get(`/v1/stores/${other.storeId}`).set(bearer(foreign.secret))).status).toBe(200);
      expect((await getMerchant(other.admin.secret)).status).toBe(200);
      expect((await keyRecord(other.admin.secret, foreign.id))?.revoked_at).toBeNull();
    });

    it('answers 404 to a key id that is not a uuid', async () => {
      const tenant = await createTenant(t);
      expectProblem(await revoke(tenant.admin.secret, 'not-a-key-id'), 404, 'not_found');
    });

    it.each([[['events']], [['catalog', 'fit', 'events', 'analytics']]])(
      'refuses a non-admin key with scopes %j with 403 insufficient_scope, and the target still works',
      async (scopes) => {
        const tenant = await createTenant(t);
        const caller = await issueKey(t, tenant.admin.secret, { scopes, store_id: tenant.storeId });
        const target = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

        expectProblem(await revoke(caller.secret, target.id), 403, 'insufficient_scope');
        expectProblem(await revoke(caller.secret, caller.id), 403, 'insufficient_scope');
        expect((await t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(target.secret))).status).toBe(200);
      },
    );

    it('refuses the operator key with 403 insufficient_scope', async () => {
      const tenant = await createTenant(t);
      expectProblem(await revoke(OPERATOR_KEY, tenant.admin.id), 403, 'insufficient_scope');
      expect((await getMerchant(tenant.admin.secret)).status).toBe(200);
    });
  });

  describe('revocation racing requests', () => {
    const DELETE_DELAY_MS = 2;

    interface Outcome {
      readonly status: number;
      readonly sentAfterRevocation: boolean;
    }

    /**
     * Sends `before` requests, then the DELETE, then `during` more while it is in flight (a few per millisecond), and
     * `after` more once it has answered. Records, for each request, whether the DELETE had already answered when the
     * request was sent.
     */
    async function race(send: () => Promise<Response>, revocation: () => Promise<Response>, before = 10, during = 10, after = 10) {
      let revoked = false;
      const one = async (): Promise<Outcome> => {
        const sentAfterRevocation = revoked;
        const response = await send();
        return { status: response.status, sentAfterRevocation };
      };
      const early = Array.from({ length: before }, one);
      // Let the first requests reach the service before the DELETE does.
      await sleep(DELETE_DELAY_MS);
      const deletion = revocation().then((response) => {
        revoked = true;
        return response;
      });
      const inFlight = Array.from({ length: during }, async (_, i) => {
        await sleep(Math.floor(i / 3));
        return one();
      });
      const late = deletion.then(() => Promise.all(Array.from({ length: after }, one)));
      const [deleted, outcomes, lateOutcomes] = await Promise.all([deletion, Promise.all([...early, ...inFlight]), late]);
      return { deleted, outcomes: [...outcomes, ...lateOutcomes] };
    }

    function expectRaceOutcome(deleted: Response, outcomes: Outcome[]): void {
      expect(deleted.status).toBe(200);
      expect(outcomes).toHaveLength(30);
      for (const outcome of outcomes) expect([200, 401]).toContain(outcome.status);
      const late = outcomes.filter((o) => o.sentAfterRevocation);
      expect(late.length).toBeGreaterThanOrEqual(10);
      expect(late.map((o) => o.status)).toEqual(late.map(() => 401));
    }

    it('answers 200 or 401 (never 500) to an admin key revoked mid-flight, and 401 to everything sent after', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });

      const { deleted, outcomes } = await race(
        () => getMerchant(key.secret),
        () => revoke(tenant.admin.secret, key.id),
      );

      expectRaceOutcome(deleted, outcomes);
      expectProblem(await getMerchant(key.secret), 401, 'unauthenticated');
    });

    it('answers 200 or 401 (never 500) to a store-bound key revoked mid-flight on its store, and 401 to everything sent after', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });

      const { deleted, outcomes } = await race(
        () => t.http().get(`/v1/stores/${tenant.storeId}`).set(bearer(key.secret)),
        () => revoke(tenant.admin.secret, key.id),
      );

      expectRaceOutcome(deleted, outcomes);
    });

    it('orders the keys a key issues with its revocation: none appears after the revocation has answered', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const minted = async () => {
        const listed = await t.http().get('/v1/api-keys?limit=100').set(bearer(tenant.admin.secret));
        return (listed.body.data as { id: string; name: string }[]).filter((k) => k.name === 'minted').map((k) => k.id);
      };
      let atRevocation: string[] = [];

      const { deleted, outcomes } = await race(
        () => post(key.secret, { name: 'minted', scopes: ['admin'] }),
        async () => {
          const response = await revoke(tenant.admin.secret, key.id);
          atRevocation = await minted();
          return response;
        },
      );

      expect(deleted.status).toBe(200);
      for (const outcome of outcomes) expect([201, 401]).toContain(outcome.status);
      expect(outcomes.filter((o) => o.sentAfterRevocation).map((o) => o.status)).toEqual(
        outcomes.filter((o) => o.sentAfterRevocation).map(() => 401),
      );
      const issued = outcomes.filter((o) => o.status === 201).length;
      expect((await minted()).sort()).toEqual(atRevocation.sort());
      expect(atRevocation).toHaveLength(issued);
    });

    // A second connection holds the merchant's row, so that a key being issued waits at its insert, after its
    // authentication: the widest window a revocation could land in.
    (onPostgres ? it : it.skip)('makes a revocation wait for a key its key is issuing, so that key is listed when it answers', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['admin'] });
      const holder = t.app.get(DataSource).createQueryRunner();
      await holder.connect();
      try {
        await holder.startTransaction();
        await holder.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [tenant.merchantId]);
        const issuing = post(key.secret, { name: 'held', scopes: ['admin'] }).then((r) => r);
        await sleep(300);
        let listedAtRevocation: string[] | undefined;
        const revocation = revoke(tenant.admin.secret, key.id).then(async (response) => {
          const listed = await t.http().get('/v1/api-keys?limit=100').set(bearer(tenant.admin.secret));
          listedAtRevocation = (listed.body.data as { name: string }[]).map((k) => k.name);
          return response;
        });
        await sleep(300);
        expect(listedAtRevocation).toBeUndefined(); // the revocation waits for the key being issued…
        await holder.rollbackTransaction();
        expect((await issuing).status).toBe(201);
        expect((await revocation).status).toBe(200);
        expect(listedAtRevocation).toContain('held'); // …which is there when it answers
        expectProblem(await post(key.secret, { name: 'late', scopes: ['admin'] }), 401, 'unauthenticated');
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
    });

    it('answers 200 with the same revoked_at to 20 concurrent revocations of one key', async () => {
      const tenant = await createTenant(t);
      const key = await issueKey(t, tenant.admin.secret, { scopes: ['events'], store_id: tenant.storeId });

      const responses = await Promise.all(Array.from({ length: 20 }, () => revoke(tenant.admin.secret, key.id)));

      expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
      const revokedAt = responses[0].body.revoked_at as string;
      expect(revokedAt).toMatch(TIMESTAMP);
      for (const response of responses) expect(response.body).toEqual(responses[0].body);
      expect((await keyRecord(tenant.admin.secret, key.id))?.revoked_at).toBe(revokedAt);
    });
  });
});
