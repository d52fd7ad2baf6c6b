import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  freePort,
  horizontalOverflow,
  launchBrowser,
  newContext,
  screenshotFolder,
  SKIP_BROWSER_TESTS,
  watch,
} from '../../test/support/browser.js';
import { createSizeFitClient, secretOf, type SizeFitClient } from '../client/size-fit.js';
import { createBackend } from '../example-backend/app.js';
import { sign } from '../example-backend/signing.js';
import { seedCatalog, storeProducts } from '../example-storefront/catalog.js';
import { useService } from '../testing/service.js';
import { buildWidget } from './build.js';

/**
 * The shopper's widget in Chromium, on the example storefront served by the example backend, against the real
 * service: the whole flow from the product page to the purchase in the store's metrics, field errors, keyboard only,
 * a phone's width, each language, an outage, what the page receives, and a shopper held out of an experiment. axe-core
 * checks every step.
 *
 * SAVE_SCREENSHOTS=1 keeps screenshots in docs/screenshots/widget (`npm run widget:screenshots`).
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SECRET_KEY = /sf[ko]_[0-9A-Za-z]{46}/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const suite = SKIP_BROWSER_TESTS ? describe.skip : describe;

suite('the shopper’s size widget in Chromium, on the example storefront', () => {
  const service = useService();
  let browser: Browser;
  let widgetScript: string;
  let admin: SizeFitClient;
  let storeId: string;
  let shop: string;
  let deadShop: string;
  const servers: Server[] = [];
  let shots: ReturnType<typeof screenshotFolder>;

  const listen = async (app: ReturnType<typeof createBackend>) => {
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    servers.push(server);
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    shots = screenshotFolder();
    widgetScript = await buildWidget();
    const client = (apiKey: string) => createSizeFitClient({ baseUrl: service.baseUrl, apiKey, fetch: service.fetch });
    const created = await client(service.operatorKey).POST('/v1/merchants', { body: { name: 'Widget shop' } });
    admin = client(secretOf(created.api_key));
    storeId = (await admin.POST('/v1/stores', { body: { name: 'Widget store' } })).id;
    const key = await admin.POST('/v1/api-keys', {
      body: { name: 'shop backend', store_id: storeId, scopes: ['catalog', 'fit', 'events'] },
    });
    await seedCatalog(admin, storeId);
    const backend = (baseUrl: string) =>
      createBackend({
        sizeFit: { baseUrl, apiKey: secretOf(key), storeId, fetch: service.fetch },
        webhookSecret: randomBytes(32).toString('base64'),
        cookieSecret: randomBytes(32).toString('base64'),
        secureCookies: false,
        storefront: { widgetScript },
      });
    shop = await listen(backend(service.baseUrl));
    // The same storefront whose Size-Fit does not answer: nothing listens on that port.
    deadShop = await listen(backend(`http://127.0.0.1:${await freePort()}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    shots?.cleanUp();
  });

  const shot = async (page: Page, name: string) => {
    const dir = join(shots.dir, 'widget');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  };

  /** axe-core on the page as it is now, the widget's shadow DOM and its open dialog included. */
  async function axe(page: Page, step: string): Promise<void> {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
    const violations = await page.evaluate<
      string[]
    >(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] })
      .then((r) => r.violations.map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.map((n) => JSON.stringify(n.target)).join(', ')))`);
    expect({ step, violations }).toEqual({ step, violations: [] });
  }

  async function open(context: BrowserContext, path: string) {
    const page = await context.newPage();
    const watched = watch(page);
    await page.goto(`${shop}${path}`);
    await page.locator('size-fit-button').getByRole('button', { name: /./ }).first().waitFor();
    return { page, watched };
  }

  /** Waits until `expression` is true in the page (polled from here: the page's CSP refuses Playwright's in-page eval). */
  async function until(page: Page, expression: string): Promise<void> {
    for (let i = 0; !(await page.evaluate<boolean>(expression)); i++) {
      if (i > 200) throw new Error(`never true: ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const widget = (page: Page) => page.locator('size-fit-button');
  const dialog = (page: Page) => page.getByRole('dialog');

  async function answer(page: Page, values: { height?: string; weight?: string; age?: string; chest?: string }) {
    const form = dialog(page);
    await form.locator('#q-height').waitFor();
    if (values.height !== undefined) await form.locator('#q-height').fill(values.height);
    if (values.weight !== undefined) await form.locator('#q-weight').fill(values.weight);
    if (values.age !== undefined) await form.locator('#q-age').fill(values.age);
    if (values.chest !== undefined) await form.locator('#q-chest').fill(values.chest);
  }

  it('takes a shopper from the product page to a purchase counted in the metrics, with nothing secret sent to the page', async () => {
    // Another shopper first: her session id must never reach the first one's page.
    const other = await newContext(browser);
    const { page: otherPage } = await open(other, '/products/gid-1001');
    const started = otherPage.waitForResponse((r) => r.url().endsWith('/fit/sessions'));
    await widget(otherPage).getByRole('button', { name: 'Find my size' }).click();
    const otherStart = await started;
    const otherSession: string = (await otherStart.json()).session_id;
    await other.close();

    const context = await newContext(browser);
    const bodies: Array<Promise<string>> = [];
    context.on('response', (response) => {
      bodies.push(
        (async () => `${response.url()}\n${JSON.stringify(await response.allHeaders())}\n${await response.text().catch(() => '')}`)(),
      );
    });
    const { page, watched } = await open(context, '/products/gid-1001');
    await axe(page, 'product page');
    await shot(page, '01-product-page-en');

    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await dialog(page).getByRole('heading', { name: 'Find your size' }).waitFor();
    await answer(page, { height: '180', weight: '76', age: '34', chest: '98' });
    await dialog(page).getByLabel('Male', { exact: true }).check();
    await dialog(page).getByLabel('Regular', { exact: true }).check();
    await dialog(page).getByLabel('The size you usually wear').selectOption('M');
    await expect(
      dialog(page).getByText('How to measure: around the fullest part of your chest, under the arms.').isVisible(),
    ).resolves.toBe(true);
    await axe(page, 'questions');
    await shot(page, '02-questions-en');
    await page.evaluate(
      `(() => { const d = document.querySelector('size-fit-button').shadowRoot.querySelector('dialog'); d.scrollTop = d.scrollHeight; })()`,
    );
    await shot(page, '02b-questions-en-end');

    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    const result = dialog(page).getByRole('region', { name: 'Your size' });
    await result.waitFor();
    const text = await result.innerText();
    expect(text).toMatch(/We suggest (XS|S|M|L|XL)\./);
    expect(text).toMatch(/very sure|likely to fit|best guess|not very sure/);
    expect(text).toMatch(/Next best: (XS|S|M|L|XL)\./);
    expect(text).toMatch(/(XS|S|M|L|XL): (a regular fit|looser|closer|too tight|too loose) at the (chest|waist)/);
    await axe(page, 'answer');
    await shot(page, '03-answer-en');

    const size = (text.match(/We suggest (XS|S|M|L|XL)\./) ?? [])[1] ?? '';
    const selected = page.evaluate<{ size_label: string; variant_id: string }>(
      `new Promise((resolve) => document.addEventListener('size-fit-select', (e) => resolve(e.detail), { once: true }))`,
    );
    await dialog(page)
      .getByRole('button', { name: `Choose ${size}` })
      .click();
    expect(await selected).toMatchObject({ size_label: size, variant_id: `gid-1001-${size}` });
    await dialog(page).waitFor({ state: 'hidden' });
    // the dialog gave the focus back to the button that opened it; the page's size picker took the size
    await expect(page.evaluate(`document.activeElement?.tagName`)).resolves.toBe('SIZE-FIT-BUTTON');
    await expect(page.locator('#size').inputValue()).resolves.toBe(`gid-1001-${size}`);
    // the line goes to the cart, and the backend hears of it (add_to_cart)
    const added = page.waitForResponse((r) => r.url().endsWith('/fit/cart-events'));
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await until(page, `document.getElementById('cart-count').textContent === '1'`);
    expect((await added).status()).toBe(204);
    await axe(page, 'size chosen, in the cart');
    await shot(page, '04-chosen-en');

    await page.getByRole('link', { name: /Cart/ }).click();
    await page.getByRole('button', { name: 'Place order' }).waitFor();
    await axe(page, 'cart');
    await shot(page, '05-cart-en');
    const checkedOut = page.waitForRequest((r) => r.url().endsWith('/fit/cart-events'));
    await page.getByRole('button', { name: 'Place order' }).click();
    expect((await checkedOut).postDataJSON()).toMatchObject({ type: 'checkout_started', product: 'gid-1001' });
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    await axe(page, 'order placed');
    await shot(page, '05b-order-placed-en');

    const metrics = await admin.GET('/v1/stores/{store_id}/metrics', { params: { path: { store_id: storeId } } });
    expect(metrics.counts).toMatchObject({ accepted_sessions: 1, converted_sessions: 1, purchased_lines: 1 });
    const viewed = [];
    for await (const event of admin.list('/v1/stores/{store_id}/events', {
      params: { path: { store_id: storeId }, query: { type: 'fit_viewed' } },
    }))
      viewed.push(event);
    expect(viewed.length).toBe(2); // one page view per shopper
    // The cart's events carry her session, as the purchase does.
    const ofType = async (type: 'purchase' | 'add_to_cart' | 'checkout_started') => {
      const found = [];
      for await (const event of admin.list('/v1/stores/{store_id}/events', { params: { path: { store_id: storeId }, query: { type } } }))
        found.push(event);
      return found;
    };
    const [purchase] = await ofType('purchase');
    expect(purchase?.session_id).toEqual(expect.any(String));
    const line = { product_id: purchase?.product_id, variant_id: purchase?.variant_id, session_id: purchase?.session_id };
    expect(await ofType('add_to_cart')).toMatchObject([{ ...line, external_id: expect.stringMatching(/^add_to_cart:/) }]);
    expect(await ofType('checkout_started')).toMatchObject([{ ...line, external_id: expect.stringMatching(/^checkout_started:/) }]);

    // The next product: her answers are filled in from her own browser.
    await page.goto(`${shop}/products/gid-1002`);
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await dialog(page).getByText('We filled in your answers from last time.', { exact: false }).waitFor();
    await expect(dialog(page).locator('#q-height').inputValue()).resolves.toBe('180');
    await expect(dialog(page).getByLabel('Male', { exact: true }).isChecked()).resolves.toBe(true);
    await page.keyboard.press('Escape');

    const received = await Promise.all(bodies);
    const all = received.join('\n');
    expect(all).not.toMatch(SECRET_KEY);
    expect(all).not.toContain(service.baseUrl);
    expect(all).not.toContain(new URL(service.baseUrl).host);
    expect(all).not.toContain(otherSession);
    const ownSessions = new Set(received.filter((r) => r.includes('/fit/sessions')).flatMap((r) => r.match(UUID) ?? []));
    expect(ownSessions.has(otherSession)).toBe(false);
    expect(watched.problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('explains a close call between two sizes, and a style that runs small', async () => {
    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1002');
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '178', weight: '74', chest: '98', age: '' });
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    const result = dialog(page).getByRole('region', { name: 'Your size' });
    await result.waitFor();
    const text = await result.innerText();
    expect(text).toMatch(/This style runs small: we moved you up (a little|half a size|one size)\./);
    expect(text).toMatch(/You are between (XS|S|M|L|XL) and (XS|S|M|L|XL): take \2 if you like more room, \1 for a closer fit\./);
    await axe(page, 'close call');
    await shot(page, '03b-answer-between-sizes-en');
    await context.close();
  }, 60_000);

  it('reads the chest from a bra size when she gives one instead of a tape measure', async () => {
    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1001?lang=en-US');
    await page.evaluate(`localStorage.clear()`);
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '65', weight: '140' });
    await dialog(page).getByLabel('Give my bra size instead').check();
    await expect(dialog(page).locator('#q-chest').isDisabled()).resolves.toBe(true);
    await dialog(page).getByLabel('Band').selectOption('34');
    await dialog(page).getByLabel('Cup').selectOption({ label: 'C' });
    await axe(page, 'bra size');
    const sent = page.waitForRequest((r) => r.url().endsWith('/answers'));
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    expect((await sent).postDataJSON().answers.chest).toEqual({ value: 37, unit: 'in', method: 'bra_size' });
    await dialog(page).getByRole('region', { name: 'Your size' }).waitFor();
    await context.close();
  }, 60_000);

  it('shows the service’s field errors beside their fields', async () => {
    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1001');
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '400', weight: '', age: '34' });
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    const heightError = dialog(page).locator('#q-height-error');
    await heightError.filter({ hasText: /outside what we can size/ }).waitFor();
    await expect(dialog(page).locator('#q-weight-error').textContent()).resolves.toBe('Please answer this question.');
    await expect(dialog(page).locator('#q-height').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(dialog(page).locator('#q-height').getAttribute('aria-describedby')).resolves.toContain('q-height-error');
    await expect(page.evaluate(`document.querySelector('size-fit-button').shadowRoot.activeElement.id`)).resolves.toBe('q-height');
    await axe(page, 'field errors');
    await shot(page, '06-field-errors-en');
    await context.close();
  }, 60_000);

  it('works with the keyboard alone: focus stays in the dialog and comes back to the button', async () => {
    const context = await newContext(browser);
    const { page, watched } = await open(context, '/products/gid-1001');
    const focused = () =>
      page.evaluate<string>(
        `(() => { const w = document.querySelector('size-fit-button'); const a = w.shadowRoot.activeElement; return a ? (a.id || a.className || a.tagName) : (document.activeElement.id || document.activeElement.tagName); })()`,
      );
    // Tab from the page's start to the widget's button
    for (let i = 0; i < 10 && (await focused()) !== 'open'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('open');
    await page.keyboard.press('Enter');
    await dialog(page).locator('#q-height').waitFor();
    // Tabbing around never leaves the dialog
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      seen.add(await focused());
    }
    expect([...seen]).toEqual(expect.arrayContaining(['close', 'q-height', 'q-weight', 'primary']));
    expect(await page.evaluate(`document.activeElement.tagName`)).toBe('SIZE-FIT-BUTTON');
    // Answer by keyboard: type into the fields, arrows in the radio groups, Enter submits
    await dialog(page).locator('#q-height').focus();
    await page.keyboard.type('172');
    await page.keyboard.press('Tab');
    await page.keyboard.type('65');
    await page.keyboard.press('Enter');
    await dialog(page).getByRole('region', { name: 'Your size' }).waitFor();
    expect(await focused()).toBe('result-title');
    // the answer is announced to screen readers, and the focus is visible on every control
    await until(
      page,
      `/We suggest/.test(document.querySelector('size-fit-button').shadowRoot.querySelector('dialog [role=status]').textContent)`,
    );
    await page.keyboard.press('Tab');
    const outline = await page.evaluate<{ style: string; width: string }>(
      `(() => { const s = getComputedStyle(document.querySelector('size-fit-button').shadowRoot.activeElement); return { style: s.outlineStyle, width: s.outlineWidth }; })()`,
    );
    expect(outline).toEqual({ style: 'solid', width: '3px' });
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await focused()).toBe('open');
    await page.keyboard.press('Enter');
    await dialog(page).getByRole('region', { name: 'Your size' }).waitFor();
    // Choose the size with the keyboard: Tab to the first choose button
    for (let i = 0; i < 20 && !(await focused()).includes('primary'); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await focused()).toBe('open');
    await expect(page.locator('#size').inputValue()).resolves.toMatch(/^gid-1001-/);
    expect(watched.problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('fits a 320 px wide phone and 200% zoom without sideways scrolling', async () => {
    const context = await newContext(browser, { viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true });
    const { page } = await open(context, '/products/gid-1001');
    expect((await horizontalOverflow(page)).offenders).toEqual([]);
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '165', weight: '58' });
    await shot(page, '07-phone-questions');
    const box = await dialog(page).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 320).toBe(true);
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    await dialog(page).getByRole('region', { name: 'Your size' }).waitFor();
    const scroll = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
      `(() => { const d = document.querySelector('size-fit-button').shadowRoot.querySelector('dialog'); return { scrollWidth: d.scrollWidth, clientWidth: d.clientWidth }; })()`,
    );
    expect(scroll.scrollWidth).toBeLessThanOrEqual(scroll.clientWidth);
    await axe(page, 'phone');
    await shot(page, '08-phone-answer');
    await context.close();

    // 200% zoom of a 1280 × 720 window: 640 × 360 CSS pixels, the dialog scrolls within the window
    const zoomed = await newContext(browser, { viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 });
    const { page: large } = await open(zoomed, '/products/gid-1001');
    await widget(large).getByRole('button', { name: 'Find my size' }).click();
    await answer(large, { height: '165', weight: '58' });
    expect((await horizontalOverflow(large)).offenders).toEqual([]);
    const fits = await large.evaluate<boolean>(
      `(() => { const d = document.querySelector('size-fit-button').shadowRoot.querySelector('dialog').getBoundingClientRect(); return d.top >= 0 && d.bottom <= 360 && d.right <= 640; })()`,
    );
    expect(fits).toBe(true);
    await dialog(large).getByRole('button', { name: 'Show my size' }).scrollIntoViewIfNeeded();
    await dialog(large).getByRole('button', { name: 'Show my size' }).click();
    await dialog(large).getByRole('region', { name: 'Your size' }).waitFor();
    await axe(large, 'zoom 200%');
    await zoomed.close();
  }, 60_000);

  const LANGUAGES = [
    { lang: 'de', open: 'Meine Größe finden', title: 'Ihre Größe finden', submit: 'Meine Größe zeigen', result: 'Ihre Größe', unit: 'cm' },
    { lang: 'fr', open: 'Trouver ma taille', title: 'Trouvez votre taille', submit: 'Voir ma taille', result: 'Votre taille', unit: 'cm' },
    { lang: 'es', open: 'Encontrar mi talla', title: 'Encuentra tu talla', submit: 'Ver mi talla', result: 'Tu talla', unit: 'cm' },
    { lang: 'en-US', open: 'Find my size', title: 'Find your size', submit: 'Show my size', result: 'Your size', unit: 'in' },
  ];

  it('speaks the page’s language, with its units, and switches units on request', async () => {
    const context = await newContext(browser);
    for (const language of LANGUAGES) {
      const { page, watched } = await open(context, `/products/gid-1001?lang=${language.lang}`);
      await page.evaluate(`localStorage.clear()`);
      await widget(page).getByRole('button', { name: language.open }).click();
      await dialog(page).getByRole('heading', { name: language.title }).waitFor();
      await expect(dialog(page).locator('#q-height-unit').textContent()).resolves.toBe(language.unit);
      if (language.unit === 'in') {
        await answer(page, { height: '70', weight: '160' });
        await dialog(page).locator('#units-metric').check();
        await expect(dialog(page).locator('#q-height').inputValue()).resolves.toBe('177.8');
        await expect(dialog(page).locator('#q-weight-unit').textContent()).resolves.toBe('kg');
      } else await answer(page, { height: '178', weight: '74' });
      await axe(page, `questions ${language.lang}`);
      await shot(page, `10-questions-${language.lang}`);
      await dialog(page).getByRole('button', { name: language.submit }).click();
      await dialog(page).getByRole('region', { name: language.result }).waitFor();
      await axe(page, `answer ${language.lang}`);
      await shot(page, `11-answer-${language.lang}`);
      expect(watched.problems).toEqual([]);
      await page.close();
    }
    await context.close();
  }, 120_000);

  it('takes the shop’s look from CSS custom properties and ::part()', async () => {
    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1001');
    // as a merchant's stylesheet would (the test adds it past the page's CSP, which allows only its own files)
    await page.evaluate(`(() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('size-fit-button { --size-fit-accent: rgb(15, 118, 110); --size-fit-radius: 0px; } size-fit-button::part(button) { text-transform: uppercase; }');
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    })()`);
    const look = await page.evaluate<{ background: string; radius: string; transform: string }>(
      `(() => { const s = getComputedStyle(document.querySelector('size-fit-button').shadowRoot.querySelector('button')); return { background: s.backgroundColor, radius: s.borderTopLeftRadius, transform: s.textTransform }; })()`,
    );
    expect(look).toEqual({ background: 'rgb(15, 118, 110)', radius: '0px', transform: 'uppercase' });
    await axe(page, 'themed');
    await context.close();
  }, 60_000);

  it('does not break a right-to-left page', async () => {
    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1001');
    await page.evaluate(`document.documentElement.dir = 'rtl'`);
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '178' });
    const layout = await page.evaluate<{ label: number; input: number }>(
      `(() => { const r = document.querySelector('size-fit-button').shadowRoot; return { label: r.querySelector('label[for=q-height]').getBoundingClientRect().right, input: r.querySelector('#q-height').getBoundingClientRect().right }; })()`,
    );
    expect(Math.abs(layout.label - layout.input)).toBeLessThan(2); // both start at the right edge
    expect((await horizontalOverflow(page)).offenders).toEqual([]);
    await shot(page, '12-questions-rtl');
    await context.close();
  }, 60_000);

  it('says so when the service cannot be reached, and the page keeps working', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${deadShop}/products/gid-1001`);
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    const alert = dialog(page).getByRole('alert');
    await alert.filter({ hasText: 'Size help is not available right now.' }).waitFor();
    await axe(page, 'outage');
    await shot(page, '09-outage-en');
    await dialog(page).getByRole('button', { name: 'Close' }).first().click();
    await page.locator('#size').selectOption('gid-1001-M');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await until(page, `document.getElementById('cart-count').textContent === '1'`);
    await context.close();
  }, 60_000);

  it('sells a store set up in the seller console: its products, their sizes given the shop’s ids, recommended on', async () => {
    // As the console leaves a store: a chart, a type, products with a platform id or none, a variant per size
    // without one, and no questionnaire (the built-in questions).
    const other = (await admin.POST('/v1/stores', { body: { name: 'Console store' } })).id;
    const inStore = { path: { store_id: other } };
    const type = await admin.POST('/v1/stores/{store_id}/product-types', {
      params: inStore,
      body: { name: 'Knitwear', category: 'tops', zone_weights: { chest: 1 } },
    });
    const chart = await admin.POST('/v1/stores/{store_id}/size-charts', {
      params: inStore,
      body: {
        name: 'Women’s tops (UK)',
        unit: 'cm',
        measurement_type: 'body',
        sizes: ['8', '10', '12', '14', '16'].map((label, index) => ({
          label,
          measurements: { chest: { min: 80 + 5 * index, max: 85 + 5 * index } },
        })),
      },
    });
    for (const [title, externalId] of [
      ['Merino cardigan', 'gid://shopify/Product/501'],
      ['Not on the shop yet', null],
    ] as const) {
      const product = await admin.POST('/v1/stores/{store_id}/products', {
        params: inStore,
        body: { title, product_type_id: type.id, size_chart_id: chart.id, ...(externalId ? { external_id: externalId } : {}) },
      });
      for (const size of chart.sizes)
        await admin.POST('/v1/stores/{store_id}/products/{product_id}/variants', {
          params: { path: { store_id: other, product_id: product.id } },
          body: { size_label: size.label },
        });
    }
    const products = await storeProducts(admin, other);
    expect(products.map((product) => [product.id, product.sizes.map((size) => size.label)])).toEqual([
      ['gid://shopify/Product/501', ['8', '10', '12', '14', '16']],
    ]);
    const key = await admin.POST('/v1/api-keys', { body: { name: 'shop backend', store_id: other, scopes: ['catalog', 'fit', 'events'] } });
    const consoleShop = await listen(
      createBackend({
        sizeFit: { baseUrl: service.baseUrl, apiKey: secretOf(key), storeId: other, fetch: service.fetch },
        webhookSecret: randomBytes(32).toString('base64'),
        cookieSecret: randomBytes(32).toString('base64'),
        secureCookies: false,
        storefront: { widgetScript, products },
      }),
    );

    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${consoleShop}/`); // the shop's first product
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '168', weight: '62' });
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    const text = await dialog(page).getByRole('region', { name: 'Your size' }).innerText();
    const size = (text.match(/We suggest (8|10|12|14|16)\./) ?? [])[1] ?? '';
    expect(size).not.toBe('');
    const selected = page.evaluate<{ variant_id: string }>(
      `new Promise((resolve) => document.addEventListener('size-fit-select', (e) => resolve(e.detail), { once: true }))`,
    );
    await dialog(page)
      .getByRole('button', { name: `Choose ${size}` })
      .click();
    expect(await selected).toMatchObject({ variant_id: `gid://shopify/Product/501-${size}` });
    await expect(page.locator('#size').inputValue()).resolves.toBe(`gid://shopify/Product/501-${size}`);
    await axe(page, 'a console store’s product');
    await context.close();
  }, 60_000);

  it('tells, once the store has outcomes, what the sizes she weighs turned out as for shoppers like her', async () => {
    // The store's past orders of the tee: mostly kept, some returned as too small or too large.
    const inStore = { path: { store_id: storeId } };
    let product: { id: string } | undefined;
    for await (const p of admin.list('/v1/stores/{store_id}/products', { params: inStore })) if (p.external_id === 'gid-1001') product = p;
    const variants = new Map<string, string>();
    for await (const v of admin.list('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: { path: { store_id: storeId, product_id: product!.id } },
    }))
      variants.set(v.size_label, v.id);
    const outcomes = ['item_kept', 'item_kept', 'item_kept', 'item_kept', 'item_kept', 'item_kept', 'too_small', 'too_large'] as const;
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    const lines = Array.from({ length: 40 }, (_, i) => {
      const outcome = outcomes[i % outcomes.length];
      return {
        order_id: `past-${i}`,
        line_item_id: '1',
        product_id: product!.id,
        variant_id: variants.get(['S', 'M', 'L'][i % 3])!,
        purchased_at: day(60 - i),
        outcome:
          outcome === 'item_kept'
            ? { type: 'item_kept' as const, occurred_at: day(50 - i) }
            : { type: 'return_requested' as const, reason: 'size' as const, fit_feedback: outcome, occurred_at: day(50 - i) },
      };
    });
    await admin.POST('/v1/stores/{store_id}/order-history', { params: inStore, body: { lines } });

    const context = await newContext(browser);
    const { page } = await open(context, '/products/gid-1001');
    await widget(page).getByRole('button', { name: 'Find my size' }).click();
    await answer(page, { height: '180', weight: '76', chest: '98', age: '' });
    await dialog(page).getByRole('button', { name: 'Show my size' }).click();
    const result = dialog(page).getByRole('region', { name: 'Your size' });
    await result.waitFor();
    const text = await result.innerText();
    const size = (text.match(/We suggest (XS|S|M|L|XL)\./) ?? [])[1];
    expect(text).toMatch(new RegExp(`${size} fitted about (\\d|10) in 10 shoppers like you who chose it\\.`));
    await axe(page, 'odds of the sizes');
    await shot(page, '03c-answer-odds-en');
    await context.close();
  }, 60_000);

  it('hides itself entirely from a shopper held out of an experiment, and stays as it is for the others', async () => {
    // A store of its own, so that no other test's shopper falls in the holdout.
    const experimentStore = (await admin.POST('/v1/stores', { body: { name: 'Experiment store' } })).id;
    const inStore = { path: { store_id: experimentStore } };
    await seedCatalog(admin, experimentStore);
    const tee = (await admin.GET('/v1/stores/{store_id}/products', { params: { ...inStore, query: { external_id: 'gid-1001' } } })).data[0];
    if (tee === undefined) throw new Error('the tee was not created');
    const draft = await admin.POST('/v1/stores/{store_id}/experiments', {
      params: inStore,
      body: {
        name: 'Does size help cut size returns?',
        arms: [
          { name: 'size help', share: 0.5, treatment: 'size_help' },
          { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
        ],
        product_ids: [tee.id],
        primary_metric: 'size_return_rate',
        minimum_effect: 0.03,
      },
    });
    await admin.POST('/v1/stores/{store_id}/experiments/{id}/start', { params: { path: { ...inStore.path, id: draft.id } } });
    // Each customer's arm is fixed by her id: one of each, found as any caller would.
    const customers = new Map<string, string>();
    for (let i = 1; customers.size < 2 && i < 100; i++) {
      const { treatment } = await admin.assign(experimentStore, { shopper_ref: `cust_${i}`, product_id: tee.id });
      if (!customers.has(treatment)) customers.set(treatment, `cust_${i}`);
    }
    const key = await admin.POST('/v1/api-keys', {
      body: { name: 'shop backend', store_id: experimentStore, scopes: ['catalog', 'fit', 'events'] },
    });
    const cookieSecret = randomBytes(32).toString('base64');
    const experimentShop = await listen(
      createBackend({
        sizeFit: { baseUrl: service.baseUrl, apiKey: secretOf(key), storeId: experimentStore, fetch: service.fetch },
        webhookSecret: randomBytes(32).toString('base64'),
        cookieSecret,
        secureCookies: false,
        storefront: { widgetScript },
      }),
    );
    /** A browser the stand-in platform knows as this customer (as its own cookie would after her first visit). */
    const asCustomer = async (customer: string) => {
      const context = await newContext(browser);
      await context.addCookies([{ name: 'sf_customer', value: sign(cookieSecret, customer), url: experimentShop }]);
      return context;
    };
    const fitViewed = async () => {
      const found = [];
      for await (const event of admin.list('/v1/stores/{store_id}/events', { params: { ...inStore, query: { type: 'fit_viewed' } } }))
        found.push(event);
      return found.length;
    };
    const hidden = (page: Page) =>
      page.evaluate<{ display: string; children: number }>(
        `(() => { const w = document.querySelector('size-fit-button'); return { display: getComputedStyle(w).display, children: w.shadowRoot.childElementCount }; })()`,
      );

    const held = await asCustomer(customers.get('no_size_help') ?? '');
    const page = await held.newPage();
    const watched = watch(page);
    const asked = page.waitForResponse((r) => r.url().endsWith('/fit/views'));
    await page.goto(`${experimentShop}/products/gid-1001`);
    expect(await (await asked).json()).toEqual({ size_help: false });
    await until(page, `document.querySelector('size-fit-button').shadowRoot.childElementCount === 0`);
    expect(await hidden(page)).toEqual({ display: 'none', children: 0 });
    await expect(page.getByRole('button', { name: 'Find my size' }).count()).resolves.toBe(0);
    await expect(page.getByRole('status').allInnerTexts()).resolves.toEqual(['']); // the page's own cart status only
    await axe(page, 'product page, holdout');
    await shot(page, '13-product-page-holdout-en');
    // The keyboard goes from the page's size picker to its add-to-cart, as on a page without the widget.
    const focused = () =>
      page.evaluate<string>(`document.activeElement.id || document.activeElement.className || document.activeElement.tagName`);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order.slice(0, 4)).toEqual(['brand', 'A', 'size', 'buy']);
    expect(order).not.toContain('SIZE-FIT-BUTTON');
    await page.locator('#size').selectOption('gid-1001-M');
    await page.locator('.buy').focus();
    await page.keyboard.press('Enter');
    await until(page, `document.getElementById('cart-count').textContent === '1'`);
    // Her order names her, so that the experiment counts the holdout's purchase.
    await page.getByRole('link', { name: /Cart/ }).click();
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    const results = await admin.GET('/v1/stores/{store_id}/experiments/{id}/results', {
      params: { path: { ...inStore.path, id: draft.id } },
    });
    expect(results.arms.find((arm) => arm.name === 'holdout')).toMatchObject({ purchasing_units: 1, purchased_lines: 1 });
    expect(await fitViewed()).toBe(0);
    expect(watched.problems).toEqual([]);

    // Her page as a cache kept it, saying size help: the service refuses her session, and the widget goes away
    // without a word of error.
    const cached = await held.newPage();
    await cached.route('**/fit/views', (route) => route.fulfill({ json: { size_help: true } }));
    await cached.goto(`${experimentShop}/products/gid-1001`);
    const refused = cached.waitForResponse((r) => r.url().endsWith('/fit/sessions'));
    await widget(cached).getByRole('button', { name: 'Find my size' }).click();
    expect(await (await refused).json()).toEqual({ size_help: false });
    await until(cached, `document.querySelector('size-fit-button').shadowRoot.childElementCount === 0`);
    expect(await hidden(cached)).toEqual({ display: 'none', children: 0 });
    await expect(cached.getByRole('dialog').count()).resolves.toBe(0);
    await expect(cached.getByRole('alert').count()).resolves.toBe(0);
    await axe(cached, 'session refused, holdout');
    await held.close();

    // A shopper of the other arm: the widget as it always is, her page view counted.
    const helped = await asCustomer(customers.get('size_help') ?? '');
    const shown = await helped.newPage();
    await shown.goto(`${experimentShop}/products/gid-1001`);
    await widget(shown).getByRole('button', { name: 'Find my size' }).click();
    await dialog(shown).locator('#q-height').waitFor();
    await axe(shown, 'questions, size help arm');
    expect(await fitViewed()).toBe(1);
    await helped.close();
  }, 90_000);

  it('bundles into at most 25 KB gzipped', () => {
    expect(gzipSync(widgetScript).length).toBeLessThanOrEqual(25 * 1024);
  });
});
