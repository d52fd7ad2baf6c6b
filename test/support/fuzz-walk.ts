import { afterAll, beforeAll, beforeEach, expect, jest } from '@jest/globals';
import fc from 'fast-check';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { bearer, OPERATOR_KEY, type TestApp, useApp } from './app.js';
import { signUp } from './console-client.js';
import { eventBody } from './event-fixtures.js';
import { createStore, createTenant, issueKey, type Key, type Tenant } from './fixtures.js';
import { closeRawAgent, type RawAnswer, type RawRequest, sendRaw, toJsonText } from './fuzz-arbitraries.js';
import { fillPath, type RegisteredRoute, registeredRoutes } from './route-table.js';
import { createQuestionnaire, createShop, type Shop } from './session-fixtures.js';

/**
 * Property-based tests over every registered route, with valid credentials: generated and mutated bodies, query
 * strings, path ids and headers (test/api/service/fuzz-*.e2e-spec.ts). Whatever arrives, no answer is a 5xx, every
 * refusal on the API is problem details, and a refused request stores nothing (the rows of every table are
 * fingerprinted before and after it).
 *
 * fast-check prints the seed and the failing input on a failure; rerun one property with it by passing
 * `{ seed, path }` to `runs()` below.
 */

/**
 * Runs per route and property: small enough that each file stays well under a minute on the embedded database.
 * FUZZ_SCALE=20 multiplies them for a deeper search (`FUZZ_SCALE=20 npm test -- test/api/service/fuzz-`).
 */
export const RUNS = { bodies: 24, rawBodies: 8, queries: 6, paths: 8, headers: 6, consoleForms: 20, consolePages: 6 };
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE) || 1);
export const runs = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: numRuns * SCALE, endOnFailure: true });

const SHOPPER = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' };
const BODY_CHART = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
];

/** A draft experiment on the shop's product, its arms half and half. */
const experimentOf = (shop: Shop) => ({
  name: 'Fuzzed experiment',
  arms: [
    { name: 'size help', share: 0.5, treatment: 'size_help' },
    { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
  ],
  product_ids: [shop.productId],
  primary_metric: 'size_return_rate',
  guardrails: ['conversion'],
  minimum_effect: 0.03,
});

export interface Side {
  tenant: Tenant;
  shop: Shop;
  secondStoreId: string;
  questionnaireId: string;
  /** A session with a recommendation, and one kept for the check of the valid decision. */
  sessionId: string;
  spareSessionId: string;
  eventId: string;
  /** A key of the merchant other than the one the requests use: what `DELETE /v1/api-keys/{key_id}` may name. */
  spareKey: Key;
  /** A console account of the merchant: what `DELETE /v1/console-accounts/{account_id}` may name. */
  consoleAccountId: string;
  /** A draft experiment on the shop's product. */
  experimentId: string;
}

export interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { in: string; name: string; schema?: { type?: string } }[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

/**
 * The walk's app, fixtures and checks for the enclosing `describe` block: an app without rate limits, two merchants
 * with a store, catalog, questionnaire, sessions, an event, a spare key and a console account each (`mine` and
 * `theirs`, built before the tests), and `exercise()`, which sends one request and checks the properties above.
 * Call it first in the block; use what it returns in tests (`routes`, `openapi`, `mine` and `theirs` are filled in
 * before the first test). After the block it prints how many requests the walk sent.
 */
export function useFuzzWalk() {
  // A property walks every route: tens of seconds on a quiet machine, more when test files run side by side.
  jest.setTimeout(180_000 * SCALE);
  const t: TestApp = useApp({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 });
  let port: number;
  // filled in by beforeAll below; the same objects throughout, so that spec files can hold them from the start
  const routes: RegisteredRoute[] = [];
  const openapi = {} as OpenApi;
  const mine = {} as Side;
  const theirs = {} as Side;
  let fingerprintSql: string;
  /** Requests sent per route, and in all. */
  const tried = new Map<string, number>();

  const db = () => t.app.get(DataSource);

  async function buildSide(): Promise<Side> {
    const tenant = await createTenant(t);
    const secret = tenant.admin.secret;
    const shop = await createShop(t, tenant.storeId, secret);
    const secondStoreId = await createStore(t, secret);
    const questionnaire = await createQuestionnaire(t, tenant.storeId, secret, [
      { key: 'height', required: true },
      { key: 'weight', required: true },
      { key: 'sex', required: false },
    ]);
    const recommended = async () => {
      const started = await t.http().post(`/v1/stores/${tenant.storeId}/sessions`).set(bearer(secret)).send({ product_id: shop.productId });
      expect(started.status).toBe(201);
      const answered = await t
        .http()
        .post(`/v1/stores/${tenant.storeId}/sessions/${started.body.id}/answers`)
        .set(bearer(secret))
        .send({ answers: SHOPPER });
      expect(answered.status).toBe(200);
      return started.body.id as string;
    };
    const sessionId = await recommended();
    const spareSessionId = await recommended();
    const event = await t
      .http()
      .post(`/v1/stores/${tenant.storeId}/events`)
      .set(bearer(secret))
      .send(eventBody('purchase', shop, { session_id: sessionId, occurred_at: new Date().toISOString() }));
    expect(event.status).toBe(201);
    const spareKey = await issueKey(t, secret, { scopes: ['events'], store_id: tenant.storeId });
    const account = await signUp(t, tenant);
    const accounts = await t.http().get('/v1/console-accounts').set(bearer(secret));
    const consoleAccountId = (accounts.body.data as { id: string; email: string }[]).find((a) => a.email === account.email)?.id as string;
    const experiment = await t.http().post(`/v1/stores/${tenant.storeId}/experiments`).set(bearer(secret)).send(experimentOf(shop));
    expect(experiment.status).toBe(201);
    return {
      tenant,
      shop,
      secondStoreId,
      questionnaireId: questionnaire.id,
      sessionId,
      spareSessionId,
      eventId: event.body.id,
      spareKey,
      consoleAccountId,
      experimentId: experiment.body.id as string,
    };
  }

  /** Every id of a side, for use as a (possibly wrong) value anywhere. */
  const idsOf = (side: Side): string[] => [
    side.tenant.merchantId,
    side.tenant.storeId,
    side.secondStoreId,
    side.shop.productTypeId,
    side.shop.sizeChartId,
    side.shop.productId,
    ...Object.values(side.shop.variants),
    side.questionnaireId,
    side.sessionId,
    side.eventId,
    side.spareKey.id,
    side.consoleAccountId,
    side.experimentId,
    side.tenant.admin.id,
  ];
  const allIds = () => [...idsOf(mine), ...idsOf(theirs)];

  /** The resource a placeholder of `path` names, on `side`. */
  function placeholder(path: string, name: string, side: Side): string {
    if (name === 'store_id') return side.tenant.storeId;
    if (name === 'product_id') return side.shop.productId;
    if (name === 'key_id') return side.spareKey.id;
    if (name === 'account_id') return side.consoleAccountId;
    if (name === 'chart_id') return side.shop.sizeChartId;
    if (name === 'type_id') return side.shop.productTypeId;
    if (name === 'experiment_id') return side.experimentId;
    if (name === 'shopper_ref') return 'cust-fuzzed';
    if (name === 'job') return '01936f6e-0000-7000-8000-00000000a0b1';
    if (name === 'code') return 'validation_failed';
    if (name === 'name') return 'console.css';
    if (name !== 'id') throw new Error(`no fixture for {${name}} in ${path}`);
    const collection = /\/([a-z-]+)\/\{id\}/.exec(path)?.[1];
    const byCollection: Record<string, string> = {
      'product-types': side.shop.productTypeId,
      'size-charts': side.shop.sizeChartId,
      products: side.shop.productId,
      variants: side.shop.variants.M,
      questionnaires: side.questionnaireId,
      sessions: side.sessionId,
      experiments: side.experimentId,
    };
    const value = collection && byCollection[collection];
    if (!value) throw new Error(`no fixture for {id} in ${path}`);
    return value;
  }

  const ownValues = (route: RegisteredRoute, side = mine): Record<string, string> =>
    Object.fromEntries(route.params.map((name) => [name, placeholder(route.path, name, side)]));

  /** A valid body for each route that takes one (a function: each call gives fresh delivery ids and names). */
  function seedFor(route: string): (() => unknown) | undefined {
    const s = mine.shop;
    let n = 0;
    const seeds: Record<string, () => unknown> = {
      'POST /v1/merchants': () => ({ name: 'Fuzzed merchant' }),
      'POST /v1/api-keys': () => ({ name: 'fuzzed key', scopes: ['events', 'fit'], store_id: mine.tenant.storeId }),
      'POST /v1/stores': () => ({ name: 'Fuzzed store', currency: 'EUR', unit_system: 'metric' }),
      'PATCH /v1/stores/{store_id}': () => ({ name: 'Renamed store', currency: 'USD' }),
      'POST /v1/stores/{store_id}/product-types': () => ({ name: 'Fuzzed type', category: 'tops', zone_weights: { chest: 1, waist: 0.5 } }),
      'PATCH /v1/stores/{store_id}/product-types/{id}': () => ({ name: 'Tops', zone_weights: { chest: 1, waist: 0.5 } }),
      'POST /v1/stores/{store_id}/size-charts': () => ({ name: 'Fuzzed chart', unit: 'cm', measurement_type: 'body', sizes: BODY_CHART }),
      'PATCH /v1/stores/{store_id}/size-charts/{id}': () => ({ name: 'Body chart', unit: 'cm' }),
      'POST /v1/stores/{store_id}/products': () => ({
        title: 'Fuzzed tee',
        external_id: `fuzz-${Date.now()}-${++n}`,
        product_type_id: s.productTypeId,
        size_chart_id: s.sizeChartId,
        fit_adjustment: 'runs_small',
      }),
      'PATCH /v1/stores/{store_id}/products/{id}': () => ({ title: 'Tee', fit_adjustment: 'true_to_size' }),
      'POST /v1/stores/{store_id}/products/{product_id}/variants': () => ({
        size_label: 'L',
        sku: `FUZZ-${Date.now()}-${++n}`,
        title: 'Large',
      }),
      'PATCH /v1/stores/{store_id}/products/{product_id}/variants/{id}': () => ({ title: 'Medium', sku: null }),
      'POST /v1/stores/{store_id}/questionnaires': () => ({
        name: 'Fuzzed quiz',
        questions: [
          { key: 'height', required: true },
          { key: 'weight', required: true },
          { key: 'custom:colour', required: false },
        ],
        default: false,
      }),
      'PATCH /v1/stores/{store_id}/questionnaires/{id}': () => ({ name: 'Quiz' }),
      'POST /v1/stores/{store_id}/sessions': () => ({ product_id: s.productId, questionnaire_id: mine.questionnaireId }),
      'POST /v1/stores/{store_id}/sessions/{id}/answers': () => ({ answers: SHOPPER }),
      'POST /v1/stores/{store_id}/sessions/{id}/decision': () => ({ size_label: 'M' }),
      'POST /v1/stores/{store_id}/events': () => eventBody('return_requested', s, { quantity: 1 }),
      'POST /v1/stores/{store_id}/events/batch': () => ({
        events: [
          eventBody('fit_viewed', s),
          eventBody('purchase', s, { session_id: mine.sessionId, occurred_at: new Date().toISOString() }),
        ],
      }),
      'POST /v1/stores/{store_id}/experiments': () => experimentOf(s),
      'PATCH /v1/stores/{store_id}/experiments/{id}': () => ({
        name: 'Fuzzed experiment, renamed',
        minimum_effect: 0.04,
        product_ids: null,
      }),
      'POST /v1/stores/{store_id}/assignments': () => ({ shopper_ref: 'cust-fuzzed', product_id: s.productId }),
      'POST /v1/stores/{store_id}/order-history': () => ({
        lines: [
          {
            order_id: `fuzz-${Date.now()}-${++n}`,
            line_item_id: '1',
            product_id: s.productId,
            variant_id: s.variants.M,
            shopper_ref: 'cust-fuzzed',
            purchased_at: '2019-05-02T10:00:00.000Z',
            outcome: {
              type: 'size_exchange',
              reason: 'size',
              fit_feedback: 'too_small',
              new_variant_id: s.variants.L,
              occurred_at: '2019-05-09T10:00:00.000Z',
            },
          },
        ],
      }),
    };
    return seeds[route];
  }

  const credentialFor = (route: RegisteredRoute): string =>
    route.route === 'POST /v1/merchants' ? OPERATOR_KEY : mine.tenant.admin.secret;
  const isConsole = (route: RegisteredRoute) => route.path.startsWith('/console');
  const apiRoutes = () => routes.filter((route) => !isConsole(route));
  /** DELETE routes last, so that what they remove is removed after the other properties used it. */
  const deletesLast = (list: RegisteredRoute[]) => [
    ...list.filter((r) => r.method !== 'DELETE'),
    ...list.filter((r) => r.method === 'DELETE'),
  ];

  /** The route sent as a well-formed request: own ids, valid credentials, a valid JSON body when it takes one. */
  function wellFormed(route: RegisteredRoute, values = ownValues(route)): RawRequest {
    const seed = seedFor(route.route);
    return {
      method: route.method,
      path: fillPath(route.path, values),
      headers: { ...bearer(credentialFor(route)), ...(seed ? { 'Content-Type': 'application/json' } : {}) },
      body: seed ? Buffer.from(toJsonText(seed())) : undefined,
    };
  }

  // ——— the fingerprint of what is stored ———

  /**
   * One statement: for every table, its row count, and a digest of the rows that belong to the two merchants (or of
   * every row, for tables that belong to no merchant). Columns that reading legitimately touches are left out.
   */
  async function buildFingerprintSql(): Promise<string> {
    const columns: { table_name: string; column_name: string }[] = await db().query(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = current_schema()`,
    );
    const tables = new Map<string, Set<string>>();
    for (const { table_name, column_name } of columns) tables.set(table_name, (tables.get(table_name) ?? new Set()).add(column_name));
    const parts = [...tables.keys()].sort().map((table) => {
      const cols = tables.get(table) as Set<string>;
      const filter =
        table === 'merchants'
          ? 'x.id = ANY($1::uuid[])'
          : cols.has('merchant_id')
            ? 'x.merchant_id = ANY($1::uuid[])'
            : cols.has('store_id')
              ? 'x.store_id IN (SELECT id FROM stores WHERE merchant_id = ANY($1::uuid[]))'
              : 'TRUE';
      return `SELECT '${table}' AS name, (SELECT count(*)::int FROM "${table}") AS rows,
        (SELECT md5(coalesce(string_agg(h, ',' ORDER BY h), '')) FROM
          (SELECT md5((to_jsonb(x) - 'last_used_at' - 'refreshed_at' - 'expires_at')::text) AS h FROM "${table}" x WHERE ${filter}) d) AS digest`;
    });
    return parts.join('\nUNION ALL\n');
  }

  type Fingerprint = { name: string; rows: number; digest: string }[];
  const fingerprint = async (): Promise<Fingerprint> => db().query(fingerprintSql, [[mine.tenant.merchantId, theirs.tenant.merchantId]]);

  let known: Fingerprint | null = null;
  const changedTables = (before: Fingerprint, after: Fingerprint): string[] =>
    after.filter((row, i) => row.rows !== before[i]?.rows || row.digest !== before[i]?.digest).map((row) => row.name);

  function describeRequest(req: RawRequest): string {
    const body =
      req.body === undefined ? '' : ` body(${req.body.length} bytes)=${JSON.stringify(req.body.subarray(0, 300).toString('utf8'))}`;
    return `${req.method} ${req.path.slice(0, 300)} headers=${JSON.stringify(req.headers).slice(0, 600)}${body}`;
  }

  /** Set while a property fingerprints what is stored once around a batch of refusals instead of after each one. */
  let batched = false;

  /**
   * Sends one request and checks the three properties: below 500; a refusal outside the console is problem details
   * (one of the console is an HTML page); a refusal changed nothing stored.
   */
  async function exercise(
    route: RegisteredRoute | string,
    req: RawRequest,
    send: () => Promise<RawAnswer> = () => sendRaw(port, req),
  ): Promise<RawAnswer> {
    const name = typeof route === 'string' ? route : route.route;
    const before = batched ? null : (known ?? (await fingerprint()));
    const answer = await send();
    tried.set(name, (tried.get(name) ?? 0) + 1);
    const fail = (why: string): never => {
      throw new Error(`${why}\n  request: ${describeRequest(req)}\n  answer: ${answer.status} ${answer.text.slice(0, 500)}`);
    };
    if (answer.status >= 500) fail(`a ${answer.status} answer`);
    if (answer.status >= 400) {
      const contentType = String(answer.headers['content-type'] ?? '');
      // an asset's refusal is problem details; an address under /console that reaches no route is the console's page
      if (req.path.startsWith('/console') && !/^\/console\/assets\/[^/?]+(\?|$)/.test(req.path)) {
        if (!/^text\/html/.test(contentType)) fail(`a console refusal that is not an HTML page (${contentType})`);
      } else {
        if (!/^application\/problem\+json/.test(contentType)) fail(`a refusal that is not problem details (${contentType})`);
        const body = answer.json as Record<string, unknown> | undefined;
        const wellFormedProblem =
          body !== undefined &&
          typeof body.type === 'string' &&
          typeof body.title === 'string' &&
          body.status === answer.status &&
          typeof body.code === 'string' &&
          body.type === `/problems/${body.code}` &&
          typeof body.request_id === 'string' &&
          body.request_id === answer.headers['request-id'];
        if (!wellFormedProblem) fail('problem details without type, title, status, code or request_id');
      }
      if (before) {
        const after = await fingerprint();
        const changed = changedTables(before, after);
        if (changed.length) fail(`a refused request changed stored rows of ${changed.join(', ')}`);
        known = after;
      }
    } else {
      known = null;
    }
    return answer;
  }

  // requests made outside exercise() (fixtures, sign-ups) change what is stored
  beforeEach(() => {
    known = null;
  });

  beforeAll(async () => {
    const server = t.app.getHttpServer() as unknown as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    Object.assign(openapi, (await t.http().get('/openapi.json')).body as OpenApi);
    routes.push(...registeredRoutes(t.app));
    Object.assign(mine, await buildSide());
    Object.assign(theirs, await buildSide());
    fingerprintSql = await buildFingerprintSql();
  }, 60_000);

  afterAll(() => {
    closeRawAgent();
    const total = [...tried.values()].reduce((a, b) => a + b, 0);
    // The figures for docs/reliability.md, added up over the test/api/service/fuzz-*.e2e-spec.ts files.
    process.stdout.write(`fuzzing: ${total} requests over ${tried.size} routes\n`);
  });

  return {
    t,
    routes,
    openapi,
    mine,
    theirs,
    /** Requests sent per route. */
    tried,
    allIds,
    placeholder,
    ownValues,
    seedFor,
    credentialFor,
    isConsole,
    apiRoutes,
    deletesLast,
    wellFormed,
    fingerprint,
    changedTables,
    exercise,
    /** What is stored, as last fingerprinted after a refusal; `null` makes the next `exercise()` fingerprint again. */
    get known(): Fingerprint | null {
      return known;
    },
    set known(value: Fingerprint | null) {
      known = value;
    },
    /** Set while a property fingerprints what is stored once around a batch of refusals instead of after each one. */
    get batched(): boolean {
      return batched;
    },
    set batched(value: boolean) {
      batched = value;
    },
  };
}
