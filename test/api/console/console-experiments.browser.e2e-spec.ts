import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../../support/app.js';
import { axeViolations, tabTo } from '../../support/console-axe.js';
import {
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
import { experimentsApi } from '../../support/experiment-fixtures.js';
import { createStore, createTenant, type Tenant } from '../../support/fixtures.js';
import { createShop, type Shop } from '../../support/session-fixtures.js';

/**
 * The console's Experiments pages in Chromium (as console.browser.e2e-spec.ts, whose conventions this follows): axe-core
 * finds nothing on the list, a draft, its edit form, a running experiment, its results and withheld results; the
 * create form, the edit form and the start button work from the keyboard alone; the stop button asks first; nothing
 * scrolls sideways on a phone.
 *
 * SAVE_SCREENSHOTS=1 keeps the pages as docs/screenshots/console-experiments*.png.
 */

const PASSWORD = 'violet tapestry marching north';
const RUN = randomBytes(3).toString('hex');
const HALVES = [
  { name: 'Size help', share: 0.5, treatment: 'size_help' },
  { name: 'No size help', share: 0.5, treatment: 'no_size_help' },
];

const suite = SKIP_BROWSER_TESTS ? describe.skip : describe;

suite('seller console: experiments in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let tenant: Tenant;
  let shop: Shop;
  /** A stopped experiment with results to read, one whose shoppers were not split as planned, and a draft. */
  let finished: string;
  let skewed: string;
  let pending: string;
  let shots: ReturnType<typeof screenshotFolder> | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    shots = screenshotFolder();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({ publicUrl: base });
    await t.app.listen(port, '127.0.0.1');

    tenant = await createTenant(t, 'Northwind Apparel');
    const storeId = await createStore(t, tenant.admin.secret, 'Northwind Berlin');
    shop = await createShop(t, storeId, tenant.admin.secret);
    const api = experimentsApi(t);

    // returns for size: four lines in ten without size help, one in ten with it (far enough apart for 900 shoppers to
    // tell); the same share of buyers in both
    finished = (
      await api.create(shop, {
        name: 'Does size help cut size returns?',
        hypothesis: 'Shoppers shown size help return fewer items for their size.',
        arms: HALVES,
        control_arm: 'No size help',
        primary_metric: 'size_return_rate',
        guardrails: ['conversion'],
        minimum_effect: 0.05,
        product_ids: [shop.productId],
      })
    ).id;
    await api.start(shop, finished);
    await api.populate(shop, 900, (arm, i) => {
      const lines = i % 2;
      const returned = lines && (arm === 'No size help' ? i % 20 < 8 : i % 20 === 1) ? 1 : 0;
      return { lines, returned };
    });
    await stop(finished);

    const other = await createShop(t, storeId, tenant.admin.secret);
    skewed = (
      await api.create(other, {
        name: 'Size help on the new collection',
        arms: HALVES,
        control_arm: 'No size help',
        primary_metric: 'conversion',
        minimum_effect: 0.02,
        product_ids: [other.productId],
      })
    ).id;
    await api.start(other, skewed);
    await api.skew(other, skewed, { 'Size help': 5200, 'No size help': 4800 });
    await stop(skewed);
    pending = (
      await api.create(other, { name: 'Kept items with the chart alone', arms: HALVES, primary_metric: 'kept_rate', minimum_effect: 0.05 })
    ).id;
  }, 60_000);

  async function stop(id: string): Promise<void> {
    const response = await t
      .http()
      .post(`/v1/stores/${shop.storeId}/experiments/${id}/stop`)
      .set({ Authorization: `Bearer ${tenant.admin.secret}` });
    expect(response.status).toBe(200);
  }

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    shots?.cleanUp();
  });

  const url = (path: string) => `${base}${path}`;
  const experimentsPath = () => `/console/stores/${shop.storeId}/experiments`;
  const shot = async (page: Page, name: string) => {
    if (shots) await page.screenshot({ path: join(shots.dir, `${name}.png`), fullPage: true });
  };
  const steps = (navigations: readonly Navigation[]) =>
    navigations.map((n) => `${n.method} ${new URL(n.url).pathname.replace(/[0-9a-f-]{36}/g, 'ID')} ${n.status}`);
  const accessible = async (page: Page, step: string) =>
    expect({ step, violations: await axeViolations(page) }).toEqual({ step, violations: [] });

  async function signUpInBrowser(page: Page, watched: PageWatch, email: string): Promise<void> {
    await navigate(page, watched, () => page.goto(url('/console/signup')));
    await page.fill('#admin_key', tenant.admin.secret);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    const signedUp = await navigate(page, watched, () => page.getByRole('button', { name: 'Create account' }).click());
    expect(steps(signedUp)).toEqual(['POST /console/signup 303', 'GET /console 200']);
  }

  it('creates a draft and starts it from the keyboard alone, reads results and withheld results: axe finds nothing', async () => {
    const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const watched = watch(page);
    try {
      await signUpInBrowser(page, watched, `experiments-${RUN}@northwind.example`);
      await navigate(page, watched, () => page.locator(`a[data-store-id="${shop.storeId}"]`).click());
      const toList = await navigate(page, watched, () => page.getByRole('link', { name: 'Experiments' }).click());
      expect(steps(toList)).toEqual(['GET /console/stores/ID/experiments 200']);
      expect(await page.locator('#experiment-list tr[data-experiment-id]').count()).toBe(3);
      await accessible(page, 'list');
      await shot(page, 'console-experiments');

      // ——— the create form, keyboard only: a name, the thirds, 3 points ———
      await tabTo(page, '#experiment-name');
      await page.keyboard.type('Chart alone or learned fit?');
      await tabTo(page, '#split-halves');
      await page.keyboard.press('ArrowDown');
      await expect(page.locator('#split-thirds').isChecked()).resolves.toBe(true);
      await tabTo(page, '#minimum-effect');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('3');
      const created = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(created)).toEqual(['POST /console/stores/ID/experiments 303', 'GET /console/stores/ID/experiments/ID 200']);
      await expect(page.locator('[data-status="created"]').count()).resolves.toBe(1);
      await expect(page.locator('#state').getAttribute('data-state')).resolves.toBe('draft');
      await expect(page.locator('#plan-text').textContent()).resolves.toMatch(/difference of 3\s+points in size returns/);
      await expect(page.locator('#setup li[data-arm]').allTextContents()).resolves.toEqual([
        expect.stringMatching(/^Size help, 33.3 % of shoppers/),
        expect.stringMatching(/^Chart alone, 33.3 % of shoppers/),
        expect.stringMatching(/^No size help, 33.3 % of shoppers.*compared with it/),
      ]);
      await accessible(page, 'draft');
      await shot(page, 'console-experiments-draft');

      // ——— edit the draft, keyboard only: its form filled in as it is ———
      await tabTo(page, '#edit');
      const toEdit = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(toEdit)).toEqual(['GET /console/stores/ID/experiments/ID/edit 200']);
      await expect(page.locator('#split-thirds').isChecked()).resolves.toBe(true);
      await expect(page.locator('#minimum-effect').inputValue()).resolves.toBe('3');
      await accessible(page, 'edit');
      await shot(page, 'console-experiments-edit');
      await tabTo(page, '#minimum-effect');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('4');
      const edited = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(edited)).toEqual(['POST /console/stores/ID/experiments/ID/edit 303', 'GET /console/stores/ID/experiments/ID 200']);
      await expect(page.locator('[data-status="edited"]').count()).resolves.toBe(1);
      await expect(page.locator('#plan-text').textContent()).resolves.toMatch(/difference of 4\s+points in size returns/);

      // ——— start, keyboard only ———
      await tabTo(page, '#start');
      const started = await navigate(page, watched, () => page.keyboard.press('Enter'));
      expect(steps(started)).toEqual(['POST /console/stores/ID/experiments/ID/start 303', 'GET /console/stores/ID/experiments/ID 200']);
      await expect(page.locator('#state').getAttribute('data-state')).resolves.toBe('running');
      await expect(page.locator('#verdict-text').textContent()).resolves.toBe('No shopper has been assigned an arm yet.');
      await accessible(page, 'running');

      // ——— stop: the page asks first ———
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      const stopped = await navigate(page, watched, () => page.getByRole('button', { name: 'Stop the experiment' }).click());
      expect(steps(stopped)).toEqual(['POST /console/stores/ID/experiments/ID/stop 303', 'GET /console/stores/ID/experiments/ID 200']);
      expect(asked).toContain('Chart alone or learned fit?');
      await expect(page.locator('#state').getAttribute('data-state')).resolves.toBe('stopped');

      // ——— results: the verdict first, each difference drawn against none ———
      await navigate(page, watched, () => page.goto(url(`${experimentsPath()}/${finished}`)));
      await expect(page.locator('#verdict-text').textContent()).resolves.toMatch(
        /^Size help: size returns \d+\.\d points lower than No size help/,
      );
      expect(await page.locator('#arms tr[data-arm]').count()).toBe(2);
      expect(await page.locator('article.comparison').count()).toBe(2);
      const primary = page.locator('article.comparison[data-role="primary"]');
      await expect(primary.getAttribute('data-significant')).resolves.toBe('true');
      await expect(primary.locator('.badge').textContent()).resolves.toBe('better');
      // the bar lies left of the line at no difference: fewer returns with size help
      const bar = await primary.locator('svg rect').boundingBox();
      const zero = await primary.locator('svg line.zero').boundingBox();
      expect(bar && zero && bar.x + bar.width < zero.x).toBe(true);
      await page.locator('#caveats-card > summary').click();
      await accessible(page, 'results');
      await shot(page, 'console-experiments-results');

      await navigate(page, watched, () => page.goto(url(`${experimentsPath()}/${skewed}`)));
      await expect(page.locator('#sample-ratio').isVisible()).resolves.toBe(true);
      expect(await page.locator('article.comparison').count()).toBe(0);
      await accessible(page, 'results withheld');
      await shot(page, 'console-experiments-withheld');

      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('fits a phone screen: the list, the form, a draft and the results scroll only their tables', async () => {
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
      expect({ page: what, ...overflow }).toEqual({ page: what, scrollWidth: 390, clientWidth: 390, offenders: [] });
    };
    try {
      await signUpInBrowser(page, watched, `experiments-phone-${RUN}@northwind.example`);
      await navigate(page, watched, () => page.goto(url(experimentsPath())));
      await fits('list');
      await shot(page, 'console-experiments-phone');
      await navigate(page, watched, () => page.goto(url(`${experimentsPath()}/${pending}`)));
      await fits('draft');
      await navigate(page, watched, () => page.goto(url(`${experimentsPath()}/${finished}`)));
      await fits('results');
      await shot(page, 'console-experiments-results-phone');
      await navigate(page, watched, () => page.goto(url(`${experimentsPath()}/${skewed}`)));
      await fits('results withheld');
      expect(watched.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);
});
