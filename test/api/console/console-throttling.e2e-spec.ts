import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { generateSecret, MERCHANT_KEY_PREFIX } from '../../../src/common/crypto/key-secret.js';
import { FIRST_EMAIL_DELAY_SECONDS } from '../../../src/console-accounts/login-throttle.js';
import { type TestApp, useApp } from '../../support/app.js';
import {
  ConsoleClient,
  expectErrorPage,
  expectFieldErrors,
  expectPage,
  logIn,
  PASSWORD,
  setCookies,
  signUp,
  textOf,
  uniqueEmail,
} from '../../support/console-client.js';
import { sessionsOfEmail } from '../../support/console-fixtures.js';
import { createTenant } from '../../support/fixtures.js';

/**
 * The seller console (docs/decisions/005-seller-console.md, contract §8), driven like a browser through
 * test/support/console-client.ts: login throttling.
 * Its other parts have files of their own beside this one (test/api/console/console-*.e2e-spec.ts), the platform
 * connection among them (test/api/console/console-platform-*.e2e-spec.ts).
 */

// ———————————————————————————————————————— throttling (one app each: the counters live in memory) ————————————————————————————————————————

/** 429 too_many_attempts with a Retry-After of at most the 15-minute window, and no session. */
function expectThrottled(response: Response): void {
  expectErrorPage(response, 429, 'too_many_attempts');
  const retryAfter = response.headers['retry-after'] as string | undefined;
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);
  expect(setCookies(response, 'sf_console')).toEqual([]);
  // the page names the same wait: seconds under a minute, whole minutes (rounded up) from one minute on
  const seconds = Number(retryAfter);
  const minutes = Math.ceil(seconds / 60);
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  expect(textOf(response.text)).toContain(`Try again in ${wait}.`);
}

const wrongPassword = `${PASSWORD} (wrong)`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('login throttling per email', () => {
  const t = useApp();

  it('makes the attempt after 5 wrong passwords wait, with 429 and Retry-After, even with the right password', async () => {
    const account = await signUp(t, await createTenant(t));
    const neighbour = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    const refused = await browser.submitLogIn({ email: account.email, password: PASSWORD });
    expectThrottled(refused);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(FIRST_EMAIL_DELAY_SECONDS);
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1); // the sign-up's only

    // other emails from the same address are judged on their own
    expectPage(await browser.submitLogIn({ email: uniqueEmail(), password: wrongPassword }), 401);
    await logIn(t, neighbour);
  });

  it('never locks the owner out: once the wait has passed the right password signs in, and each further failure doubles the wait', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);
    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await sleep(FIRST_EMAIL_DELAY_SECONDS * 1000 + 200);

    expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401); // the sixth failure
    const refused = await browser.submitLogIn({ email: account.email, password: PASSWORD });
    expectThrottled(refused);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(FIRST_EMAIL_DELAY_SECONDS);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2 * FIRST_EMAIL_DELAY_SECONDS);
    await sleep(Number(refused.headers['retry-after']) * 1000 + 200);
    await logIn(t, account);
  }, 30_000);

  it('counts failures for an email without an account too', async () => {
    const tenant = await createTenant(t);
    const email = uniqueEmail();
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 5; i++) expectPage(await browser.submitLogIn({ email, password: PASSWORD }), 401);
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email, password: PASSWORD }));
    // the account created now cannot be logged in to until the wait has passed
    await signUp(t, tenant, { email });
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email, password: PASSWORD }));
  });
});

describe('login throttling per email: the email as stored, and successes', () => {
  const t = useApp();

  it('counts an email typed in other cases or with spaces as the same email', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);
    const variants = [
      account.email.toUpperCase(),
      ` ${account.email}`,
      `${account.email} `,
      account.email.replace(/^./, (c) => c.toUpperCase()),
      account.email,
    ];

    for (const email of variants) expectPage(await browser.submitLogIn({ email, password: wrongPassword }), 401);
    expectThrottled(await browser.submitLogIn({ email: account.email, password: PASSWORD }));
  });

  it("clears the email's count on a successful login", async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 4; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await logIn(t, account);
    for (let i = 0; i < 4; i++) expectPage(await browser.submitLogIn({ email: account.email, password: wrongPassword }), 401);
    await logIn(t, account);
  });
});

describe('login throttling per address', () => {
  const t = useApp();

  it('refuses every login from an address with 20 failures in the window, whatever the email, even a right password', async () => {
    const account = await signUp(t, await createTenant(t));
    const browser = new ConsoleClient(t);

    // 20 failures, each for a different email: no email reaches its own limit
    for (let i = 0; i < 20; i++) expectPage(await browser.submitLogIn({ email: uniqueEmail(`guess${i}`), password: wrongPassword }), 401);

    expectThrottled(await browser.submitLogIn({ email: account.email, password: PASSWORD }));
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: uniqueEmail(), password: wrongPassword }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1);
  });
});

describe('login throttling: sign-ups with a bad key', () => {
  const t = useApp();

  it('counts each bad admin key against the address, up to the same 20', async () => {
    const tenant = await createTenant(t);
    const account = await signUp(t, tenant);
    const browser = new ConsoleClient(t);

    for (let i = 0; i < 19; i++) {
      const response = await browser.submitSignUp({
        admin_key: generateSecret(MERCHANT_KEY_PREFIX),
        email: uniqueEmail(),
        password: PASSWORD,
      });
      expectFieldErrors(response, ['admin_key']);
    }
    // one more failure allowed: a login still goes through
    await logIn(t, account);
    expectFieldErrors(await browser.submitSignUp({ admin_key: 'sfk_guess', email: uniqueEmail(), password: PASSWORD }), ['admin_key']);

    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
  });
});

/** `count` browsers, each with the login form open: their submissions can then leave together. */
async function browsersAtTheForm(t: TestApp, count: number): Promise<ConsoleClient[]> {
  const browsers = Array.from({ length: count }, () => new ConsoleClient(t));
  for (const browser of browsers) await browser.get('/console/login');
  return browsers;
}

describe('login throttling: attempts sent all at once', () => {
  const t = useApp();

  it("checks no more than five passwords of an email at once, then one at a time, and never the owner's after them", async () => {
    const account = await signUp(t, await createTenant(t));
    const browsers = await browsersAtTheForm(t, 16);
    const answers = await Promise.all(browsers.map((b) => b.submitLogIn({ email: account.email, password: wrongPassword })));
    const checked = answers.filter((r) => r.status === 401).length;
    // five, and at most one more while they are checked; every other attempt waits
    expect(checked).toBeGreaterThanOrEqual(5);
    expect(checked).toBeLessThanOrEqual(6);
    for (const refused of answers.filter((r) => r.status !== 401)) expectThrottled(refused);
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1);
  });
});

describe('login throttling: attempts from one address sent all at once', () => {
  const t = useApp();

  it('checks no more than 20 attempts from one address, whatever their emails, even all at once', async () => {
    const account = await signUp(t, await createTenant(t));
    const browsers = await browsersAtTheForm(t, 30);
    const answers = await Promise.all(browsers.map((b, i) => b.submitLogIn({ email: uniqueEmail(`burst${i}`), password: wrongPassword })));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(20);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(10);
    for (const refused of answers.filter((r) => r.status === 429)) expectThrottled(refused);
    // the owner too, until the window has passed
    expectThrottled(await new ConsoleClient(t).submitLogIn({ email: account.email, password: PASSWORD }));
    expect(await sessionsOfEmail(t, account.email)).toBe(1);
  });
});
