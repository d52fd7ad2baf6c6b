import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, type TestApp, useApp } from '../../support/app.js';
import {
  ConsoleClient,
  expectSeeOther,
  fieldErrors,
  findAll,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  storeIds,
  uniqueEmail,
} from '../../support/console-client.js';
import { createTenant, expectProblem, issueKey } from '../../support/fixtures.js';

interface AccountRecord {
  id: string;
  email: string;
  api_key_id: string;
  api_key_name: string;
  api_key_prefix: string;
  created_at: string;
  last_signed_in_at: string | null;
}

const db = (t: TestApp) => t.app.get(DataSource);

async function listAccounts(t: TestApp, secret: string): Promise<AccountRecord[]> {
  const response = await t.http().get('/v1/console-accounts?limit=100').set(bearer(secret));
  expect(response.status).toBe(200);
  return response.body.data as AccountRecord[];
}

const accountIds = (html: string): string[] => findAll(html, 'tr', { 'data-account-id': true }).map((tr) => tr.attrs['data-account-id']);

/** A signed-in page answers 200; a signed-out browser is sent to the login page. */
const signedIn = async (client: ConsoleClient): Promise<boolean> => {
  const response = await client.get('/console');
  if (response.status === 200) return true;
  expectSeeOther(response, '/console/login');
  return false;
};

async function accountsOfKey(t: TestApp, keyId: string): Promise<number> {
  const rows = (await db(t).query('SELECT count(*)::int AS n FROM console_accounts WHERE api_key_id = $1', [keyId])) as Array<{
    n: number;
  }>;
  return rows[0].n;
}

describe('console accounts through the API', () => {
  const t = useApp();

  it("lists the merchant's accounts with the key each signed up with, never a password, and none of another merchant's", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const second = await issueKey(t, tenant.admin.secret, { name: 'second admin', scopes: ['admin'] });
    const ada = await signUp(t, tenant);
    const bob = await signUp(t, second.secret);
    await signUp(t, other);

    const accounts = await listAccounts(t, tenant.admin.secret);
    expect(accounts.map((a) => [a.email, a.api_key_id, a.api_key_name, a.api_key_prefix]).sort()).toEqual(
      [
        [ada.email, tenant.admin.id, expect.any(String), tenant.admin.secret.slice(0, 8)],
        [bob.email, second.id, 'second admin', second.secret.slice(0, 8)],
      ].sort(),
    );
    for (const account of accounts) {
      expect(Object.keys(account).sort()).toEqual([
        'api_key_id',
        'api_key_name',
        'api_key_prefix',
        'created_at',
        'email',
        'id',
        'last_signed_in_at',
      ]);
      expect(account.last_signed_in_at).not.toBeNull();
    }
  });

  it('is for unrestricted admin keys only: a store-bound admin key gets 403', async () => {
    const tenant = await createTenant(t);
    const storeAdmin = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
    expectProblem(await t.http().get('/v1/console-accounts').set(bearer(storeAdmin.secret)), 403, 'insufficient_scope');
    const account = await signUp(t, tenant);
    const [record] = await listAccounts(t, tenant.admin.secret);
    expectProblem(await t.http().delete(`/v1/console-accounts/${record.id}`).set(bearer(storeAdmin.secret)), 403, 'insufficient_scope');
    expect(await signedIn(account)).toBe(true);
  });

  it('removes an account: 204, its open session signed out at its next request, its password refused', async () => {
    const tenant = await createTenant(t);
    const account = await signUp(t, tenant);
    const [record] = await listAccounts(t, tenant.admin.secret);

    expect((await t.http().delete(`/v1/console-accounts/${record.id}`).set(bearer(tenant.admin.secret))).status).toBe(204);
    expect(await signedIn(account)).toBe(false);
    expect((await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD })).status).toBe(401);
    expect(await listAccounts(t, tenant.admin.secret)).toEqual([]);
    expectProblem(await t.http().delete(`/v1/console-accounts/${record.id}`).set(bearer(tenant.admin.secret)), 404, 'not_found');
  });

  it("answers 404 for another merchant's account, and leaves it signed in", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const theirs = await signUp(t, other);
    const [record] = await listAccounts(t, other.admin.secret);

    expectProblem(await t.http().delete(`/v1/console-accounts/${record.id}`).set(bearer(tenant.admin.secret)), 404, 'not_found');
    expectProblem(await t.http().delete('/v1/console-accounts/not-an-id').set(bearer(tenant.admin.secret)), 404, 'not_found');
    expect(await signedIn(theirs)).toBe(true);
  });
});

describe('console access ends with the key that granted it', () => {
  const t = useApp();

  it('a revoked key leaves nothing behind: the account, its sessions and its sign-in are gone', async () => {
    const tenant = await createTenant(t);
    const stolen = await issueKey(t, tenant.admin.secret, { name: 'stolen', scopes: ['admin'] });
    const intruder = await signUp(t, stolen.secret);
    const second = await logIn(t, intruder);

    expect((await t.http().delete(`/v1/api-keys/${stolen.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
    expect(await signedIn(intruder)).toBe(false);
    expect(await signedIn(second)).toBe(false);
    expect((await new ConsoleClient(t).submitLogIn({ email: intruder.email, password: PASSWORD })).status).toBe(401);
    expect(await accountsOfKey(t, stolen.id)).toBe(0);
    expect(await listAccounts(t, tenant.admin.secret)).toEqual([]);
  });

  it("revoking another key, or the same key again, touches no one else's access", async () => {
    const tenant = await createTenant(t);
    const spare = await issueKey(t, tenant.admin.secret, { name: 'spare', scopes: ['admin'] });
    const account = await signUp(t, tenant);
    expect((await t.http().delete(`/v1/api-keys/${spare.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
    expect((await t.http().delete(`/v1/api-keys/${spare.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
    expect(await signedIn(account)).toBe(true);
  });

  it('a store-bound admin key cannot end an account by naming the unrestricted key that granted it', async () => {
    const tenant = await createTenant(t);
    const storeAdmin = await issueKey(t, tenant.admin.secret, { scopes: ['admin'], store_id: tenant.storeId });
    const account = await signUp(t, tenant);
    expectProblem(await t.http().delete(`/v1/api-keys/${tenant.admin.id}`).set(bearer(storeAdmin.secret)), 404, 'not_found');
    expect(await signedIn(account)).toBe(true);
  });

  it('an expired key stops its accounts at the next request; the email then signs up again with a live key', async () => {
    const tenant = await createTenant(t);
    const expiring = await issueKey(t, tenant.admin.secret, { name: 'expiring', scopes: ['admin'] });
    const account = await signUp(t, expiring.secret);
    await db(t).query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expiring.id]);

    expect(await signedIn(account)).toBe(false);
    expect((await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD })).status).toBe(401);
    expect(await listAccounts(t, tenant.admin.secret)).toEqual([]);

    const again = await signUp(t, tenant, { email: account.email, password: `${PASSWORD} anew` });
    expect(storeIds((await again.page('/console')).text)).toEqual([tenant.storeId]);
    expect((await listAccounts(t, tenant.admin.secret)).map((a) => a.api_key_id)).toEqual([tenant.admin.id]);
  });

  it('a revocation racing sign-ups with the key never leaves an account behind', async () => {
    const tenant = await createTenant(t);
    for (let round = 0; round < 3; round++) {
      const key = await issueKey(t, tenant.admin.secret, { name: `race ${round}`, scopes: ['admin'] });
      const clients = Array.from({ length: 4 }, () => new ConsoleClient(t));
      await Promise.all(clients.map((client) => client.page('/console/signup')));
      const [, ...signUps] = await Promise.all([
        t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(tenant.admin.secret)),
        ...clients.map((client) => client.submitSignUp({ admin_key: key.secret, email: uniqueEmail('race'), password: PASSWORD })),
      ]);
      for (const response of signUps) expect([303, 422]).toContain(response.status);
      expect(await accountsOfKey(t, key.id)).toBe(0);
      for (const client of clients) expect(await signedIn(client)).toBe(false);
    }
  });

  it('once the revocation has answered, no request of a session racing it gets in', async () => {
    const tenant = await createTenant(t);
    const key = await issueKey(t, tenant.admin.secret, { name: 'racing', scopes: ['admin'] });
    const account = await signUp(t, key.secret);
    let revokedAt = Number.POSITIVE_INFINITY;
    const late: number[] = [];
    const requests = Array.from({ length: 30 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 5));
      const sentAt = performance.now();
      const response = await account.get('/console');
      if (sentAt > revokedAt && response.status === 200) late.push(i);
    });
    const revocation = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect((await t.http().delete(`/v1/api-keys/${key.id}`).set(bearer(tenant.admin.secret))).status).toBe(200);
      revokedAt = performance.now();
    })();
    await Promise.all([...requests, revocation]);
    expect(late).toEqual([]);
    expect(await signedIn(account)).toBe(false);
  });
});

describe('the console shows who has access', () => {
  const t = useApp();

  it('lists every account of the merchant, marks your own, and removes another, whose session ends', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const colleague = await signUp(t, tenant);
    await signUp(t, await createTenant(t));
    const records = await listAccounts(t, tenant.admin.secret);
    const mine = records.find((a) => a.email === me.email) as AccountRecord;
    const theirs = records.find((a) => a.email === colleague.email) as AccountRecord;

    const page = await me.page('/console/access');
    expect(accountIds(page.text).sort()).toEqual([mine.id, theirs.id].sort());
    expect(findAll(page.text, 'tr', { 'data-account-id': mine.id })[0].text).toContain('you');

    expectSeeOther(await me.post(`/console/access/${theirs.id}/remove`), '/console/access');
    expect(await signedIn(colleague)).toBe(false);
    expect(accountIds((await me.page('/console/access')).text)).toEqual([mine.id]);
  });

  it('removing your own account signs you out', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const [mine] = await listAccounts(t, tenant.admin.secret);
    await me.page('/console/access');
    const response = await me.post(`/console/access/${mine.id}/remove`);
    expectSeeOther(response, '/console/login');
    expect(await signedIn(me)).toBe(false);
    expect(await listAccounts(t, tenant.admin.secret)).toEqual([]);
  });

  it("answers 404 when removing another merchant's account from the console, and removes nothing", async () => {
    const me = await signUp(t, await createTenant(t));
    const other = await createTenant(t);
    await signUp(t, other);
    const [theirs] = await listAccounts(t, other.admin.secret);
    await me.page('/console/access');
    expect((await me.post(`/console/access/${theirs.id}/remove`)).status).toBe(404);
    expect(await listAccounts(t, other.admin.secret)).toHaveLength(1);
  });
});

describe('changing a console password', () => {
  const t = useApp();

  it('needs the current password, then signs out every other browser and keeps this one signed in', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const elsewhere = await logIn(t, me);
    const next = `${PASSWORD} changed`;

    await me.page('/console/password');
    const wrong = await me.post('/console/password', { current_password: `${PASSWORD} no`, new_password: next });
    expect(wrong.status).toBe(422);
    expect(Object.keys(fieldErrors(wrong.text))).toEqual(['current_password']);
    const short = await me.post('/console/password', { current_password: PASSWORD, new_password: 'short' });
    expect(Object.keys(fieldErrors(short.text))).toEqual(['new_password']);
    expect(await signedIn(elsewhere)).toBe(true);

    // post/redirect/get: the notice is a page of its own, so a reload shows it again rather than sending the form again
    const changed = await me.post('/console/password', { current_password: PASSWORD, new_password: next });
    expect({ status: changed.status, location: changed.headers.location }).toEqual({
      status: 303,
      location: '/console/password?changed=1',
    });
    expect(setCookies(changed, 'sf_console')).toHaveLength(1);
    for (let reload = 0; reload < 2; reload++) {
      const notice = await me.page('/console/password?changed=1');
      expect(findAll(notice.text, 'p', { 'data-status': 'password_changed' })).toHaveLength(1);
    }
    expect(findAll((await me.page('/console/password')).text, 'p', { 'data-status': 'password_changed' })).toHaveLength(0);
    expect(await signedIn(me)).toBe(true);
    expect(await signedIn(elsewhere)).toBe(false);
    // the new page's forms carry the new session's token
    await me.page('/console/password?changed=1');
    expectSeeOther(await me.post('/console/password', { current_password: next, new_password: `${next} again` }), '/console/password');

    expect((await new ConsoleClient(t).submitLogIn({ email: me.email, password: PASSWORD })).status).toBe(401);
    await logIn(t, { email: me.email, password: `${next} again` });
  });
});

describe('sign-ups that reveal nothing and are counted', () => {
  const t = useApp();

  it('counts sign-ups with an email the merchant already has against the address, up to 20', async () => {
    const tenant = await createTenant(t);
    const taken = await signUp(t, tenant);
    const browser = new ConsoleClient(t);
    for (let i = 0; i < 20; i++) {
      const response = await browser.submitSignUp({ admin_key: tenant.admin.secret, email: taken.email, password: `${PASSWORD} ${i}` });
      expect(Object.keys(fieldErrors(response.text))).toEqual(['email']);
    }
    const refused = await browser.submitSignUp({ admin_key: tenant.admin.secret, email: uniqueEmail(), password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the sign-up email check under a crafted address', () => {
  const t = useApp();

  it('answers 422 on email without stalling the event loop', async () => {
    const tenant = await createTenant(t);
    const browser = new ConsoleClient(t);
    await browser.page('/console/signup');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let response: Response | undefined;
    for (let i = 0; i < 4; i++) {
      response = await browser.submitSignUp({ admin_key: tenant.admin.secret, email: `a@${'.'.repeat(15_800)}@`, password: PASSWORD });
    }
    delay.disable();
    expect(Object.keys(fieldErrors((response as Response).text))).toEqual(['email']);
    // A quadratic pattern took about 400 ms a request here; a linear check takes well under a millisecond.
    expect(delay.max / 1e6).toBeLessThan(150);
  });
});

describe('sign-in throttling behind a trusted proxy (TRUST_PROXY)', () => {
  const t = useApp({ trustProxy: 'loopback' });

  it("counts each client's failures by X-Forwarded-For, so one guesser does not lock out everyone behind the proxy", async () => {
    const account = await signUp(t, await createTenant(t));
    const guesser = { headers: { 'X-Forwarded-For': '203.0.113.7' } };
    const browser = new ConsoleClient(t);
    await browser.page('/console/login');
    for (let i = 0; i < 20; i++) {
      expect((await browser.post('/console/login', { email: uniqueEmail(`guess${i}`), password: PASSWORD }, guesser)).status).toBe(401);
    }
    expect((await browser.post('/console/login', { email: account.email, password: PASSWORD }, guesser)).status).toBe(429);

    const owner = new ConsoleClient(t);
    await owner.page('/console/login');
    const response = await owner.post(
      '/console/login',
      { email: account.email, password: PASSWORD },
      { headers: { 'X-Forwarded-For': '198.51.100.20' } },
    );
    expectSeeOther(response, '/console');
  });
});

describe('sign-in throttling without a trusted proxy', () => {
  const t = useApp();

  it('ignores X-Forwarded-For: a guesser cannot dodge the address limit by making one up', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);
    await browser.page('/console/login');
    for (let i = 0; i < 20; i++) {
      const spoofed = { headers: { 'X-Forwarded-For': `203.0.113.${i}` } };
      expect((await browser.post('/console/login', { email: uniqueEmail(`guess${i}`), password: PASSWORD }, spoofed)).status).toBe(401);
    }
    const response = await browser.post(
      '/console/login',
      { email: account.email, password: PASSWORD },
      { headers: { 'X-Forwarded-For': '198.51.100.20' } },
    );
    expect(response.status).toBe(429);
  });
});
