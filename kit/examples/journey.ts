/**
 * The README's integrator journey, typed end to end by the generated client: a merchant, its store and keys, a
 * catalog, a shopper's arm on the product page, her fit session, the purchase, and the metrics that link them. Strict TypeScript, no casts.
 *
 *   SIZE_FIT_URL=http://127.0.0.1:3000 SIZE_FIT_ADMIN_KEY=sfk_… npm run kit:journey
 *
 * Each step uses the least key that can do it, as an integrator's servers would: the merchant's admin key creates the
 * store and issues store-bound keys, and those keys do the rest. Given the operator key instead
 * (SIZE_FIT_OPERATOR_KEY=sfo_…), it first creates a merchant, whose admin key comes in that answer only.
 */
import { pathToFileURL } from 'node:url';
import { createSizeFitClient, type FetchFunction, type Schemas, secretOf, type SizeFitClient } from '../client/size-fit.js';

export type JourneyOptions = {
  readonly baseUrl: string;
  readonly fetch?: FetchFunction;
  readonly log?: (line: string) => void;
} & (
  | {
      /** A merchant's unrestricted admin key (`sfk_…`): the journey runs in that merchant. */
      readonly adminKey: string;
    }
  | {
      /** The operator bootstrap key (`sfo_…`), printed by the service's first start: a new merchant is created. */
      readonly operatorKey: string;
    }
);

export interface JourneyResult {
  readonly merchantId: string;
  readonly storeId: string;
  readonly productId: string;
  /** The shopper's arm on the product page: size help, outside any experiment. */
  readonly assignment: Schemas['AssignmentResponse'];
  readonly sessionId: string;
  readonly recommendation: Schemas['RecommendationResponse'];
  readonly decision: Schemas['DecisionResponse'];
  readonly purchase: Schemas['EventResponse'];
  /** The status of the purchase sent again through the batch route: 200, stored before. */
  readonly resentStatus: number;
  readonly keyNames: string[];
  readonly metrics: Schemas['MetricsResponse'];
}

export async function runJourney(options: JourneyOptions): Promise<JourneyResult> {
  const log = options.log ?? (() => undefined);
  const client = (apiKey: string): SizeFitClient => createSizeFitClient({ baseUrl: options.baseUrl, apiKey, fetch: options.fetch });

  // 1. The merchant's admin key; or, with the operator key, a new merchant and its first admin key, whose secret is in
  // that answer only.
  let admin: SizeFitClient;
  let merchantId: string;
  if ('adminKey' in options) {
    admin = client(options.adminKey);
    merchantId = (await admin.GET('/v1/merchant')).id;
    log(`merchant ${merchantId}`);
  } else {
    const created = await client(options.operatorKey).POST('/v1/merchants', { body: { name: 'Acme Apparel' } });
    admin = client(secretOf(created.api_key));
    merchantId = created.merchant.id;
    log(`merchant ${merchantId}, admin key ${created.api_key.prefix}…`);
  }

  // 2. A store.
  const store = await admin.POST('/v1/stores', { body: { name: 'Acme EU', currency: 'EUR' } });
  const inStore = { path: { store_id: store.id } };
  log(`store ${store.id}`);

  // 3. Store-bound keys, one per job: the storefront backend (catalog, fit), checkout (events), reporting.
  const issue = async (name: string, scopes: Schemas['CreateApiKeyRequest']['scopes']) =>
    admin.POST('/v1/api-keys', { body: { name, store_id: store.id, scopes } });
  const backendKey = await issue('storefront backend', ['catalog', 'fit']);
  const checkoutKey = await issue('checkout', ['events']);
  const reportingKey = await issue('reporting', ['analytics']);
  const backend = client(secretOf(backendKey));
  const checkout = client(secretOf(checkoutKey));
  const reporting = client(secretOf(reportingKey));

  // 4. Rotation: issue the replacement first, then revoke the old key with another admin key. Listing never shows
  // a secret.
  const replacement = await issue('checkout (rotated)', ['events']);
  await admin.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: replacement.id } } });
  const keyNames: string[] = [];
  for await (const key of admin.list('/v1/api-keys', { params: { query: { store_id: store.id, limit: 2 } } })) {
    keyNames.push(key.revoked_at === null ? key.name : `${key.name} (revoked)`);
  }
  log(`keys: ${keyNames.join(', ')}`);

  // 5. The catalog: which body zones matter, a size chart (smallest first), a product and one variant per size.
  const type = await backend.POST('/v1/stores/{store_id}/product-types', {
    params: inStore,
    body: { name: 'T-shirt', category: 'tops', zone_weights: { chest: 1, waist: 0.5 } },
  });
  const chart = await backend.POST('/v1/stores/{store_id}/size-charts', {
    params: inStore,
    body: {
      name: 'Tops',
      unit: 'cm',
      measurement_type: 'body',
      sizes: [
        { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
        { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
        { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
      ],
    },
  });
  const product = await backend.POST('/v1/stores/{store_id}/products', {
    params: inStore,
    body: { title: 'Crew tee', external_id: 'gid-1001', product_type_id: type.id, size_chart_id: chart.id },
  });
  const onProduct = { path: { store_id: store.id, product_id: product.id } };
  for (const size of ['S', 'M', 'L']) {
    await backend.POST('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: onProduct,
      body: { size_label: size, sku: `TEE-${size}`, external_id: `gid-1001-${size}` },
    });
  }
  const variants: Schemas['VariantResponse'][] = [];
  for await (const variant of backend.list('/v1/stores/{store_id}/products/{product_id}/variants', { params: onProduct })) {
    variants.push(variant);
  }
  log(`product ${product.id}: ${variants.map((variant) => variant.size_label).join(' ')}`);

  // 6. The product page is shown: the shopper's arm, by your pseudonymous id for her (the first call exposes her to a
  // running experiment). `no_size_help` would mean no size help entry point at all; outside any experiment, size help.
  const shopperRef = 'cust_8f3a2c';
  const assignment = await backend.assign(store.id, { shopper_ref: shopperRef, product_id: product.id });
  log(`product page: ${assignment.treatment}`);

  // 7. The shopper's fit session, naming her as the page did: start, answers (→ a recommendation and its
  // confidence), decision.
  const session = await backend.POST('/v1/stores/{store_id}/sessions', {
    params: inStore,
    body: { product_id: product.id, shopper_ref: shopperRef },
  });
  const onSession = { path: { store_id: store.id, id: session.id } };
  const answered = await backend.POST('/v1/stores/{store_id}/sessions/{id}/answers', {
    params: onSession,
    body: { answers: { height: { value: 178, unit: 'cm' }, weight: { value: 72, unit: 'kg' }, age: 34, sex: 'male' } },
  });
  const recommendation = answered.recommendation;
  if (recommendation === null) throw new Error('answered session without a recommendation');
  log(`recommended ${recommendation.size_label} (${Math.round(recommendation.confidence * 100)}% sure)`);
  const decided = await backend.POST('/v1/stores/{store_id}/sessions/{id}/decision', {
    params: onSession,
    body: { size_label: recommendation.size_label },
  });
  const decision = decided.decision;
  if (decision === null) throw new Error('decided session without a decision');
  log(`decision ${decision.size_label}: ${decision.outcome}`);

  // 8. The purchase, with the session that helped and the shopper, so that an experiment counts it in her arm. Its
  // source + external_id make it safe to send again.
  const bought = variants.find((variant) => variant.size_label === decision.size_label);
  if (bought === undefined) throw new Error(`no variant in size ${decision.size_label}`);
  const event: Schemas['EventRequest'] = {
    source: 'shop',
    external_id: 'purchase-1001-1',
    type: 'purchase',
    product_id: product.id,
    variant_id: bought.id,
    session_id: session.id,
    shopper_ref: shopperRef,
    order_id: '1001',
    line_item_id: '1',
    quantity: 1,
    occurred_at: new Date().toISOString(),
  };
  const purchase = await checkout.POST('/v1/stores/{store_id}/events', { params: inStore, body: event });
  const [resent] = await checkout.sendEvents(store.id, [event]);
  if (resent === undefined) throw new Error('the batch answered no result');
  log(`purchase ${purchase.id}; sent again: ${resent.status}`);

  // 9. The cohort metrics of the last 30 days, with the counts each rate divides.
  const metrics = await reporting.GET('/v1/stores/{store_id}/metrics', { params: inStore });
  log(`metrics: ${JSON.stringify(metrics.rates)}`);

  return {
    merchantId,
    storeId: store.id,
    productId: product.id,
    assignment,
    sessionId: session.id,
    recommendation,
    decision,
    purchase,
    resentStatus: resent.status,
    keyNames,
    metrics,
  };
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const baseUrl = process.env.SIZE_FIT_URL ?? 'http://127.0.0.1:3000';
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const adminKey = process.env.SIZE_FIT_ADMIN_KEY;
  const operatorKey = process.env.SIZE_FIT_OPERATOR_KEY;
  if (adminKey) await runJourney({ baseUrl, adminKey, log });
  else if (operatorKey) await runJourney({ baseUrl, operatorKey, log });
  else {
    process.stderr.write(
      "Set SIZE_FIT_ADMIN_KEY to a merchant's unrestricted admin key (sfk_…, shown once when the merchant was created), " +
        'or SIZE_FIT_OPERATOR_KEY to the operator key, to create a merchant first.\n',
    );
    process.exit(2);
  }
}
