import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { bearer, OPERATOR_KEY, useApp } from '../support/app.js';
import { ConsoleClient, signUp } from '../support/console-client.js';
import { eventBody } from '../support/event-fixtures.js';
import { createStore, createTenant, issueKey, type Key, type Tenant } from '../support/fixtures.js';
import {
  authorizationArb,
  closeRawAgent,
  CONTENT_ENCODINGS,
  CONTENT_TYPES,
  applyMutations,
  edgeString,
  encodeBytes,
  mutationArb,
  NUMERIC_EXTREMES,
  ODD_ENCODINGS,
  ODD_HEADERS,
  queryArb,
  type RawAnswer,
  rawBodyArb,
  type RawRequest,
  segmentArb,
  sendRaw,
  toJsonText,
} from '../support/fuzz-arbitraries.js';
import { queryParameters } from '../support/query-parameters.js';
import { fillPath, type RegisteredRoute, registeredRoutes } from '../support/route-table.js';
import { createQuestionnaire, createShop, type Shop } from '../support/session-fixtures.js';

/**
 * Property-based tests over every registered route, with valid credentials: generated and mutated bodies, query
 * strings, path ids and headers. Whatever arrives, no answer is a 5xx, every refusal on the API is problem details,
 * and a refused request stores nothing (the rows of every table are fingerprinted before and after it).
 *
 * fast-check prints the seed and the failing input on a failure; rerun one property with it by passing
 * `{ seed, path }` to `runs()` below.
 */

/**
 * Runs per route and property: small enough that the file stays well under a minute on the embedded database.
 * FUZZ_SCALE=20 multiplies them for a deeper search (`FUZZ_SCALE=20 npm test -- test/service/fuzz.e2e-spec.ts`).
 */
const RUNS = { bodies: 24, rawBodies: 8, queries: 6, paths: 8, headers: 6, consoleForms: 20, consolePages: 6 };
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE) || 1);
const runs = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: numRuns * SCALE, endOnFailure: true });

const SHOPPER = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, age: 34, sex: 'male' };
const BODY_CHART = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 71, max: 79 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 79, max: 87 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 87, max: 95 } } },
];

interface Side {
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
}

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { in: string; name: string; schema?: { type?: string } }[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

describe('fuzzing every route', () => {
  const t = useApp({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 });
  let port: number;
  let routes: RegisteredRoute[];
  let openapi: OpenApi;
  let mine: Side;
  let theirs: Side;
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
    side.tenant.admin.id,
  ];
  const allIds = () => [...idsOf(mine), ...idsOf(theirs)];

  /** The resource a placeholder of `path` names, on `side`. */
  function placeholder(path: string, name: string, side: Side): string {
    if (name === 'store_id') return side.tenant.storeId;
    if (name === 'product_id') return side.shop.productId;
    if (name === 'key_id') return side.spareKey.id;
    if (name === 'account_id') return side.consoleAccountId;
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
    openapi = (await t.http().get('/openapi.json')).body as OpenApi;
    routes = registeredRoutes(t.app);
    mine = await buildSide();
    theirs = await buildSide();
    fingerprintSql = await buildFingerprintSql();
  }, 60_000);

  afterAll(() => {
    closeRawAgent();
    const total = [...tried.values()].reduce((a, b) => a + b, 0);
    // The figures for docs/reliability.md.
    process.stdout.write(`fuzzing: ${total} requests over ${tried.size} routes\n`);
  });

  // ——— the walk covers everything ———

  it('walks every registered route: the API ones are the OpenAPI document, and each that takes a body has a valid one', async () => {
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(
      apiRoutes()
        .filter((r) => r.path.startsWith('/v1'))
        .map((r) => r.route)
        .sort(),
    ).toEqual(documented.sort());

    for (const [path, methods] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const route = `${method.toUpperCase()} ${path}`;
        const seed = seedFor(route);
        expect({ route, hasBody: operation.requestBody !== undefined }).toEqual({ route, hasBody: seed !== undefined });
        if (!seed) continue;
        // the seed is a body of the documented schema: its required fields, and only documented ones
        const ref = JSON.stringify(operation.requestBody).match(/#\/components\/schemas\/(\w+)/)?.[1] as string;
        const schema = openapi.components.schemas[ref];
        const fields = Object.keys(seed() as object);
        expect({ route, missing: (schema.required ?? []).filter((f) => !fields.includes(f)) }).toEqual({ route, missing: [] });
        expect({ route, unknown: fields.filter((f) => !(f in (schema.properties ?? {}))) }).toEqual({ route, unknown: [] });
      }
    }

    // and the service takes each seed: mutations start from a body that works
    for (const route of routes.filter((r) => seedFor(r.route))) {
      const values = ownValues(route);
      if (route.route.endsWith('/decision')) values.id = mine.spareSessionId;
      const answer = await exercise(route, wellFormed(route, values));
      expect({ route: route.route, status: answer.status, body: answer.json }).toMatchObject({
        route: route.route,
        status: expect.any(Number),
      });
      if (answer.status >= 300)
        expect({ route: route.route, status: answer.status, body: answer.json }).toEqual({ route: route.route, status: 'below 300' });
    }
  });

  // ——— bodies ———

  it('answers mutated bodies on every route that takes one below 500, refusals as problem details, storing nothing when it refuses', async () => {
    for (const route of deletesLast(apiRoutes()).filter((r) => seedFor(r.route))) {
      const seed = seedFor(route.route) as () => unknown;
      await fc.assert(
        fc.asyncProperty(fc.array(mutationArb(allIds()), { minLength: 1, maxLength: 3 }), async (mutations) => {
          const body = applyMutations(seed(), mutations);
          const req = wellFormed(route);
          req.body = body === undefined ? undefined : Buffer.from(toJsonText(body));
          await exercise(route, req);
        }),
        runs(RUNS.bodies),
      );
    }
  });

  it('answers bodies that are not a JSON object, not JSON or not UTF-8 below 500, as problem details, storing nothing', async () => {
    for (const route of apiRoutes().filter((r) => seedFor(r.route))) {
      const seed = (seedFor(route.route) as () => unknown)();
      await fc.assert(
        fc.asyncProperty(rawBodyArb(seed), async (raw) => {
          await exercise(route, { ...wellFormed(route), body: raw });
        }),
        runs(RUNS.rawBodies),
      );
    }
  });

  // ——— query strings ———

  it('answers random, repeated and oddly encoded query parameters on every route below 500, as problem details', async () => {
    for (const route of deletesLast(apiRoutes())) {
      const [template] = Object.entries(openapi.paths).filter(([path]) => path === route.path);
      const names = (template?.[1][route.method.toLowerCase()]?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      await fc.assert(
        fc.asyncProperty(queryArb(names, allIds()), async (query) => {
          const req = wellFormed(route);
          await exercise(route, { ...req, path: `${req.path}${query}` });
        }),
        runs(RUNS.queries),
      );
    }
  });

  it('answers a request line longer than the server takes with 431 problem details', async () => {
    const route = apiRoutes().find((r) => r.route === 'GET /v1/stores/{store_id}/products') as RegisteredRoute;
    const req = wellFormed(route);
    const answer = await exercise(route, { ...req, path: `${req.path}?external_id=${'a'.repeat(20_000)}` });
    expect(answer.status).toBe(431);
  });

  // ——— path ids ———

  it("answers odd, foreign and malformed path ids on every route below 500, as problem details, without touching the other tenant's rows", async () => {
    for (const route of deletesLast(routes.filter((r) => r.params.length && !isConsole(r)))) {
      const segments = route.params.map((name) =>
        segmentArb(placeholder(route.path, name, mine), [placeholder(route.path, name, theirs), ...allIds()]).map(
          (value) => [name, value] as const,
        ),
      );
      await fc.assert(
        fc.asyncProperty(fc.tuple(...segments), async (pairs) => {
          const values = Object.fromEntries(pairs);
          // filled in as generated (already encoded or deliberately raw), not encoded again
          const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name]);
          const answer = await exercise(route, { ...wellFormed(route), path });
          // another tenant's resource is never found, whatever its spelling
          const foreign = pairs.some(([name, value]) => value.toLowerCase() === placeholder(route.path, name, theirs));
          if (foreign && answer.status < 400 && !route.path.startsWith('/problems')) {
            throw new Error(`${route.route} with ${JSON.stringify(values)} answered ${answer.status} for another tenant's id`);
          }
        }),
        runs(RUNS.paths),
      );
    }
  });

  // ——— numbers in the URL ———

  it('answers numeric extremes in every query parameter and every path parameter of every route below 500, refusals as problem details', async () => {
    const params = queryParameters(t.app);
    expect([...params.keys()].sort()).toEqual(routes.map((r) => r.route).sort());
    // the numeric parameters the validation rules declare are the ones the API documents as numbers, and back
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, op]) =>
        (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ route: `${method.toUpperCase()} ${path}`, ...p })),
      ),
    );
    const asText = (list: { route: string; name: string }[]) => list.map((p) => `${p.route} ?${p.name}`).sort();
    const declared = [...params]
      .filter(([route]) => route.includes(' /v1/'))
      .flatMap(([route, list]) => list.map((p) => ({ route, ...p })));
    expect(asText(declared)).toEqual(asText(documented));
    const numeric = asText(declared.filter((p) => p.numeric));
    expect(numeric).toEqual(asText(documented.filter((p) => p.schema?.type === 'integer' || p.schema?.type === 'number')));
    expect(numeric).toContain('GET /v1/stores/{store_id}/questionnaires/{id} ?version');

    const console = await signUp(t, mine.tenant);
    /** The route well formed, signed in for the console (with the CSRF token on a form), `path` as given. */
    const request = (route: RegisteredRoute, path: string): RawRequest => {
      if (!isConsole(route)) return { ...wellFormed(route), path };
      const cookie = `sf_console=${console.cookie('sf_console')}; sf_csrf=${console.cookie('sf_csrf')}`;
      if (route.method !== 'POST') return { method: route.method, path, headers: { Cookie: cookie } };
      const form = Buffer.from(`_csrf=${encodeBytes(console.csrf as string)}`);
      return { method: 'POST', path, headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form };
    };
    // None of these requests is valid, whatever it answers: nothing stored may change (checked once per route).
    batched = true;
    try {
      for (const route of deletesLast(routes)) {
        const own = ownValues(route);
        const before = await fingerprint();
        for (const value of NUMERIC_EXTREMES) {
          for (const { name } of params.get(route.route) ?? [])
            await exercise(route, request(route, `${fillPath(route.path, own)}?${name}=${value}`));
          // one placeholder at a time, the others right, so that each is what the answer depends on
          for (const name of route.params) {
            const path = route.path.replace(/\{([a-z_]+)\}/g, (_, other: string) =>
              other === name ? value : encodeURIComponent(own[other]),
            );
            await exercise(route, request(route, path));
          }
        }
        expect({ route: route.route, changed: changedTables(before, await fingerprint()) }).toEqual({ route: route.route, changed: [] });
      }
    } finally {
      batched = false;
    }
  });

  // ——— headers ———

  it('answers odd Content-Type, Content-Encoding, Authorization and other headers on every route below 500, as problem details', async () => {
    for (const route of deletesLast(apiRoutes())) {
      const secret = credentialFor(route);
      const arb = fc.record({
        contentType: fc.constantFrom(...CONTENT_TYPES),
        contentEncoding: fc.constantFrom(...CONTENT_ENCODINGS),
        authorization: authorizationArb(secret, secret === OPERATOR_KEY ? mine.tenant.admin.secret : OPERATOR_KEY),
        odd: ODD_HEADERS,
        withBody: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(arb, async ({ contentType, contentEncoding, authorization, odd, withBody }) => {
          const req = wellFormed(route);
          const headers: Record<string, string | string[]> = { ...odd };
          if (contentType !== undefined) headers['Content-Type'] = contentType;
          if (contentEncoding !== undefined) headers['Content-Encoding'] = contentEncoding;
          if (authorization !== undefined) headers.Authorization = authorization;
          const body = req.body ?? (withBody ? Buffer.from('{}') : undefined);
          await exercise(route, { ...req, headers, body });
        }),
        runs(RUNS.headers),
      );
    }
  });

  // ——— the console ———

  it('answers random forms on every console POST route, signed in or not, below 500, refusals as HTML pages, storing nothing', async () => {
    const signedIn = await signUp(t, mine.tenant);
    const anonymous = new ConsoleClient(t);
    await anonymous.page('/console/login');
    known = null;
    const posts = routes.filter((r) => isConsole(r) && (r.method === 'POST' || r.method === 'ALL'));
    expect(posts.length).toBeGreaterThanOrEqual(7);

    const field = fc.oneof(
      fc.constantFrom(
        '_csrf',
        'name',
        'scopes',
        'scopes[]',
        'email',
        'password',
        'admin_key',
        'shop',
        'store_id',
        'key_id',
        '__proto__',
        'constructor',
        'access_token',
      ),
      fc.string({ maxLength: 10 }).map(encodeBytes),
      fc.constantFrom(...ODD_ENCODINGS),
    );
    const value = fc.oneof(
      edgeString.filter((s) => s.length < 20_000).map(encodeBytes),
      fc.constantFrom(...ODD_ENCODINGS),
      fc.constantFrom(
        'events',
        'admin',
        'analytics',
        'fit',
        'catalog',
        mine.tenant.admin.secret,
        mine.spareKey.id,
        theirs.spareKey.id,
        'shop.example',
        'a@b.c',
      ),
    );
    const form = fc.array(fc.tuple(field, value), { maxLength: 8 });
    const arb = fc.record({
      route: fc.constantFrom(...posts),
      signedIn: fc.boolean(),
      csrf: fc.constantFrom('valid', 'none', 'garbage', 'other'),
      form,
      contentType: fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=latin1',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        undefined,
      ),
      segment: fc.oneof(
        fc.constantFrom('', 'x', 'stores', 'login/extra', '..', '%2e%2e', '%ZZ'),
        fc.string({ maxLength: 10 }).map(encodeBytes),
      ),
    });
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const client = c.signedIn ? signedIn : anonymous;
        // a valid sign-out would end the session the other runs use
        if (c.signedIn && c.csrf === 'valid' && c.route.path === '/console/logout') return;
        const path =
          c.route.method === 'ALL'
            ? `/console/${c.segment}`
            : c.route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
                name === 'key_id'
                  ? theirs.spareKey.id
                  : name === 'store_id'
                    ? c.csrf === 'other'
                      ? theirs.tenant.storeId
                      : mine.tenant.storeId
                    : 'x',
              );
        const token = { valid: client.csrf, none: undefined, garbage: 'garbage', other: (c.signedIn ? anonymous : signedIn).csrf }[c.csrf];
        const pairs = token === undefined ? c.form : [...c.form, ['_csrf', encodeBytes(token)] as [string, string]];
        const body = pairs.map(([k, v]) => `${k}=${v}`).join('&');
        const cookie = [
          ['sf_console', client.cookie('sf_console')],
          ['sf_csrf', client.cookie('sf_csrf')],
        ]
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${v}`)
          .join('; ');
        const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
        if (c.contentType !== undefined) headers['Content-Type'] = c.contentType;
        await exercise(c.route, { method: 'POST', path, headers, body: Buffer.from(body) });
      }),
      runs(RUNS.consoleForms * posts.length),
    );
  });

  it('answers console pages with odd query strings and path ids below 500, refusals as HTML pages', async () => {
    const client = await signUp(t, mine.tenant);
    known = null;
    const pages = routes.filter((r) => isConsole(r) && r.method === 'GET');
    for (const route of pages) {
      const segments = route.params.map((name) =>
        segmentArb(placeholder(route.path, name, mine), [placeholder(route.path, name, theirs)]).map((v) => [name, v] as const),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...segments),
          queryArb(['after', 'keys_after', 'from', 'to', 'code', 'state', 'shop'], allIds()),
          async (pairs, query) => {
            const values = Object.fromEntries(pairs);
            const path = `${route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name])}${query}`;
            const cookie = `sf_console=${client.cookie('sf_console')}`;
            await exercise(route, { method: 'GET', path, headers: { Cookie: cookie } });
          },
        ),
        runs(RUNS.consolePages),
      );
    }
  });

  it('tried every registered route', () => {
    expect(routes.map((r) => r.route).filter((route) => !tried.has(route))).toEqual([]);
  });
});
