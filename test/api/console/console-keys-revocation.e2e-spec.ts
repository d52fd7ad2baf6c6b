import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, type TestApp, useApp } from '../../support/app.js';
import { auditConsoleAnswers, type ConsoleClient, signUp } from '../../support/console-client.js';
import { createTenant, issueKey, type Tenant } from '../../support/fixtures.js';

/**
 * Keys issued from the console racing the end of the access they stand on (docs/decisions/001-credential-edge-cases.md,
 * 006-console-access.md). A console session stands on its account, and the account on the admin key it signed up
 * with: revoking that key removes the account, removing the account ends its sessions, signing out ends one. Whichever
 * ends first, a key issued by the session either is there when the ending answers, or is never issued.
 */

const onPostgres = process.env.DATABASE_URL !== undefined;

interface Console {
  readonly tenant: Tenant;
  /** The unrestricted admin key the account signed up with (the tenant's own admin key revokes it). */
  readonly key: { id: string; secret: string };
  readonly accountId: string;
  readonly client: ConsoleClient;
}

/** A console account on an admin key of its own, signed in, on its store's page (whose form token the posts carry). */
async function consoleOnOwnKey(t: TestApp): Promise<Console> {
  const tenant = await createTenant(t);
  const key = await issueKey(t, tenant.admin.secret, { name: 'console sign-up', scopes: ['admin'] });
  const client = await signUp(t, key.secret);
  await client.page(`/console/stores/${tenant.storeId}`);
  const listed = await t.http().get('/v1/console-accounts?limit=100').set(bearer(tenant.admin.secret));
  const account = (listed.body.data as { id: string; email: string }[]).find((a) => a.email === client.email);
  return { tenant, key, accountId: account?.id as string, client };
}

/** The ways the access of a console session ends, each as the merchant (or the person) would end it, and its answer. */
const ENDINGS: ReadonlyArray<readonly [string, (t: TestApp, c: Console) => Promise<Response>, number]> = [
  [
    'revoking the key its account signed up with',
    (t, c) => t.http().delete(`/v1/api-keys/${c.key.id}`).set(bearer(c.tenant.admin.secret)),
    200,
  ],
  ['removing its account', (t, c) => t.http().delete(`/v1/console-accounts/${c.accountId}`).set(bearer(c.tenant.admin.secret)), 204],
  ['signing out', (_t, c) => c.client.logOut(), 303],
];

/** The names of the merchant's keys that the session issued, through the API. */
async function minted(t: TestApp, tenant: Tenant): Promise<string[]> {
  const response = await t.http().get('/v1/api-keys?limit=100').set(bearer(tenant.admin.secret));
  expect(response.status).toBe(200);
  return (response.body.data as { name: string }[]).map((key) => key.name).filter((name) => name.startsWith('minted'));
}

/** Refused for its session: sent to sign in again, never an error page. */
function expectSentToSignIn(response: Response): void {
  expect(response.status).toBe(303);
  expect(new URL(response.headers.location as string, 'http://console.invalid').pathname).toBe('/console/login');
}

describe('console keys racing the end of their session', () => {
  const t = useApp();
  // after this block: no sfk_ secret outside a key-creation page, and no cacheable page, in any console answer so far
  auditConsoleAnswers();

  /**
   * On PostgreSQL a second connection holds the merchant's row while the first keys are issued, so that they wait at
   * their insert, past the session's check (the widest window an ending could land in), until after the ending was
   * sent. The embedded database has one connection: nothing can hold it, and requests take turns.
   */
  async function holdMerchant(tenant: Tenant): Promise<{ release: () => Promise<void> }> {
    if (!onPostgres) return { release: async () => undefined };
    const holder = t.app.get(DataSource).createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [tenant.merchantId]);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await holder.rollbackTransaction();
        await holder.release();
      },
    };
  }

  it.each(ENDINGS)(
    'issues no key after %s has answered: every key being issued is there when it answers, or is refused',
    async (_label, end, endStatus) => {
      const c = await consoleOnOwnKey(t);
      let ended = false;
      let atEnd: string[] | undefined;
      let n = 0;
      const issue = async () => {
        const sentAfterEnd = ended;
        const response = await c.client.post(`/console/stores/${c.tenant.storeId}/keys`, { name: `minted ${n++}`, scopes: ['events'] });
        return { response, sentAfterEnd };
      };

      const held = await holdMerchant(c.tenant);
      let outcomes;
      try {
        const early = Array.from({ length: 6 }, issue);
        await sleep(onPostgres ? 300 : 2);
        const ending = end(t, c).then(async (response) => {
          ended = true;
          atEnd = await minted(t, c.tenant);
          return response;
        });
        const during = Array.from({ length: 6 }, async (_, i) => {
          await sleep(i);
          return issue();
        });
        if (onPostgres) {
          await sleep(300);
          expect(atEnd).toBeUndefined(); // the ending waits for the keys being issued
        }
        await held.release();
        const endResponse = await ending;
        expect(endResponse.status).toBe(endStatus);
        const late = await Promise.all(Array.from({ length: 6 }, issue));
        outcomes = [...(await Promise.all([...early, ...during])), ...late];
      } finally {
        await held.release();
      }

      for (const { response } of outcomes) {
        if (response.status !== 201) expectSentToSignIn(response);
      }
      for (const { response } of outcomes.filter((o) => o.sentAfterEnd)) expectSentToSignIn(response);
      expect(outcomes.filter((o) => o.sentAfterEnd).length).toBeGreaterThanOrEqual(6);
      // every key the session issued was listed when the ending answered: none came after
      const issued = outcomes.filter((o) => o.response.status === 201).length;
      if (onPostgres) expect(issued).toBeGreaterThanOrEqual(6); // the held ones
      const after = await minted(t, c.tenant);
      expect(after.sort()).toEqual(atEnd?.sort());
      expect(after).toHaveLength(issued);
    },
  );
});
