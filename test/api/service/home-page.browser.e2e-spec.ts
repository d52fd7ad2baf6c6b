/**
 * `GET /` in Chromium: a small page that links the console, the API reference and health, under the console's security
 * headers, that axe finds nothing wrong with and a keyboard can follow. SAVE_SCREENSHOTS=1 keeps its screenshot in
 * docs/screenshots.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../../support/app.js';
import { freePort, launchBrowser, navigate, newContext, screenshotFolder, SKIP_BROWSER_TESTS, watch } from '../../support/browser.js';
import { axeViolations, tabTo } from '../../support/console-axe.js';

const suite = SKIP_BROWSER_TESTS ? describe.skip : describe;

suite('the home page in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let shots: ReturnType<typeof screenshotFolder>;

  beforeAll(async () => {
    browser = await launchBrowser();
    shots = screenshotFolder();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({ publicUrl: base });
    await t.app.listen(port, '127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    shots?.cleanUp();
  });

  it('links the console, the API reference and health, in plain words, reachable by keyboard', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const watched = watch(page);
    const [landing] = await navigate(page, watched, () => page.goto(`${base}/`));
    expect(landing.status).toBe(200);
    expect(await page.title()).toBe('Size-Fit');
    const links = await page.$$eval('main a', (anchors) => anchors.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(links).toEqual([
      ['Seller console', '/console'],
      ['API reference', '/docs'],
      ['OpenAPI JSON', '/openapi.json'],
      ['Health', '/readyz'],
    ]);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots.dir, 'home.png'), fullPage: true });

    // each link leads somewhere that answers
    for (const [, href] of links) expect((await page.request.get(`${base}${href}`)).status()).toBe(200);
    await tabTo(page, 'a[href="/console"]');
    const [toConsole] = await navigate(page, watched, () => page.keyboard.press('Enter'));
    expect(toConsole.url).toBe(`${base}/console`);
    expect(watched.problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('answers with the headers of the other pages, and nothing but GET and HEAD', async () => {
    const page = await t.http().get('/');
    const console = await t.http().get('/console/login');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const header of ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy']) {
      expect({ header, value: page.headers[header] }).toEqual({ header, value: console.headers[header] });
    }
    // the console's policy, less what the page does not do (no script, no form)
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect((await t.http().head('/')).status).toBe(200);
    const posted = await t.http().post('/').send({});
    expect(posted.status).toBe(404);
    expect(posted.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
