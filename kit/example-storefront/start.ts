/**
 * `npm run kit:storefront`: the example storefront against a running Size-Fit, in one command.
 *
 *   SIZE_FIT_URL=http://127.0.0.1:3000 SIZE_FIT_OPERATOR_KEY=sfo_… npm run kit:storefront
 *
 * With the operator key (printed by the service's first start) it creates a merchant "Example shop"; with
 * SIZE_FIT_ADMIN_KEY instead (a merchant admin key, e.g. from the seller console) it uses that merchant. Then it
 * creates a store, the backend's store-bound key and the shop's catalog, serves the storefront, the widget and the
 * backend on PORT (8080) of HOST (127.0.0.1), and after each order prints the store's metrics. No key is printed.
 */
import { randomBytes } from 'node:crypto';
import { createBackend } from '../example-backend/app.js';
import { createSizeFitClient, secretOf } from '../client/size-fit.js';
import { buildWidget } from '../widget/build.js';
import { seedCatalog, SHOP_PRODUCTS } from './catalog.js';

const baseUrl = process.env.SIZE_FIT_URL ?? 'http://127.0.0.1:3000';
const operatorKey = process.env.SIZE_FIT_OPERATOR_KEY;
const adminKey = process.env.SIZE_FIT_ADMIN_KEY;
if (!operatorKey && !adminKey) {
  process.stderr.write("SIZE_FIT_OPERATOR_KEY (printed at the service's first start) or SIZE_FIT_ADMIN_KEY is required\n");
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`${line}\n`);

async function merchantAdminKey(): Promise<string> {
  if (adminKey) return adminKey;
  const operator = createSizeFitClient({ baseUrl, apiKey: operatorKey ?? '' });
  const created = await operator.POST('/v1/merchants', { body: { name: 'Example shop' } });
  return secretOf(created.api_key);
}
const admin = createSizeFitClient({ baseUrl, apiKey: await merchantAdminKey() });
const store = await admin.POST('/v1/stores', { body: { name: 'Example shop', currency: 'EUR' } });
const backendKey = await admin.POST('/v1/api-keys', {
  body: { name: 'example storefront backend', store_id: store.id, scopes: ['catalog', 'fit', 'events'] },
});
await seedCatalog(admin, store.id);
say(`store ${store.id}: ${SHOP_PRODUCTS.length} products, a default questionnaire`);

const app = createBackend({
  sizeFit: { baseUrl, apiKey: secretOf(backendKey), storeId: store.id },
  webhookSecret: randomBytes(32).toString('base64'),
  cookieSecret: randomBytes(32).toString('base64'),
  secureCookies: process.env.SECURE_COOKIES === 'true',
  storefront: {
    widgetScript: await buildWidget(),
    onOrder: (orderId) =>
      void admin
        .GET('/v1/stores/{store_id}/metrics', { params: { path: { store_id: store.id } } })
        .then(({ counts }) =>
          say(
            `order ${orderId}: the store's metrics now count ${counts.started_sessions} started, ` +
              `${counts.accepted_sessions} accepted and ${counts.converted_sessions} converted sessions, ${counts.purchased_lines} purchased lines`,
          ),
        )
        .catch((error: unknown) => say(`metrics not read: ${error instanceof Error ? error.message : String(error)}`)),
  },
  log: (message, fields) => say(JSON.stringify({ time: new Date().toISOString(), message, ...fields })),
});
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
app.listen(port, host, () => say(`example storefront: open http://${host}:${port}/products/${SHOP_PRODUCTS[0]?.id}`));
