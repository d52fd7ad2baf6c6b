/**
 * `npm run kit:storefront`: the example storefront against a running Size-Fit, in one command.
 *
 *   SIZE_FIT_URL=http://127.0.0.1:3000 SIZE_FIT_OPERATOR_KEY=sfo_… npm run kit:storefront
 *
 * With the operator key (printed by the service's first start) it creates a merchant "Example shop"; with
 * SIZE_FIT_ADMIN_KEY instead (a merchant admin key, e.g. from the seller console) it uses that merchant. Then it
 * creates a store, the backend's store-bound key and the shop's catalog, serves the storefront, the widget and the
 * backend on PORT (8080) of HOST (127.0.0.1), and after each order prints the store's metrics. No key is printed.
 *
 * With SIZE_FIT_STORE_ID as well (and the admin key), it sells what that store already holds, as set up in the seller
 * console: each product with a platform id (`external_id`) becomes the shop's own, and a size without a platform id
 * gets one, as a platform's sync would (`storeProducts`); nothing else is created there but the backend's key.
 */
import { randomBytes } from 'node:crypto';
import { createBackend } from '../example-backend/app.js';
import { createSizeFitClient, secretOf } from '../client/size-fit.js';
import { buildWidget } from '../widget/build.js';
import { seedCatalog, SHOP_PRODUCTS, storeProducts } from './catalog.js';

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
const existingStoreId = process.env.SIZE_FIT_STORE_ID;
if (existingStoreId && !adminKey) {
  process.stderr.write('SIZE_FIT_STORE_ID needs SIZE_FIT_ADMIN_KEY, a key of the merchant that owns the store\n');
  process.exit(2);
}
const store = existingStoreId
  ? await admin.GET('/v1/stores/{store_id}', { params: { path: { store_id: existingStoreId } } })
  : await admin.POST('/v1/stores', { body: { name: 'Example shop', currency: 'EUR' } });
const backendKey = await admin.POST('/v1/api-keys', {
  body: { name: 'example storefront backend', store_id: store.id, scopes: ['catalog', 'fit', 'events'] },
});
let products = SHOP_PRODUCTS;
if (existingStoreId) {
  products = await storeProducts(admin, store.id);
  if (products.length === 0) {
    process.stderr.write(`store ${store.id} has no product to sell: give a product its platform id in the console\n`);
    process.exit(2);
  }
  say(`store ${store.id}: ${products.length} products with the shop's ids`);
} else {
  await seedCatalog(admin, store.id);
  say(`store ${store.id}: ${products.length} products, a default questionnaire`);
}

const app = createBackend({
  sizeFit: { baseUrl, apiKey: secretOf(backendKey), storeId: store.id },
  webhookSecret: randomBytes(32).toString('base64'),
  cookieSecret: randomBytes(32).toString('base64'),
  secureCookies: process.env.SECURE_COOKIES === 'true',
  storefront: {
    products,
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
app.listen(port, host, () => say(`example storefront: open http://${host}:${port}/products/${encodeURIComponent(products[0]?.id ?? '')}`));
