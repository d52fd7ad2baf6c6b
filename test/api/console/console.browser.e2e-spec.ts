import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { bearer, OPERATOR_KEY, startApp, type TestApp } from '../../support/app.js';
import { axeViolations, tabTo } from '../../support/console-axe.js';
import {
  chartState,
  freePort,
  horizontalOverflow,
  launchBrowser,
  type Navigation,
  navigate,
  newContext,
  type PageWatch,
  screenshotFolder,
  SKIP_BROWSER_TESTS,
  watch,
} from '../../support/browser.js';
import { createStore, createTenant } from '../../support/fixtures.js';
import {
  DAY,
  HOUR,
  kept,
  type MetricsShop,
  placeSession,
  purchase,
  sendEvents,
  sizeExchange,
  sizeReturn,
  utcDay,
} from '../../support/metrics-fixtures.js';
import { createShop } from '../../support/session-fixtures.js';
import { notification, standinConfig, type StandinPlatform, standinProducts, startPlatform } from '../../support/platform-standin.js';
import { DataSource } from 'typeorm';

/**
 * The seller console in a real browser (docs/decisions/005-seller-console.md): Debian's Chromium driven by
 * playwright-core against the service listening on a port, and the stand-in platform for the OAuth round trip.
 * What supertest cannot see is checked here: the forms as a browser submits them (cookies, CSRF fields, confirm
 * dialogs, redirects across origins under the Content-Security-Policy), the script and the uPlot chart, and the
 * layout at phone width. Any console error, uncaught exception, CSP violation or failed load fails the test.
 *
 * SAVE_SCREENSHOTS=1 keeps full-page screenshots in docs/screenshots (`npm run console:screenshots`).
 * SKIP_BROWSER_TESTS=1 skips the file; otherwise a missing Chromium fails it.
 */

const SECRET = /^sfk_[0-9A-Za-z]{46}$/;
const SHOP = 'demo-shop.myshopify.com';
const PASSWORD = 'violet tapestry marching north';
const RUN = randomBytes(3).toString('hex');
/** A key name with no break opportunity, as long as names may be. */
const LONG_NAME = 'checkout_backend_production_europe_west1_primary_'.repeat(4);

const suite = SKIP_BROWSER_TESTS ? describe.skip : describe;

suite('seller console in Chromium', () => {
  let platform: StandinPlatform;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let shop: MetricsShop;
  let storeName: string;
  let shots: ReturnType<typeof screenshotFolder> | undefined;

  beforeAll(async () => {
    // the browser first: without it there is nothing to test, and the message should say so at once
    browser = await launchBrowser();
    shots = screenshotFolder();
    platform = await startPlatform();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({
      publicUrl: base,
      platform: standinConfig(platform, { scopes: ['read_products', 'read_orders'], timeoutMs: 2000, tokenKey: randomBytes(32) }),
    });
    await t.app.listen(port, '127.0.0.1');

    // a merchant with two stores; the second has a product and a small cohort in the last 30 days
    const tenant = await createTenant(t, 'Northwind Apparel');
    storeName = 'Northwind Berlin';
    const storeId = await createStore(t, tenant.admin.secret, storeName);
    shop = { ...(await createShop(t, storeId, tenant.admin.secret)), tenant: { ...tenant, storeId } };
    const today = utcDay(Date.now());
    const dayA = today - 6 * DAY;
    const dayB = today - 4 * DAY;
    const dayC = today - 2 * DAY;
    await placeSession(t, shop, dayA + 1 * HOUR, 'started');
    await placeSession(t, shop, dayA + 2 * HOUR, 'recommended');
    const a = await placeSession(t, shop, dayA + 3 * HOUR, 'accepted');
    const b = await placeSession(t, shop, dayA + 4 * HOUR, 'accepted');
    const c = await placeSession(t, shop, dayB + 1 * HOUR, 'overridden');
    const d = await placeSession(t, shop, dayB + 2 * HOUR, 'accepted');
    await placeSession(t, shop, dayB + 3 * HOUR, 'started');
    const e = await placeSession(t, shop, dayC + 1 * HOUR, 'accepted');
    await sendEvents(t, shop, [
      ...[a, b, c, d, e].map((s, k) => purchase(shop, { order: `NW-${k}`, line: '1', session: s.id, at: s.createdAt + HOUR })),
      sizeReturn(shop, { order: 'NW-0', line: '1', at: a.createdAt + DAY }),
      kept(shop, { order: 'NW-1', line: '1', at: b.createdAt + DAY }),
      sizeExchange(shop, { order: 'NW-3', line: '1', at: d.createdAt + DAY }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await platform?.close();
    shots?.cleanUp();
  });

  const url = (path: string) => `${base}${path}`;
  const storePath = () => `/console/stores/${shop.storeId}`;
  const shot = async (page: Page, name: string) => {
    if (shots) await page.screenshot({ path: join(shots.dir, `${name}.png`), fullPage: true });
  };
  /** The navigations as `METHOD path status`, for readable comparisons. */
  const steps = (navigations: readonly Navigation[]) =>
    navigations.map((n) => {
      const u = new URL(n.url);
      const where = u.origin === base ? u.pathname : u.origin === platform.origin ? `platform:${u.pathname}` : n.url;
      return `${n.method} ${where} ${n.status}`;
    });

  async function signUpInBrowser(page: Page, watched: PageWatch, email: string, screenshots: boolean): Promise<void> {
    const landing = await navigate(page, watched, () => page.goto(url('/console')));
    expect(steps(landing)).toEqual(['GET /console 303', 'GET /console/login 200']);
    await expect(page.title()).resolves.toMatch(/Log in/);
    if (screenshots) await shot(page, 'login');

    const toSignUp = await navigate(page, watched, () => page.getByRole('link', { name: 'Create an account' }).click());
    expect(steps(toSignUp)).toEqual(['GET /console/signup 200']);
    if (screenshots) await shot(page, 'signup');

    await page.fill('#admin_key', shop.tenant.admin.secret);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    const signedUp = await navigate(page, watched, () => page.getByRole('button', { name: 'Create account' }).click());
    expect(steps(signedUp)).toEqual(['POST /console/signup 303', 'GET /console 200']);
    await expect(page.locator('#account-email').textContent()).resolves.toBe(email);
  }

  async function issueKeyInBrowser(page: Page, watched: PageWatch, name: string, scopes: string[]): Promise<string> {
    await page.locator('details.issue > summary').click();
    await page.fill('#key-name', name);
    for (const scope of scopes) await page.check(`input[name="scopes"][value="${scope}"]`);
    const issued = await navigate(page, watched, () => page.getByRole('button', { name: 'Issue key' }).click());
    expect(steps(issued)).toEqual([`POST ${storePath()}/keys 201`]);
    const secret = (await page.locator('#new-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(SECRET);
    return secret;
  }

  /**
   * Every active key's Revoke button in sight: inside the viewport and inside its table's visible box, the table not
   * scrolling sideways. A long name without break opportunities must wrap rather than push the buttons away.
   */
  async function revokeButtonsOutOfSight(page: Page): Promise<string[]> {
    return page.evaluate<string[]>(`(() => {
      const width = document.documentElement.clientWidth;
      const wrap = document.querySelector('#keys .table-wrap');
      if (!wrap) return ['no keys table'];
      const box = wrap.getBoundingClientRect();
      const problems = wrap.scrollWidth > wrap.clientWidth + 1 ? ['keys table scrolls sideways: ' + wrap.scrollWidth + ' > ' + wrap.clientWidth] : [];
      for (const row of document.querySelectorAll('tr[data-key-id][data-status="active"]')) {
        const button = row.querySelector('td.actions button');
        const b = button ? button.getBoundingClientRect() : null;
        if (!b || b.width === 0 || b.right > Math.min(width, box.right) + 0.5 || b.left < box.left - 0.5)
          problems.push('Revoke of ' + row.getAttribute('data-key-id') + (b ? ' at ' + Math.round(b.left) + '–' + Math.round(b.right) : ' missing'));
      }
      return problems;
    })()`);
  }

  /** Where the series colours were painted on the chart's canvas, as fractions of its width (null: nowhere). */
  async function seriesSpread(page: Page): Promise<{ left: number | null; right: number | null }> {
    return page.evaluate<{ left: number | null; right: number | null }>(`(() => {
      const canvas = document.querySelector('#daily-chart canvas');
      const ctx = canvas && canvas.getContext('2d');
      if (!ctx || canvas.width === 0) return { left: null, right: null };
      const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = [[0x25, 0x63, 0xeb], [0x16, 0xa3, 0x4a], [0x93, 0x33, 0xea], [0xdc, 0x26, 0x26]];
      let left = Infinity;
      let right = -Infinity;
      for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3] <= 128) continue;
        if (!colours.some((c) => Math.abs(pixels[i] - c[0]) + Math.abs(pixels[i + 1] - c[1]) + Math.abs(pixels[i + 2] - c[2]) < 60)) continue;
        const x = (i / 4) % canvas.width;
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
      return left === Infinity ? { left: null, right: null } : { left: left / canvas.width, right: right / canvas.width };
    })()`);
  }

  it('signs up, issues and revokes a key, connects the shop through the platform, shows metrics, logs out and in', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    const email = `merchant-${RUN}@northwind.example`;
    try {
      // ——— sign-up: /console sends a stranger to the login page, which links to the sign-up form ———
      await signUpInBrowser(page, watched, email, true);
      const storeLinks = page.locator('a[data-store-id]');
      expect(await storeLinks.count()).toBe(2);
      await expect(page.locator(`a[data-store-id="${shop.storeId}"]`).textContent()).resolves.toBe(storeName);
      await shot(page, 'stores');

      // ——— the store ———
      const opened = await navigate(page, watched, () => page.locator(`a[data-store-id="${shop.storeId}"]`).click());
      expect(steps(opened)).toEqual([`GET ${storePath()} 200`]);
      await expect(page.locator('h1').textContent()).resolves.toBe(storeName);
      await expect(page.locator('#platform').getAttribute('data-connected')).resolves.toBe('false');

      // ——— a key: the secret is shown once ———
      const secret = await issueKeyInBrowser(page, watched, 'Checkout backend', ['fit', 'events']);
      await shot(page, 'store-new-secret');

      const back = await navigate(page, watched, () => page.goto(url(storePath())));
      expect(steps(back)).toEqual([`GET ${storePath()} 200`]);
      expect(await page.locator('#new-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);
      const row = page.locator('tr[data-key-id]', { hasText: 'Checkout backend' });
      expect(await row.count()).toBe(1);
      await expect(row.getAttribute('data-status')).resolves.toBe('active');
      const rowText = (await row.textContent()) ?? '';
      expect(rowText).toMatch(/\bfit\b/);
      expect(rowText).toMatch(/\bevents\b/);
      const prefix = ((await row.locator('code').first().textContent()) ?? '').replace(/…$/, '');
      expect(prefix.length).toBeGreaterThan(4);
      expect(secret.startsWith(prefix)).toBe(true);

      // ——— revoke: the page asks first (console.js, data-confirm); accepting submits ———
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      const keyId = await row.getAttribute('data-key-id');
      const revoked = await navigate(page, watched, () =>
        row.getByRole('button', { name: 'Revoke “Checkout backend”', exact: true }).click(),
      );
      expect(steps(revoked)).toEqual([`POST ${storePath()}/keys/${keyId}/revoke 303`, `GET ${storePath()} 200`]);
      expect(asked).toContain('Checkout backend');
      const revokedRow = page.locator(`tr[data-key-id="${keyId}"]`);
      await expect(revokedRow.getAttribute('data-status')).resolves.toBe('revoked');
      expect(await revokedRow.getByRole('button', { name: 'Revoke' }).count()).toBe(0);

      // ——— connect: the browser goes to the platform, which approves at once and sends it back ———
      platform.catalogs.set(SHOP, standinProducts(12));
      await page.fill('#shop', SHOP);
      const connected = await navigate(page, watched, () => page.getByRole('button', { name: 'Connect' }).click());
      expect(steps(connected)).toEqual([
        `POST ${storePath()}/platform/connect 303`,
        `GET platform:/shops/${SHOP}/admin/oauth/authorize 302`,
        'GET /console/platform/callback 303',
        `GET ${storePath()} 200`,
      ]);
      expect(platform.exchanges.map((x) => ({ shop: x.shop, status: x.status }))).toEqual([{ shop: SHOP, status: 200 }]);
      await expect(page.locator('#platform').getAttribute('data-connected')).resolves.toBe('true');
      await expect(page.locator('#platform .shop').textContent()).resolves.toBe(SHOP);
      expect(await page.content()).not.toContain(platform.tokens[0]);
      await shot(page, 'store-connected');

      // ——— the shop's notifications: an order (one line the catalog cannot name) and an uninstall-free day ———
      const product = `/v1/stores/${shop.storeId}/products/${shop.productId}`;
      await t.http().patch(product).set(bearer(shop.secret)).send({ external_id: '1000' });
      await t.http().patch(`${product}/variants/${shop.variants.M}`).set(bearer(shop.secret)).send({ external_id: '100001' });
      const order = notification(platform, SHOP, 'orders/paid', {
        id: 'NW-1001',
        processed_at: new Date().toISOString(),
        line_items: [
          { id: '1', product_id: '1000', variant_id: '100001', quantity: 1 },
          { id: '2', product_id: 'nw-socks', variant_id: 'nw-socks-one', quantity: 1 },
        ],
      });
      expect((await t.http().post('/platform/webhooks').set(order.headers).send(order.body)).status).toBe(200);
      const settled = async () => {
        for (let waited = 0; waited < 100; waited++) {
          const [row] = await t.app
            .get(DataSource)
            .query(
              `SELECT w.state, i.state AS import FROM platform_webhooks w, platform_imports i WHERE w.store_id = $1 AND i.store_id = $1`,
              [shop.storeId],
            );
          if (row?.state === 'processed' && row.import === 'done') return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await settled();
      await tabTo(page, '#platform a[href$="/platform"]');
      const toNotices = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(toNotices)).toEqual([`GET ${storePath()}/platform 200`]);
      // the catalog imported again, now that one of its products is in the store's catalog
      await tabTo(page, '#catalog-import button[type="submit"]');
      const reimported = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(reimported)).toEqual([`POST ${storePath()}/platform/import 303`, `GET ${storePath()}/platform 200`]);
      await settled();
      await navigate(page, watched, () => page.reload());
      await expect(page.locator('h1').textContent()).resolves.toBe('Shop connection');
      const noticeRow = page.locator('#notices tr[data-topic="orders/paid"]');
      await expect(noticeRow.getAttribute('data-state')).resolves.toBe('processed');
      expect(await noticeRow.textContent()).toContain('1 of 2 lines recorded, 1 not recorded');
      expect(await page.locator('#dead-letters [data-empty="dead-letters"]').count()).toBe(1);
      await expect(page.locator('#catalog-import').getAttribute('data-state')).resolves.toBe('done');
      expect(await page.locator('#catalog-import .figures').textContent()).toMatch(
        /12 products\s+.*45 variants\s+.*1 in the catalog\s+.*10 need a chart\s+.*1 skipped/s,
      );
      await page.locator('#catalog-import details[data-list="needs-chart"] summary').click();
      expect({ step: 'shop connection', violations: await axeViolations(page) }).toEqual({ step: 'shop connection', violations: [] });
      await shot(page, 'store-platform');
      await navigate(page, watched, () => page.goto(url(storePath())));

      // ——— metrics: the seven rates and the chart drawn by uPlot ———
      const toMetrics = await navigate(page, watched, () => page.getByRole('link', { name: 'Metrics' }).click());
      expect(steps(toMetrics)).toEqual([`GET ${storePath()}/metrics 200`]);
      expect(await page.locator('#rates tr[data-rate]').count()).toBe(7);
      const quiz = page.locator('#rates tr[data-rate="quiz_completion"]');
      await expect(quiz.getAttribute('data-numerator')).resolves.toBe('6');
      await expect(quiz.getAttribute('data-denominator')).resolves.toBe('8');
      await expect(quiz.getAttribute('data-value')).resolves.toBe('0.75');
      const started = (await page.locator('#daily tr[data-date] td:first-of-type').allTextContents()).map(Number);
      expect(started.length).toBeGreaterThanOrEqual(30);
      expect(started.reduce((sum, n) => sum + n, 0)).toBe(8);
      const chart = await chartState(page);
      expect(chart).toMatchObject({ uplot: true });
      expect(chart.canvases).toBeGreaterThanOrEqual(1);
      expect(chart.canvasWidth).toBeGreaterThan(0);
      expect(chart.canvasHeight).toBeGreaterThan(0);
      expect(chart.seriesPixels).toBeGreaterThan(0); // the series lines were painted, not only an empty frame
      expect(chart.right).toBeLessThanOrEqual(chart.containerRight + 1);
      await shot(page, 'metrics-desktop');
      // a range running past today: its table lists every day, its chart stops at today
      const day = (offset: number) => new Date(utcDay(Date.now()) + offset * DAY).toISOString().slice(0, 10);
      await navigate(page, watched, () => page.goto(url(`${storePath()}/metrics?from=${day(-2)}&to=${day(3)}`)));
      expect(await page.locator('#daily tr[data-date]').count()).toBe(6);
      await expect(page.locator('#daily-chart').getAttribute('data-days-drawn')).resolves.toBe('3');

      // ——— log out, and back in with email and password ———
      const loggedOut = await navigate(page, watched, () => page.getByRole('button', { name: 'Log out' }).click());
      expect(steps(loggedOut)).toEqual(['POST /console/logout 303', 'GET /console/login 200']);
      expect(await page.locator('#account-email').count()).toBe(0);
      const stranger = await navigate(page, watched, () => page.goto(url('/console')));
      expect(steps(stranger)).toEqual(['GET /console 303', 'GET /console/login 200']);

      await page.fill('#email', email);
      await page.fill('#password', PASSWORD);
      const loggedIn = await navigate(page, watched, () => page.getByRole('button', { name: 'Log in' }).click());
      expect(steps(loggedIn)).toEqual(['POST /console/login 303', 'GET /console 200']);
      await expect(page.locator('#account-email').textContent()).resolves.toBe(email);
      expect(await page.locator('a[data-store-id]').count()).toBe(2);

      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);

  it('fits a phone screen: no sideways scrolling on any page, the chart inside the viewport', async () => {
    const context = await newContext(browser, {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const watched = watch(page);
    const fits = async (what: string) => {
      const overflow = await horizontalOverflow(page);
      expect({ page: what, ...overflow }).toEqual({ page: what, scrollWidth: overflow.clientWidth, clientWidth: 390, offenders: [] });
    };
    try {
      await signUpInBrowser(page, watched, `phone-${RUN}@northwind.example`, false);
      await fits('stores');

      await navigate(page, watched, () => page.locator(`a[data-store-id="${shop.storeId}"]`).click());
      await fits('store');
      await issueKeyInBrowser(page, watched, 'Phone checkout backend with a longer name', ['catalog', 'fit']);
      await fits('store, new secret');
      // a name with nowhere to break (names may be 200 characters) wraps, in the notice and in the list
      await issueKeyInBrowser(page, watched, LONG_NAME, ['fit']);
      await fits('store, new secret with a long name');
      await navigate(page, watched, () => page.goto(url(storePath())));
      expect(await page.locator('tr[data-key-id]').count()).toBeGreaterThanOrEqual(2);
      await fits('store with keys');
      await expect(revokeButtonsOutOfSight(page)).resolves.toEqual([]);
      await shot(page, 'store-phone');

      const toMetrics = await navigate(page, watched, () => page.getByRole('link', { name: 'Metrics' }).click());
      expect(steps(toMetrics)).toEqual([`GET ${storePath()}/metrics 200`]);
      await fits('metrics');
      const chart = await chartState(page);
      expect(chart).toMatchObject({ uplot: true });
      expect(chart.canvasWidth).toBeGreaterThan(0);
      expect(chart.canvasHeight).toBeGreaterThan(0);
      expect(chart.seriesPixels).toBeGreaterThan(0);
      expect(chart.left).toBeGreaterThanOrEqual(0);
      expect(chart.right).toBeLessThanOrEqual(390);
      expect(chart.right).toBeLessThanOrEqual(chart.containerRight + 1);
      // the daily table, opened, scrolls inside its own box rather than the page
      await page.locator('#daily').locator('xpath=ancestor::details[1]/summary').click();
      await fits('metrics, daily table open');
      await page.locator('#daily').locator('xpath=ancestor::details[1]/summary').click();
      await shot(page, 'metrics-phone');

      // who has access, from the top bar, with the remove button inside the screen
      await navigate(page, watched, () => page.getByRole('link', { name: 'Access' }).click());
      expect(await page.locator('tr[data-account-id]').count()).toBeGreaterThanOrEqual(1);
      await fits('console access');
      // the header row is hidden on a phone, so each date names itself
      const dates = await page.evaluate<string[]>(
        `[...document.querySelector('tr[data-account-id]').querySelectorAll('td.created, td.last')]
          .map((cell) => getComputedStyle(cell, '::before').content)`,
      );
      expect(dates).toEqual([expect.stringContaining('Created'), expect.stringContaining('Last sign-in')]);
      await shot(page, 'access-phone');
      await navigate(page, watched, () => page.getByRole('link', { name: 'Password' }).click());
      await fits('change password');

      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);
  it('keeps a long key name inside the page on a desktop screen, every Revoke button in sight', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    try {
      await signUpInBrowser(page, watched, `desktop-${RUN}@northwind.example`, false);
      await navigate(page, watched, () => page.locator(`a[data-store-id="${shop.storeId}"]`).click());
      await issueKeyInBrowser(page, watched, 'Desktop backend', ['fit']);
      await issueKeyInBrowser(page, watched, LONG_NAME.slice(0, 150), ['fit']);
      const notice = await horizontalOverflow(page);
      expect(notice).toEqual({ scrollWidth: 1280, clientWidth: 1280, offenders: [] });
      await navigate(page, watched, () => page.goto(url(storePath())));
      const list = await horizontalOverflow(page);
      expect(list).toEqual({ scrollWidth: 1280, clientWidth: 1280, offenders: [] });
      await expect(revokeButtonsOutOfSight(page)).resolves.toEqual([]);
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);
  it('draws a one-day range as that day: one date under the axis, its points in the middle, not at the edge', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    const day = (offset: number) => new Date(utcDay(Date.now()) + offset * DAY).toISOString().slice(0, 10);
    try {
      await signUpInBrowser(page, watched, `short-${RUN}@northwind.example`, false);
      for (const [from, to, drawn] of [
        [day(-2), day(-2), [day(-2)]], // a past day with sessions
        [day(0), day(0), [day(0)]], // today
        [day(0), day(6), [day(0)]], // a week starting today: only today is drawn
        [day(-3), day(-2), [day(-3), day(-2)]], // two days
      ] as const) {
        await navigate(page, watched, () => page.goto(url(`${storePath()}/metrics?from=${from}&to=${to}`)));
        const chart = page.locator('#daily-chart');
        await expect(chart.getAttribute('data-days-drawn')).resolves.toBe(String(drawn.length));
        const labels = ((await chart.getAttribute('data-x-labels')) ?? '').split(' ');
        // each label a day of the range, each day at most once: no hours, no months or years
        expect({ from, to, labels }).toEqual({ from, to, labels: drawn.map((d) => d.slice(5)).filter((d) => labels.includes(d)) });
        expect(labels.length).toBeGreaterThanOrEqual(1);
        const { left, right } = await seriesSpread(page);
        expect({ from, to, painted: left !== null && right !== null }).toEqual({ from, to, painted: true });
        const spread = { left: left ?? 0, right: right ?? 0 };
        // one day: its points near the middle of the plot; two days: from near one edge to near the other
        if (drawn.length === 1) {
          expect({ from, to, left: spread.left > 0.35, right: spread.right < 0.8 }).toEqual({ from, to, left: true, right: true });
        } else {
          expect({ from, to, wide: spread.right - spread.left > 0.5 }).toEqual({ from, to, wide: true });
        }
      }
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);

  it('lets a new merchant with only an admin key set a store up: store, chart from a template, product type, products', async () => {
    const merchant = await t.http().post('/v1/merchants').set(bearer(OPERATOR_KEY)).send({ name: 'Fjord Knitwear' });
    expect(merchant.status).toBe(201);
    const adminKey = merchant.body.api_key.secret as string;
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    const accessible = async (step: string) => expect({ step, violations: await axeViolations(page) }).toEqual({ step, violations: [] });
    try {
      // ——— sign-up says which key it needs and where it comes from ———
      await navigate(page, watched, () => page.goto(url('/console/signup')));
      await expect(page.locator('main').textContent()).resolves.toMatch(/admin key.+sfk_.+shown once when your merchant was set up/s);
      await expect(page.locator('#admin_key').getAttribute('aria-describedby')).resolves.toBe('admin_key-hint');
      await accessible('sign-up');
      await page.fill('#admin_key', adminKey);
      await page.fill('#email', `setup-${RUN}@fjord.example`);
      await page.fill('#password', PASSWORD);
      await navigate(page, watched, () => page.getByRole('button', { name: 'Create account' }).click());

      // ——— no store yet: the form to create one is open; filled and sent with the keyboard alone ———
      await expect(page.locator('section[data-empty="stores"]').textContent()).resolves.toMatch(/Create your first store below/);
      await accessible('stores, empty');
      await shot(page, 'setup-stores-empty');
      await tabTo(page, '#store-name');
      await page.keyboard.type('Fjord Oslo');
      await tabTo(page, '#store-currency');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('nok');
      const created = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(created)).toEqual([
        expect.stringMatching(/^POST \/console\/stores 303$/),
        expect.stringMatching(/^GET \/console\/stores\/[0-9a-f-]{36} 200$/),
      ]);
      const storeId = /stores\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
      await expect(page.locator('h1').textContent()).resolves.toBe('Fjord Oslo');
      await expect(page.locator('[data-status="created"]').count()).resolves.toBe(1);
      await accessible('store, created');

      // ——— a chart from a template ———
      await navigate(page, watched, () => page.locator('#setup').getByRole('link', { name: 'Size charts' }).click());
      await expect(page.locator('[data-empty="charts"]').count()).resolves.toBe(1);
      await accessible('charts, empty');
      await page.selectOption('#template', 'women-tops');
      await page.check('#labels-UK');
      const chart = await navigate(page, watched, () => page.getByRole('button', { name: 'Create chart' }).click());
      expect(steps(chart)).toEqual([
        `POST /console/stores/${storeId}/charts 303`,
        expect.stringMatching(/^GET \/console\/stores\/.+\/charts\/[0-9a-f-]{36} 200$/),
      ]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Women’s tops (UK)');
      await accessible('chart');
      // the drawing follows the figures as they are typed
      const bar = page.locator('figure[data-zone="chest"] rect').first();
      const before = Number(await bar.getAttribute('width'));
      await page.fill('#size-0-chest-max', '84');
      await page.waitForFunction(`Number(document.querySelector('figure[data-zone="chest"] rect').getAttribute('width')) > ${before}`);
      // a figure that is not a number: the page comes back with the message on its cell, the summary linking to it
      await page.fill('#size-1-chest', 'abc');
      const seen = watched.problems.length;
      const refused = await navigate(page, watched, () => page.getByRole('button', { name: 'Save chart' }).click());
      expect(refused.map((n) => n.status)).toEqual([422]);
      // Chromium reports the refused form's 422 as a console error: that one, and nothing else, is expected
      expect(watched.problems.splice(seen)).toEqual([expect.stringContaining('status of 422 (Unprocessable Entity)')]);
      await expect(page.title()).resolves.toMatch(/^Error: /);
      await expect(page.locator('#size-1-chest-error').textContent()).resolves.toBe('Write each end as a number, such as 86 or 86.5');
      await accessible('chart, refused');
      await page.locator('.error-summary a[href="#size-1-chest"]').click();
      await expect(page.evaluate('document.activeElement && document.activeElement.id')).resolves.toBe('size-1-chest');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('78');
      await page.fill('#size-0-chest-max', '80');
      await shot(page, 'setup-chart');
      const saved = await navigate(page, watched, () => page.getByRole('button', { name: 'Save chart' }).click());
      expect(steps(saved).map((step) => step.replace(/[0-9a-f-]{36}/g, 'ID'))).toEqual([
        'POST /console/stores/ID/charts/ID 303',
        'GET /console/stores/ID/charts/ID 200',
      ]);
      await expect(page.locator('[data-status="saved"]').count()).resolves.toBe(1);

      // ——— a product type ———
      await navigate(page, watched, () =>
        page
          .locator('nav.steps')
          .getByRole('link', { name: /Product types/ })
          .click(),
      );
      await accessible('product types, empty');
      await page.fill('#type-name', 'T-shirt');
      await navigate(page, watched, () => page.getByRole('button', { name: 'Add product type' }).click());
      await expect(page.locator('tr[data-type-id]').textContent()).resolves.toMatch(/T-shirt.*Chest or bust 1, Waist 0.5/);
      await accessible('product types');
      await shot(page, 'setup-product-types');

      // ——— products, each with a variant per size; then two changed at once ———
      await navigate(page, watched, () =>
        page
          .locator('nav.steps')
          .getByRole('link', { name: /Products/ })
          .click(),
      );
      await accessible('products, empty');
      for (const [title, id] of [
        ['Merino crew', 'gid://shopify/Product/501'],
        ['Merino cardigan', 'gid://shopify/Product/502'],
      ]) {
        await page.fill('#product-title', title);
        await page.fill('#product-external-id', id);
        await navigate(page, watched, () => page.getByRole('button', { name: 'Add product' }).click());
        await expect(page.locator('[data-status="added"]').textContent()).resolves.toContain(
          `“${title}” added, with a variant for each of its 9 sizes`,
        );
      }
      await accessible('products');
      await page.check('#select-all');
      await page.selectOption('#bulk-fit', 'runs_small');
      await navigate(page, watched, () => page.getByRole('button', { name: 'Apply to selected' }).click());
      await expect(page.locator('[data-status="bulk"]').getAttribute('data-changed')).resolves.toBe('2');
      expect(await page.locator('td.fit[data-fit="runs_small"]').count()).toBe(2);
      await accessible('products, changed');
      await shot(page, 'setup-products');
      await page.fill('#q', 'cardigan');
      await navigate(page, watched, () => page.getByRole('button', { name: 'Filter' }).click());
      expect(await page.locator('tr[data-product-id]').count()).toBe(1);

      // ——— on a phone, nothing scrolls sideways but the tables inside their own boxes ———
      await page.setViewportSize({ width: 390, height: 844 });
      const here = new URL(page.url()).pathname; // the products list, filtered
      expect(here).toBe(`/console/stores/${storeId}/products`);
      const chartId = (await page.locator('#filter-chart option').nth(1).getAttribute('value')) ?? '';
      for (const path of ['products', 'product-types', 'charts', `charts/${chartId}`, 'status']) {
        await navigate(page, watched, () => page.goto(url(`/console/stores/${storeId}/${path}`)));
        const overflow = await horizontalOverflow(page);
        expect({ path, ...overflow }).toEqual({ path, scrollWidth: 390, clientWidth: 390, offenders: [] });
      }
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('speaks plain words: empty states say what to send, rates say which way is better, one small chart per count, caveats folded, fit in sentences, keys with last use and expiry, the integration’s status', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    const accessible = async (step: string) => expect({ step, violations: await axeViolations(page) }).toEqual({ step, violations: [] });
    try {
      await signUpInBrowser(page, watched, `words-${RUN}@northwind.example`, false);

      // ——— metrics of a store with sessions: coloured rates, small multiples, folded caveats ———
      await navigate(page, watched, () => page.goto(url(`${storePath()}/metrics`)));
      expect(await page.locator('[data-empty="metrics"]').count()).toBe(0);
      const meter = (rate: string) => page.locator(`#rates tr[data-rate="${rate}"] meter`);
      await expect(page.locator('#rates tr[data-rate="size_related_return"]').getAttribute('data-better')).resolves.toBe('lower');
      await expect(meter('size_related_return').getAttribute('optimum')).resolves.toBe('0');
      await expect(meter('kept_after_recommendation').getAttribute('optimum')).resolves.toBe('1');
      await expect(page.locator('#rates tr[data-rate="size_related_return"] th').textContent()).resolves.toMatch(/lower is better/);
      expect(await page.locator('#daily-chart .uplot').count()).toBe(4);
      expect(await page.locator('#daily-chart .u-title').allTextContents()).toEqual([
        'Sessions started',
        'Recommended',
        'Converted',
        'Lines returned for size',
      ]);
      await expect(page.locator('#caveats-card').getAttribute('open')).resolves.toBeNull();
      await expect(page.locator('#caveats').isVisible()).resolves.toBe(false);
      await page.locator('#caveats-card > summary').click();
      await expect(page.locator('#caveats li').first().isVisible()).resolves.toBe(true);
      expect((await page.locator('#caveats').textContent()) ?? '').not.toMatch(/observed_through|line_item_id/);
      await accessible('metrics');
      await shot(page, 'metrics-caveats-open');

      // ——— how products fit, in sentences ———
      await navigate(page, watched, () => page.goto(url(`${storePath()}/product-fit`)));
      await accessible('product fit');
      const fitRows = page.locator('#product-fit tr[data-product-id]');
      expect(await fitRows.count()).toBeGreaterThan(0);
      await expect(fitRows.first().locator('td.sentence').textContent()).resolves.toMatch(
        /^(Fits true to size|Runs (a little|about) .+ (small|large))/,
      );
      await navigate(page, watched, () => fitRows.first().locator('a').click());
      await expect(page.locator('#learned .sentence').textContent()).resolves.toMatch(
        /^(Fits true to size|Runs (a little|about) .+ (small|large))(, from .*(return|exchange|kept).*)?\./,
      );
      await accessible('product fit detail');
      await shot(page, 'product-fit-detail');

      // ——— keys say when they were last used and when they expire ———
      await navigate(page, watched, () => page.goto(url(storePath())));
      const used = await issueKeyInBrowser(page, watched, 'Catalog reader', ['catalog']);
      await issueKeyInBrowser(page, watched, 'Never used', ['fit']);
      expect((await t.http().get(`/v1/stores/${shop.storeId}/products`).set(bearer(used))).status).toBe(200);
      await navigate(page, watched, () => page.goto(url(storePath())));
      await expect(page.locator('#keys thead').textContent()).resolves.toMatch(/Last used.*Expires/);
      const keyRow = (name: string) => page.locator('tr[data-key-id][data-status="active"]', { hasText: name }).first();
      await expect(keyRow('Catalog reader').locator('td.used').textContent()).resolves.toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      await expect(keyRow('Never used').locator('td.used').textContent()).resolves.toBe('never');
      await expect(keyRow('Never used').locator('td.expires').textContent()).resolves.toBe('never');
      await accessible('store');

      // ——— whether the integration works: what arrived, today's counts, what was refused ———
      expect((await t.http().post(`/v1/stores/${shop.storeId}/events`).set(bearer(used)).send({ type: 'purchase' })).status).toBe(403);
      expect(
        (await t.http().post(`/v1/stores/${shop.storeId}/events`).set(bearer(shop.tenant.admin.secret)).send({ type: 'purchase' })).status,
      ).toBe(400);
      await navigate(page, watched, () => page.getByRole('link', { name: 'Integration status' }).click());
      await expect(page.locator('#verdict').getAttribute('data-state')).resolves.toBe('refusing');
      await expect(page.locator('#refusals tr[data-code="validation_failed"]').count()).resolves.toBeGreaterThanOrEqual(1);
      await expect(page.locator('#events tr[data-type="purchase"]').getAttribute('data-last')).resolves.toMatch(/^\d{4}-/);
      await accessible('status');
      await shot(page, 'store-status');

      // ——— a new store says what to send first ———
      await navigate(page, watched, () => page.goto(url('/console')));
      await page.locator('#new-store > summary').click();
      await page.fill('#store-name', 'Northwind Empty');
      await navigate(page, watched, () => page.getByRole('button', { name: 'Create store' }).click());
      await expect(page.locator('[data-empty="keys"]').textContent()).resolves.toMatch(/issue it below/);
      const emptyStore = new URL(page.url()).pathname;
      await navigate(page, watched, () => page.goto(url(`${emptyStore}/metrics`)));
      await expect(page.locator('[data-empty="metrics"]').textContent()).resolves.toMatch(/Send first a fit session/);
      await accessible('metrics, empty');
      await shot(page, 'metrics-empty');
      await navigate(page, watched, () => page.goto(url(`${emptyStore}/product-fit`)));
      await expect(page.locator('#no-products').textContent()).resolves.toMatch(/Send what happens after a purchase/);
      await accessible('product fit, empty');
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
