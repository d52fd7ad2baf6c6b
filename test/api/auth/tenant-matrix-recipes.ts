/**
 * The tables of the tenant isolation matrix (tenant-matrix.e2e-spec.ts): who calls (the columns), how to call each
 * /v1 route and console page with valid input (the recipes, with the fixtures they send), how an answer is written
 * as a cell, and what a route's access rule says each cell must be.
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { AccessRule } from '../../../src/auth/access.decorators.js';
import { errorCode, PASSWORD } from '../../support/console-client.js';
import type { RegisteredRoute } from '../../support/route-table.js';

export type Merchant = 'A' | 'B';
export type StoreTag = 'A1' | 'A2' | 'B1';
export type Scope = 'admin' | 'catalog' | 'fit' | 'events' | 'analytics';

/** One store's resources, created over the API; the nested ids a route's path, body or query can name. */
export interface World {
  tag: StoreTag;
  merchant: Merchant;
  storeId: string;
  /** The merchant's unrestricted admin key. */
  admin: string;
  typeId: string;
  typeName: string;
  chartId: string;
  chartName: string;
  productId: string;
  productExternalId: string;
  variantId: string;
  questionnaireId: string;
  questionnaireName: string;
  /** A session with a recommendation and no decision. */
  sessionId: string;
  eventId: string;
  /** A draft experiment on the world's product. */
  experimentId: string;
}

/** A column of the matrix: who calls, and whose ids fill the path and the body. */
export interface Column {
  name: string;
  /** The merchant the caller belongs to (null: nobody's, e.g. no key or the operator). */
  merchant: Merchant | null;
  secret: string | undefined;
  /** For keys: its scopes and store binding (null: unrestricted); undefined for no key, operator, dead keys. */
  scopes?: readonly Scope[];
  store?: StoreTag | null;
  dead?: boolean;
  operator?: boolean;
  /** Whose nested path ids (everything but store_id) and whose body/query references the request carries. */
  pathIds: StoreTag;
  refs: StoreTag;
}

/** How to call one route with valid input: its body, its query, and which resource its `{id}` needs fresh. */
export interface Recipe {
  body?: (w: World, n: string) => Record<string, unknown>;
  query?: (w: World) => string;
  /** The body or query names resources (ids, external ids, stores) of the store. */
  refs?: boolean;
  /** A resource consumed by the call (deleted, decided…), made anew for each cell in the path's store. */
  fresh?: Fresh;
}
export type Fresh =
  'key' | 'account' | 'type' | 'chart' | 'product' | 'variant' | 'questionnaire' | 'started' | 'recommended' | 'draft' | 'running';

/** An experiment on the given products: a product runs in one experiment at a time, so each cell starts its own. */
export const experimentOn = (productIds: string[], n: string) => ({
  name: `experiment-${n}`,
  arms: [
    { name: 'size help', share: 0.5, treatment: 'size_help' },
    { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
  ],
  primary_metric: 'conversion',
  minimum_effect: 0.02,
  product_ids: productIds,
});

export const BODY_CHART = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
];
export const QUESTIONS = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'age', required: false },
  { key: 'sex', required: false },
];
export const ANSWERS = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' };

/** A purchase of the world's M variant through its recommended session, with a fresh delivery key. */
export const purchase = (w: World, n: string) => ({
  source: 'matrix',
  external_id: `delivery-${n}`,
  type: 'purchase',
  product_id: w.productId,
  variant_id: w.variantId,
  session_id: w.sessionId,
  order_id: `order-${n}`,
  line_item_id: '1',
  occurred_at: new Date().toISOString(),
});

/** A line of the world's M variant bought a year ago and returned as too small, in a fresh order. */
const pastLine = (w: World, n: string) => ({
  order_id: `history-${n}`,
  line_item_id: '1',
  product_id: w.productId,
  variant_id: w.variantId,
  purchased_at: new Date(Date.now() - 365 * 86_400_000).toISOString(),
  outcome: { type: 'return_requested', reason: 'size', fit_feedback: 'too_small', occurred_at: new Date().toISOString() },
});

/** Every /v1 route must have one: a new route without a recipe fails the suite until it is added here. */
export const RECIPES: Record<string, Recipe> = {
  'POST /v1/merchants': { body: (_, n) => ({ name: `merchant-${n}` }) },
  'GET /v1/merchant': {},
  'GET /v1/api-keys': { query: (w) => `store_id=${w.storeId}`, refs: true },
  'POST /v1/api-keys': { body: (w, n) => ({ name: `key-${n}`, scopes: ['catalog'], store_id: w.storeId }), refs: true },
  'DELETE /v1/api-keys/{key_id}': { fresh: 'key' },
  'GET /v1/console-accounts': {},
  'DELETE /v1/console-accounts/{account_id}': { fresh: 'account' },
  'GET /v1/stores': {},
  'POST /v1/stores': { body: (_, n) => ({ name: `store-${n}` }) },
  'GET /v1/stores/{store_id}': {},
  'PATCH /v1/stores/{store_id}': { body: () => ({ currency: 'EUR' }) },

  'GET /v1/stores/{store_id}/product-types': {},
  'POST /v1/stores/{store_id}/product-types': { body: (_, n) => ({ name: `type-${n}`, category: 'tops', zone_weights: { chest: 1 } }) },
  'GET /v1/stores/{store_id}/product-types/{id}': {},
  'PATCH /v1/stores/{store_id}/product-types/{id}': { body: (w) => ({ name: w.typeName }) },
  'DELETE /v1/stores/{store_id}/product-types/{id}': { fresh: 'type' },

  'GET /v1/stores/{store_id}/size-charts': {},
  'POST /v1/stores/{store_id}/size-charts': {
    body: (_, n) => ({ name: `chart-${n}`, unit: 'cm', measurement_type: 'body', sizes: BODY_CHART }),
  },
  'GET /v1/stores/{store_id}/size-charts/{id}': {},
  'PATCH /v1/stores/{store_id}/size-charts/{id}': { body: (w) => ({ name: w.chartName }) },
  'DELETE /v1/stores/{store_id}/size-charts/{id}': { fresh: 'chart' },

  'GET /v1/stores/{store_id}/products': { query: (w) => `external_id=${w.productExternalId}`, refs: true },
  'POST /v1/stores/{store_id}/products': {
    body: (w, n) => ({ title: `product-${n}`, product_type_id: w.typeId, size_chart_id: w.chartId }),
    refs: true,
  },
  'GET /v1/stores/{store_id}/products/{id}': {},
  'PATCH /v1/stores/{store_id}/products/{id}': {
    body: (w) => ({ product_type_id: w.typeId, size_chart_id: w.chartId, fit_adjustment: 'true_to_size' }),
    refs: true,
  },
  'DELETE /v1/stores/{store_id}/products/{id}': { fresh: 'product' },

  'GET /v1/stores/{store_id}/products/{product_id}/variants': {},
  'POST /v1/stores/{store_id}/products/{product_id}/variants': { body: (_, n) => ({ size_label: 'L', sku: `sku-${n}` }) },
  'GET /v1/stores/{store_id}/products/{product_id}/variants/{id}': {},
  'PATCH /v1/stores/{store_id}/products/{product_id}/variants/{id}': { body: () => ({ title: 'Medium' }) },
  'DELETE /v1/stores/{store_id}/products/{product_id}/variants/{id}': { fresh: 'variant' },

  'GET /v1/stores/{store_id}/questionnaires': {},
  'POST /v1/stores/{store_id}/questionnaires': { body: (_, n) => ({ name: `quiz-${n}`, questions: QUESTIONS }) },
  'GET /v1/stores/{store_id}/questionnaires/{id}': {},
  'PATCH /v1/stores/{store_id}/questionnaires/{id}': { body: (w) => ({ name: w.questionnaireName }) },
  'DELETE /v1/stores/{store_id}/questionnaires/{id}': { fresh: 'questionnaire' },

  'GET /v1/stores/{store_id}/sessions': {},
  'POST /v1/stores/{store_id}/sessions': { body: (w) => ({ product_id: w.productId, questionnaire_id: w.questionnaireId }), refs: true },
  'GET /v1/stores/{store_id}/sessions/{id}': {},
  'POST /v1/stores/{store_id}/sessions/{id}/answers': { body: () => ({ answers: ANSWERS }), fresh: 'started' },
  'POST /v1/stores/{store_id}/sessions/{id}/decision': { body: (w) => ({ variant_id: w.variantId }), refs: true, fresh: 'recommended' },

  'GET /v1/stores/{store_id}/events': { query: (w) => `session_id=${w.sessionId}`, refs: true },
  'POST /v1/stores/{store_id}/events': { body: purchase, refs: true },
  'POST /v1/stores/{store_id}/events/batch': { body: (w, n) => ({ events: [purchase(w, n)] }), refs: true },
  'POST /v1/stores/{store_id}/order-history': { body: (w, n) => ({ lines: [pastLine(w, n)] }), refs: true },

  'GET /v1/stores/{store_id}/experiments': {},
  'POST /v1/stores/{store_id}/experiments': { body: (w, n) => experimentOn([w.productId], n), refs: true },
  'GET /v1/stores/{store_id}/experiments/{id}': {},
  'PATCH /v1/stores/{store_id}/experiments/{id}': { body: () => ({ name: 'Renamed experiment', minimum_effect: 0.04 }), fresh: 'draft' },
  'DELETE /v1/stores/{store_id}/experiments/{id}': { fresh: 'draft' },
  'POST /v1/stores/{store_id}/experiments/{id}/start': { fresh: 'draft' },
  'POST /v1/stores/{store_id}/experiments/{id}/stop': { fresh: 'running' },
  'GET /v1/stores/{store_id}/experiments/{id}/results': {},
  'POST /v1/stores/{store_id}/assignments': { body: (w) => ({ shopper_ref: 'cust-matrix', product_id: w.productId }), refs: true },

  'GET /v1/stores/{store_id}/metrics': {},
  'GET /v1/stores/{store_id}/metrics/daily': {},

  'GET /v1/stores/{store_id}/products/{product_id}/fit': {},
  'GET /v1/stores/{store_id}/product-fit': {},
  'DELETE /v1/stores/{store_id}/shoppers/{shopper_ref}': {},
};

/** Console pages: the form each POST sends (with the session's CSRF token), and what it consumes. */
/**
 * A console page's request. `fresh`: a new key, session, chart, type or experiment (a draft, or one running: the path's
 * id) or product (the form's `ids`) for each cell; `{type_id}` and `{chart_id}` in a form value stand for store A1's.
 */
export const CONSOLE_RECIPES: Record<
  string,
  { form?: Record<string, string | string[]>; fresh?: 'key' | 'session' | 'chart' | 'type' | 'product' | 'draft' | 'running' }
> = {
  'GET /console': {},
  'GET /console/access': {},
  'POST /console/access/{account_id}/remove': {},
  'GET /console/password': {},
  // The same password again: the change still ends the account's other sessions, and later cells can sign in.
  'POST /console/password': { form: { current_password: PASSWORD, new_password: PASSWORD } },
  'GET /console/platform/callback': {},
  'POST /console/logout': { fresh: 'session' },
  'GET /console/stores/{store_id}': {},
  'GET /console/stores/{store_id}/keys': {},
  'POST /console/stores/{store_id}/keys': { form: { name: 'console matrix key', scopes: ['catalog'] } },
  'POST /console/stores/{store_id}/keys/{key_id}/revoke': { fresh: 'key' },
  'GET /console/stores/{store_id}/metrics': {},
  'GET /console/stores/{store_id}/product-fit': {},
  'GET /console/stores/{store_id}/product-fit/{product_id}': {},
  'POST /console/stores/{store_id}/platform/connect': { form: { shop: 'matrix-shop.myshopify.com' } },
  'POST /console/stores/{store_id}/platform/disconnect': {},
  'GET /console/stores/{store_id}/platform': {},
  'POST /console/stores/{store_id}/platform/import': {},
  'POST /console/stores/{store_id}/platform/assign': {
    form: { field: 'tag', value: 'console matrix tag', size_chart_id: '{chart_id}', product_type_id: '{type_id}' },
  },
  // `{job}`: a dead letter no store has (a retry of another store's is refused in platform-notices.e2e-spec.ts).
  'POST /console/stores/{store_id}/platform/dead-letters/{job}/retry': {},
  'POST /console/stores': { form: { name: 'console matrix store', currency: 'EUR', unit_system: 'metric' } },
  'POST /console/stores/{store_id}/settings': { form: { name: 'console matrix store', currency: 'EUR', unit_system: 'metric' } },
  'GET /console/stores/{store_id}/charts': {},
  'POST /console/stores/{store_id}/charts': { form: { template: 'women-tops', labels: 'EU', name: 'console matrix chart' } },
  'POST /console/stores/{store_id}/charts/import': { form: { name: 'console matrix chart', csv: 'size,chest_min,chest_max\nS,80,88\n' } },
  'GET /console/stores/{store_id}/charts/{chart_id}': {},
  'POST /console/stores/{store_id}/charts/{chart_id}': {
    fresh: 'chart',
    form: {
      name: 'console matrix chart',
      zones: 'chest,waist',
      rows: String(BODY_CHART.length),
      ...Object.fromEntries(
        BODY_CHART.flatMap((size, i) => [
          [`size_${i}_label`, size.label],
          ...Object.entries(size.measurements).flatMap(([zone, range]) => [
            [`size_${i}_${zone}_min`, String(range.min)],
            [`size_${i}_${zone}_max`, String(range.max)],
          ]),
        ]),
      ),
    },
  },
  'GET /console/stores/{store_id}/charts/{chart_id}/csv': {},
  'GET /console/stores/{store_id}/product-types': {},
  'POST /console/stores/{store_id}/product-types': { form: { name: 'console matrix type', category: 'tops', weight_chest: '1' } },
  'GET /console/stores/{store_id}/product-types/{type_id}': {},
  'POST /console/stores/{store_id}/product-types/{type_id}': {
    fresh: 'type',
    form: { name: 'console matrix type', category: 'tops', weight_chest: '1', weight_waist: '0.5' },
  },
  'GET /console/stores/{store_id}/products': {},
  'GET /console/stores/{store_id}/status': {},
  'POST /console/stores/{store_id}/products': {
    form: { title: 'console matrix product', product_type_id: '{type_id}', size_chart_id: '{chart_id}', fit_adjustment: 'true_to_size' },
  },
  'POST /console/stores/{store_id}/products/bulk': { fresh: 'product', form: { fit_adjustment: 'runs_small' } },
  'GET /console/stores/{store_id}/experiments': {},
  'POST /console/stores/{store_id}/experiments': {
    form: { name: 'console matrix experiment', split: 'halves', products: 'all', primary_metric: 'conversion', minimum_effect: '2' },
  },
  'GET /console/stores/{store_id}/experiments/{experiment_id}': {},
  'GET /console/stores/{store_id}/experiments/{experiment_id}/edit': {},
  'POST /console/stores/{store_id}/experiments/{experiment_id}/edit': {
    fresh: 'draft',
    form: {
      design: '1',
      name: 'console matrix experiment',
      split: 'halves',
      products: 'all',
      primary_metric: 'conversion',
      minimum_effect: '3',
    },
  },
  'POST /console/stores/{store_id}/experiments/{experiment_id}/start': { fresh: 'draft' },
  'POST /console/stores/{store_id}/experiments/{experiment_id}/stop': { fresh: 'running' },
  'POST /console/stores/{store_id}/experiments/{experiment_id}/delete': { fresh: 'draft' },
};

/** A name no other resource has, recognisable in any answer (see UNIQUE). */
export const unique = (kind: string) => `${kind}-${randomBytes(5).toString('hex')}`;
export const UNIQUE = /-[0-9a-f]{10}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The resource a `{name}` placeholder stands for, from the path segment before it. */
export function resourceOf(path: string, param: string): string {
  if (param !== 'id') return param.replace(/_id$/, '');
  const segments = path.split('/');
  return segments[segments.indexOf('{id}') - 1];
}

// ————————————————————————————————————— cell notation —————————————————————————————————————

/**
 * `401`; `403:scope` (insufficient_scope), `403:store` (store_forbidden), `403:self` (cannot_revoke_self); `404`;
 * `400:ref` (a 400 whose every field error is `not_found`: a reference outside the store); `login` (console: 303 to
 * the sign-in page); `ok 2xx/3xx` past access control, with its status; `-` not applicable; anything else
 * `<status>:<code>` (the request recipe is wrong, or the service is).
 */
export function cell(response: Response): string {
  const body = (response.body ?? {}) as { code?: string; errors?: { code?: string }[] };
  const code = body.code ?? (/^text\/html/.test(String(response.headers['content-type'])) ? errorCode(response.text) : undefined);
  const location = response.headers.location as string | undefined;
  if (response.status === 303 && location !== undefined && new URL(location, 'http://x.invalid').pathname === '/console/login')
    return 'login';
  if (response.status < 400) return `ok ${response.status}`;
  if (response.status === 401 && code === 'unauthenticated') return '401';
  if (response.status === 403) {
    const short = { insufficient_scope: 'scope', store_forbidden: 'store', cannot_revoke_self: 'self' }[code ?? ''];
    if (short) return `403:${short}`;
  }
  if (response.status === 404 && code === 'not_found') return '404';
  if (
    response.status === 400 &&
    code === 'validation_failed' &&
    body.errors?.length &&
    body.errors.every((e) => REF_CODES.includes(e.code ?? ''))
  ) {
    return '400:ref';
  }
  return `${response.status}:${code ?? '?'}`;
}

/** The field-error codes of a reference that names nothing the caller may use (`unknown_store`: a key's store_id). */
const REF_CODES = ['not_found', 'unknown_store'];

/** A batch's one result, classified as a single answer would be: `ok 200/201`, `ok 200/400:ref`. */
export function batchCell(response: Response): string {
  const results = (response.body as { results?: { status: number; error?: unknown }[] }).results;
  if (response.status !== 200 || results?.length !== 1) return cell(response);
  const [result] = results;
  const inner =
    result.status < 400
      ? String(result.status)
      : cell({ status: result.status, body: result.error, headers: {}, text: '' } as unknown as Response);
  return `ok 200/${inner}`;
}

/** What a cell means for the access rule: `pass` when the call got past access control and did its work. */
export function verdict(got: string): string {
  const inBatch = /^ok \d+\/(.+)$/.exec(got);
  if (inBatch && !/^\d+$/.test(inBatch[1])) return inBatch[1];
  return got.startsWith('ok ') ? 'pass' : got;
}

/** What the route's access rule says the cell must be (several when the rule leaves a choice). */
export function byRule(route: RegisteredRoute, recipe: Recipe, column: Column): string[] {
  // a shopper's id is not a resource of anyone's: only the store decides
  const nestedIds = route.params.some((p) => p !== 'store_id' && p !== 'shopper_ref');
  if (column.pathIds !== 'A1' && !nestedIds) return ['-'];
  if (column.refs !== 'A1' && !recipe.refs) return ['-'];
  const rule = route.rule as AccessRule;
  if (column.secret === undefined || column.dead) return ['401'];
  if (rule.kind === 'operator') return column.operator ? ['pass'] : ['403:scope'];
  if (rule.kind !== 'merchant') throw new Error(`${route.route}: not a merchant route`);
  if (column.operator) return ['403:scope'];
  const scopes = column.scopes ?? [];
  if (!scopes.includes('admin') && !rule.scopes.some((scope) => scopes.includes(scope))) return ['403:scope'];
  if (rule.unrestricted && column.store) return ['403:scope'];
  if (rule.store && column.store && column.store !== 'A1') return ['403:store'];
  // Past the guard: another merchant's ids, or another store's nested ids, are not found.
  if (column.merchant === 'B' && (rule.store || nestedIds)) return ['404'];
  // Merchant-wide routes (keys) see every store of the merchant: A2's ids are A's own there.
  if (column.pathIds === 'B1' || (column.pathIds === 'A2' && rule.store)) return ['404'];
  if (column.store === 'A2' && nestedIds) return ['404'];
  // B's admin naming A's resources in the body is naming nothing of its own.
  if (column.merchant === 'B' && recipe.refs) return route.method === 'GET' ? ['400:ref', 'pass'] : ['400:ref'];
  if (column.refs !== 'A1') {
    // A store id of the same merchant is a fine reference for keys; anything of another store is not.
    const storeRef = route.path === '/v1/api-keys';
    if (storeRef && column.refs === 'A2') return ['pass'];
    // A list filter may refuse the foreign reference or answer an empty list.
    return route.method === 'GET' ? ['400:ref', 'pass'] : ['400:ref'];
  }
  return ['pass'];
}

/** One line of the matrix: the route, then each cell padded to `width`. */
export function row(route: string, cells: string[], width = 15): string {
  return `${route.padEnd(64)} ${cells.map((c) => c.padEnd(width)).join('')}`.trimEnd();
}
