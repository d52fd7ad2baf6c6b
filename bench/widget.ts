/**
 * The shopper's widget, measured (not a test: nothing in CI runs it):
 *
 *  1. in Chromium, on the example storefront: the widget script's parse and run (the bundle evaluated in a fresh
 *     page), the dialog's first paint after the click (the loading state), and the questions' paint (after the
 *     session's start went through the backend to the service); ROUNDS fresh pages, medians and p95;
 *  2. the answers' round trip at 50 concurrent shoppers (each starts a session, then answers; only the answers call
 *     is timed, p50/p95): through the example backend (browser → backend → service, the backend checking the
 *     session's cookie and adding the other sizes' fit), beside the same call straight to the service with the key,
 *     in the same run, in the order direct, backend, backend, direct.
 *
 * Starts the built service (embedded database in a temporary directory, or DATABASE_URL) and the example backend
 * (kit/example-backend/server.js, STOREFRONT=true) as child processes, so that the load generator shares a process
 * with neither. Writes bench/results/widget-<date>.json.
 *
 *   npm run bench:widget                       (BENCH_SECONDS=10 per run, SHOPPERS=50, ROUNDS=20)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createSizeFitClient, secretOf } from '../kit/client/size-fit.js';
import { seedCatalog, SHOP_PRODUCTS } from '../kit/example-storefront/catalog.js';
import { buildWidget } from '../kit/widget/build.js';
import { freePort, launchBrowser } from '../test/support/browser.js';
import { percentile, startService } from './lib/service.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SHOPPERS = Number(process.env.SHOPPERS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const PRODUCT = SHOP_PRODUCTS[0]?.id ?? 'gid-1001';

interface Timings {
  readonly rounds: number;
  readonly errors: number;
  readonly p50: number;
  readonly p95: number;
}

const answersOf = (i: number) => ({ height: { value: 155 + (i % 40), unit: 'cm' }, weight: { value: 50 + (i % 45), unit: 'kg' } });

/** SHOPPERS shoppers for SECONDS: start a session, answer it; the answers call timed. */
async function shoppers(oneShopper: (i: number) => () => Promise<{ ms: number; ok: boolean }>): Promise<Timings> {
  const samples: number[] = [];
  let errors = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: SHOPPERS }, async (_, k) => {
      const run = oneShopper(k);
      while (performance.now() < until) {
        const { ms, ok } = await run();
        if (ok) samples.push(ms);
        else errors += 1;
      }
    }),
  );
  return { rounds: samples.length, errors, p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown>; cookie: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0] ?? null;
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown>, cookie };
}

async function main(): Promise<void> {
  // the machine's load when the run starts: a busy machine moves every figure, the pairs of runs less so
  const loadBefore = loadavg()[0];
  const dataDir = mkdtempSync(join(tmpdir(), 'size-fit-bench-widget-'));
  const service = await startService(
    await freePort(),
    process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: join(dataDir, 'db') },
  );
  let backendProcess: ReturnType<typeof spawn> | undefined;
  const browser = await launchBrowser();
  try {
    const operator = createSizeFitClient({ baseUrl: service.base, apiKey: service.operatorKey });
    const created = await operator.POST('/v1/merchants', { body: { name: 'Widget bench' } });
    const admin = createSizeFitClient({ baseUrl: service.base, apiKey: secretOf(created.api_key) });
    const store = await admin.POST('/v1/stores', { body: { name: 'Widget bench' } });
    const key = secretOf(
      await admin.POST('/v1/api-keys', { body: { name: 'backend', store_id: store.id, scopes: ['catalog', 'fit', 'events'] } }),
    );
    await seedCatalog(admin, store.id);
    const product = (
      await admin.GET('/v1/stores/{store_id}/products', { params: { path: { store_id: store.id }, query: { external_id: PRODUCT } } })
    ).data[0];
    if (!product) throw new Error('the example product was not created');

    const backendPort = await freePort();
    const backend = `http://127.0.0.1:${backendPort}`;
    backendProcess = spawn(process.execPath, ['dist/kit/example-backend/server.js'], {
      env: {
        ...process.env,
        SIZE_FIT_URL: service.base,
        SIZE_FIT_KEY: key,
        SIZE_FIT_STORE_ID: store.id,
        SHOP_WEBHOOK_SECRET: randomBytes(32).toString('base64'),
        COOKIE_SECRET: randomBytes(32).toString('base64'),
        SECURE_COOKIES: 'false',
        STOREFRONT: 'true',
        PORT: String(backendPort),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (
      let i = 0;
      !(await fetch(`${backend}/products/${PRODUCT}`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    ) {
      if (i > 100) throw new Error('the example backend did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // 1. The widget in Chromium.
    const script = await buildWidget();
    const parse: number[] = [];
    const dialogPaint: number[] = [];
    const questionsPaint: number[] = [];
    for (let round = 0; round < ROUNDS + 3; round++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route('**/size-fit/widget.js', (route) => route.fulfill({ contentType: 'text/javascript', body: '' }));
      await page.goto(`${backend}/products/${PRODUCT}`);
      const ran = await page.evaluate<number, string>((source) => {
        const start = performance.now();
        (0, eval)(source);
        return performance.now() - start;
      }, script);
      await page.locator('size-fit-button').getByRole('button').waitFor();
      // The click's time, then the frames after the dialog and after the form are in the shadow root.
      const painted = page.evaluate<{ dialog: number; questions: number }>(`new Promise((resolve) => {
        const root = document.querySelector('size-fit-button').shadowRoot;
        const clicked = performance.now();
        const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
        let dialog = 0;
        frame().then(() => { dialog = performance.now() - clicked; });
        const check = () => root.querySelector('form') ? frame().then(() => resolve({ dialog, questions: performance.now() - clicked })) : setTimeout(check, 1);
        root.querySelector('button').click();
        check();
      })`);
      const { dialog, questions } = await painted;
      if (round >= 3) {
        parse.push(ran);
        dialogPaint.push(dialog);
        questionsPaint.push(questions);
      }
      await context.close();
    }

    // 2. The answers' round trip at SHOPPERS concurrent shoppers.
    const throughBackend = (i: number) => async () => {
      const started = await post(`${backend}/fit/sessions`, { product: PRODUCT }, {});
      if (started.status !== 201 || !started.cookie) return { ms: 0, ok: false };
      const t0 = performance.now();
      const answered = await post(
        `${backend}/fit/sessions/${String(started.json.session_id)}/answers`,
        { answers: answersOf(i) },
        { Cookie: started.cookie },
      );
      return { ms: performance.now() - t0, ok: answered.status === 200 };
    };
    const direct = (i: number) => async () => {
      const auth = { Authorization: `Bearer ${key}` };
      const started = await post(`${service.base}/v1/stores/${store.id}/sessions`, { product_id: product.id }, auth);
      if (started.status !== 201) return { ms: 0, ok: false };
      const t0 = performance.now();
      const answered = await post(
        `${service.base}/v1/stores/${store.id}/sessions/${String(started.json.id)}/answers`,
        { answers: answersOf(i) },
        auth,
      );
      return { ms: performance.now() - t0, ok: answered.status === 200 };
    };
    const runs = { direct: [] as Timings[], backend: [] as Timings[] };
    runs.direct.push(await shoppers(direct));
    runs.backend.push(await shoppers(throughBackend));
    runs.backend.push(await shoppers(throughBackend));
    runs.direct.push(await shoppers(direct));

    const median = (samples: number[]) => percentile(samples, 50);
    const result = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        node: process.version,
        chromium: browser.version(),
        load_average_1min: { start: loadBefore, end: loadavg()[0] },
      },
      database: process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded (PGlite, data directory)',
      widget: {
        bundle_bytes: Buffer.byteLength(script),
        bundle_gzip_bytes: gzipSync(script).length,
        rounds: ROUNDS,
        parse_and_run_ms: { p50: median(parse), p95: percentile(parse, 95) },
        dialog_first_paint_ms: { p50: median(dialogPaint), p95: percentile(dialogPaint, 95) },
        questions_paint_ms: { p50: median(questionsPaint), p95: percentile(questionsPaint, 95) },
      },
      answers_round_trip: { shoppers: SHOPPERS, seconds_per_run: SECONDS, order: 'direct, backend, backend, direct', ...runs },
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/widget-${result.date.slice(0, 10)}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ widget: result.widget, answers_round_trip: runs }, null, 1), `→ ${file}`);
  } finally {
    await browser.close();
    backendProcess?.kill('SIGTERM');
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
