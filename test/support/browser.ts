import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium through playwright-core (docs/decisions/005-seller-console.md; stack notes,
 * "Browser tests"). Nothing is ever downloaded: the browser is the one installed at CHROMIUM_PATH.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * SKIP_BROWSER_TESTS=1 runs the suite without the browser tests; otherwise a missing browser fails them. They run in
 * the embedded pass only: what a person sees does not depend on the database, and every request these pages make is
 * also sent on PostgreSQL by the HTTP tests of the console, the widget's backend and the home page.
 */
export const SKIP_BROWSER_TESTS = process.env.SKIP_BROWSER_TESTS === '1' || process.env.DATABASE_URL !== undefined;

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** One headless Chromium with a fresh, throw-away profile (Playwright gives every launch its own user-data dir). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: install it (apt-get install -y chromium), point CHROMIUM_PATH at it, ` +
        'or set SKIP_BROWSER_TESTS=1 to run the suite without the browser tests.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS, timeout: 15_000 });
}

/** A port on 127.0.0.1 that was free a moment ago (bound to 0, read, released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('freePort: no port');
  return address.port;
}

/** Reports every security-policy violation as a console error, so the page watcher sees it whatever Chromium logs. */
const REPORT_CSP_VIOLATIONS = `document.addEventListener('securitypolicyviolation', function (e) {
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' on ' + e.documentURI);
});`;

export async function newContext(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...options });
  await context.addInitScript(REPORT_CSP_VIOLATIONS);
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(10_000);
  return context;
}

export interface Navigation {
  readonly method: string;
  readonly url: string;
  readonly status: number;
}

/** What a page did that a person would not see: console errors, uncaught exceptions, failed loads; its navigations. */
export interface PageWatch {
  readonly problems: string[];
  readonly warnings: string[];
  readonly navigations: Navigation[];
}

export function watch(page: Page): PageWatch {
  const watched: PageWatch = { problems: [], warnings: [], navigations: [] };
  page.on('console', (message) => {
    const where = message.location().url ? ` (${message.location().url})` : '';
    if (message.type() === 'error') watched.problems.push(`console error on ${page.url()}: ${message.text()}${where}`);
    else if (message.type() === 'warning') watched.warnings.push(`console warning on ${page.url()}: ${message.text()}${where}`);
  });
  page.on('pageerror', (error) => watched.problems.push(`uncaught exception on ${page.url()}: ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => {
    // a navigation replaced by the next one is aborted on purpose; anything else did not load
    if (!request.isNavigationRequest())
      watched.problems.push(`request failed on ${page.url()}: ${request.url()} ${request.failure()?.errorText ?? ''}`);
  });
  page.on('response', (response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      watched.navigations.push({ method: request.method(), url: response.url(), status: response.status() });
    } else if (response.status() >= 400) {
      watched.problems.push(`${response.status()} for ${request.method()} ${response.url()} on ${page.url()}`);
    }
  });
  return watched;
}

/**
 * Runs `action` (a click, a submit) and waits until the document it leads to has loaded, following redirects.
 * Returns the main-frame navigations it made, redirects included, in order.
 */
export async function navigate(page: Page, watched: PageWatch, action: () => Promise<unknown>): Promise<Navigation[]> {
  const start = watched.navigations.length;
  try {
    await Promise.all([page.waitForEvent('load'), action()]);
  } catch (error) {
    // a navigation that never happens is usually explained by the page: a CSP refusal, a script error
    const seen = [...watched.navigations.slice(start).map((n) => `${n.method} ${n.url} ${n.status}`), ...watched.problems];
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nat ${page.url()}; navigations and problems so far:\n${seen.join('\n') || '(none)'}`,
      {
        cause: error,
      },
    );
  }
  return watched.navigations.slice(start);
}

/** Where screenshots go: docs/screenshots with SAVE_SCREENSHOTS=1, else a temporary folder removed afterwards. */
export function screenshotFolder(): { readonly dir: string; readonly kept: boolean; cleanUp(): void } {
  if (process.env.SAVE_SCREENSHOTS === '1') {
    const dir = resolve('docs/screenshots');
    mkdirSync(dir, { recursive: true });
    return { dir, kept: true, cleanUp: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'console-screenshots-'));
  return { dir, kept: false, cleanUp: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The widths that decide whether a page scrolls sideways. */
export interface Overflow {
  readonly scrollWidth: number;
  readonly clientWidth: number;
  /** Elements whose right edge passes the viewport, for the failure message. */
  readonly offenders: string[];
}

export async function horizontalOverflow(page: Page): Promise<Overflow> {
  return page.evaluate<Overflow>(`(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const offenders = [];
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 0.5) {
        // only the outermost offender of a subtree that scrolls on its own is of interest
        let clipped = false;
        for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
          const style = getComputedStyle(p);
          if (style.overflowX !== 'visible' && p.getBoundingClientRect().right <= width + 0.5) { clipped = true; break; }
        }
        if (!clipped) offenders.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' right=' + Math.round(box.right));
      }
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, offenders: offenders.slice(0, 10) };
  })()`);
}

/** The uPlot chart inside #daily-chart: its box, its canvas, and whether anything was painted on the canvas. */
export interface ChartState {
  readonly uplot: boolean;
  readonly canvases: number;
  readonly canvasWidth: number;
  readonly canvasHeight: number;
  /** The chart's box in CSS pixels. */
  readonly left: number;
  readonly right: number;
  readonly containerRight: number;
  /** Pixels of the canvas that are not transparent: axes, grid and series were drawn. */
  readonly paintedPixels: number;
  /** Pixels in one of the series colours (console.js: #2563eb, #16a34a, #9333ea, #dc2626), roughly. */
  readonly seriesPixels: number;
}

export async function chartState(page: Page): Promise<ChartState> {
  return page.evaluate<ChartState>(`(() => {
    const chart = document.getElementById('daily-chart');
    const plot = chart && chart.querySelector('.uplot');
    const canvas = chart && chart.querySelector('canvas');
    const result = { uplot: !!plot, canvases: chart ? chart.querySelectorAll('canvas').length : 0, canvasWidth: 0, canvasHeight: 0,
      left: 0, right: 0, containerRight: 0, paintedPixels: 0, seriesPixels: 0 };
    if (!chart || !canvas) return result;
    const box = (plot || canvas).getBoundingClientRect();
    const card = chart.getBoundingClientRect();
    Object.assign(result, { canvasWidth: canvas.width, canvasHeight: canvas.height, left: box.left, right: box.right, containerRight: card.right });
    const ctx = canvas.getContext('2d');
    if (!ctx || canvas.width === 0 || canvas.height === 0) return result;
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = [[0x25, 0x63, 0xeb], [0x16, 0xa3, 0x4a], [0x93, 0x33, 0xea], [0xdc, 0x26, 0x26]];
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i + 3] === 0) continue;
      result.paintedPixels++;
      for (const c of colours) {
        if (Math.abs(pixels[i] - c[0]) + Math.abs(pixels[i + 1] - c[1]) + Math.abs(pixels[i + 2] - c[2]) < 60 && pixels[i + 3] > 128) { result.seriesPixels++; break; }
      }
    }
    return result;
  })()`);
}
