/**
 * Runs the example backend:
 *
 *   SIZE_FIT_URL=http://127.0.0.1:3000 SIZE_FIT_KEY=sfk_… SIZE_FIT_STORE_ID=… \
 *   SHOP_WEBHOOK_SECRET=… COOKIE_SECRET=$(openssl rand -base64 32) PORT=8080 npm run kit:backend
 *
 * SIZE_FIT_KEY is a key bound to the store with the catalog, fit and events scopes. SECURE_COOKIES=false only for a
 * local http test. STATUS_TOKEN (optional) serves GET /status to `Authorization: Bearer <STATUS_TOKEN>`: the order
 * lines the webhooks could not send. STOREFRONT=true also serves the example storefront and the widget (kit/example-storefront), for a
 * store whose catalog is the example shop's (`npm run kit:storefront` sets all of this up).
 */
import { buildWidget } from '../widget/build.js';
import { createBackend } from './app.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const app = createBackend({
  sizeFit: {
    baseUrl: process.env.SIZE_FIT_URL ?? 'http://127.0.0.1:3000',
    apiKey: required('SIZE_FIT_KEY'),
    storeId: required('SIZE_FIT_STORE_ID'),
  },
  webhookSecret: required('SHOP_WEBHOOK_SECRET'),
  cookieSecret: required('COOKIE_SECRET'),
  secureCookies: process.env.SECURE_COOKIES !== 'false',
  statusToken: process.env.STATUS_TOKEN || undefined,
  storefront: process.env.STOREFRONT === 'true' ? { widgetScript: await buildWidget() } : undefined,
  log: (message, fields) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), message, ...fields })}\n`),
});
const port = Number(process.env.PORT ?? 8080);
app.listen(port, process.env.HOST ?? '127.0.0.1', () => process.stdout.write(`example backend on port ${port}\n`));
