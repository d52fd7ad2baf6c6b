import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, OPERATOR_KEY, startApp, type TestApp } from '../../support/app.js';
import { ConsoleClient, logIn, signUp } from '../../support/console-client.js';
import { createTenant } from '../../support/fixtures.js';
import { callback, startConnect } from '../../support/platform-console.js';
import { notification, standinConfig, type StandinPlatform, startPlatform } from '../../support/platform-standin.js';
import { fillPath, type RegisteredRoute, registeredRoutes } from '../../support/route-table.js';
import {
  ANSWERS,
  batchCell,
  BODY_CHART,
  byRule,
  cell,
  type Column,
  CONSOLE_RECIPES,
  experimentOn,
  type Fresh,
  type Merchant,
  purchase,
  QUESTIONS,
  type Recipe,
  RECIPES,
  resourceOf,
  row,
  type Scope,
  type StoreTag,
  unique,
  UNIQUE,
  UUID,
  verdict,
  type World,
} from './tenant-matrix-recipes.js';

/**
 * Tenant isolation, route by route: every /v1 route (read from the app's own route table) is called with every kind
 * of credential, on real resources of store A1 of merchant A (merchant A also has store A2; merchant B has store B1,
 * with the same kinds of resources). Each cell is checked twice:
 *
 * - against the route's declared access rule (who must get 401, 403 or 404, and who must get past access control);
 * - against the reviewed matrix in tenant-matrix.txt (exact status and code). Regenerate it with
 *   UPDATE_TENANT_MATRIX=1 and review the diff as a permission change.
 *
 * The columns' types, the request recipes of every route, the cell notation and the rules are in
 * tenant-matrix-recipes.ts.
 *
 * No response body, whoever calls, contains an id or a name of a merchant the caller does not belong to; a denied
 * DELETE leaves its resource in place. The console's signed-in pages get the same treatment with cookie sessions.
 */

const MATRIX_FILE = fileURLToPath(new URL('./tenant-matrix.txt', import.meta.url));

// ————————————————————————————————————— the suite —————————————————————————————————————

describe('tenant isolation matrix', () => {
  let t: TestApp;
  let platform: StandinPlatform;
  const worlds = {} as Record<StoreTag, World>;
  const columns: Column[] = [];
  /** Ids and names of each merchant's data: none may appear in an answer to anyone else. */
  const markers: Record<Merchant, Set<string>> = { A: new Set(), B: new Set() };
  const admins = {} as Record<Merchant, string>;
  const merchantOfStore: Record<StoreTag, Merchant> = { A1: 'A', A2: 'A', B1: 'B' };
  const v1Rows: string[] = [];
  const consoleRows: string[] = [];
  /** Per test: cells that disagree with the route's rule, answers that leak, resources a denied call touched. */
  let ruleMismatches: string[] = [];
  let leaks: string[] = [];
  let damaged: string[] = [];
  beforeEach(() => {
    ruleMismatches = [];
    leaks = [];
    damaged = [];
  });
  let v1Routes: RegisteredRoute[] = [];
  let consoleRoutes: RegisteredRoute[] = [];

  const http = () => t.http();

  /** Records every id and every generated name (see `unique`) an answer of `merchant`'s own call shows. */
  function mark(merchant: Merchant, body: unknown): void {
    const visit = (value: unknown, key?: string): void => {
      if (Array.isArray(value)) value.forEach((item) => visit(item));
      else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
      else if (typeof value === 'string' && key !== undefined && (UUID.test(value) || UNIQUE.test(value))) {
        // Never re-attribute what is already known as the other merchant's (an answer that leaked it is reported).
        if (!markers[merchant === 'A' ? 'B' : 'A'].has(value)) markers[merchant].add(value);
      }
    };
    visit(body);
  }

  async function create(merchant: Merchant, secret: string, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await http().post(path).set(bearer(secret)).send(body);
    if (response.status !== 201 && response.status !== 200) {
      throw new Error(`fixture POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    mark(merchant, response.body);
    return response.body as Record<string, unknown>;
  }

  /** A fresh resource of `kind` in the world's store, for a call that consumes it. */
  async function fresh(kind: Fresh, w: World): Promise<string> {
    const base = `/v1/stores/${w.storeId}`;
    const make = (path: string, body: Record<string, unknown>) => create(w.merchant, w.admin, path, body).then((b) => String(b.id));
    switch (kind) {
      case 'key':
        return make('/v1/api-keys', { name: unique('key'), scopes: ['catalog'], store_id: w.storeId });
      case 'account': {
        const account = await signUp(t, w.admin, { email: `${unique('account')}@example.test` });
        const list = await http().get('/v1/console-accounts?limit=100').set(bearer(w.admin));
        mark(w.merchant, list.body);
        return String((list.body.data as { id: string; email: string }[]).find((a) => a.email === account.email)?.id);
      }
      case 'type':
        return make(`${base}/product-types`, { name: unique('type'), category: 'tops', zone_weights: { chest: 1 } });
      case 'chart':
        return make(`${base}/size-charts`, { name: unique('chart'), unit: 'cm', measurement_type: 'body', sizes: BODY_CHART });
      case 'product':
        return make(`${base}/products`, { title: unique('product'), product_type_id: w.typeId, size_chart_id: w.chartId });
      case 'variant':
        return make(`${base}/products/${w.productId}/variants`, { size_label: 'S', sku: unique('sku') });
      case 'questionnaire':
        return make(`${base}/questionnaires`, { name: unique('quiz'), questions: QUESTIONS });
      case 'started':
        return make(`${base}/sessions`, { product_id: w.productId, questionnaire_id: w.questionnaireId });
      case 'draft':
      case 'running': {
        const product = await make(`${base}/products`, { title: unique('product'), product_type_id: w.typeId, size_chart_id: w.chartId });
        const id = await make(`${base}/experiments`, experimentOn([product], unique('experiment')));
        if (kind === 'running') await create(w.merchant, w.admin, `${base}/experiments/${id}/start`, {});
        return id;
      }
      case 'recommended': {
        const id = await make(`${base}/sessions`, { product_id: w.productId, questionnaire_id: w.questionnaireId });
        await create(w.merchant, w.admin, `${base}/sessions/${id}/answers`, { answers: ANSWERS });
        return id;
      }
    }
  }

  async function buildWorld(tag: StoreTag, storeId: string): Promise<World> {
    const merchant = merchantOfStore[tag];
    const admin = admins[merchant];
    const base = `/v1/stores/${storeId}`;
    const c = (path: string, body: Record<string, unknown>) => create(merchant, admin, `${base}${path}`, body);
    const typeName = unique(`type-${tag}`);
    const chartName = unique(`chart-${tag}`);
    const questionnaireName = unique(`quiz-${tag}`);
    const productExternalId = unique(`gid-${tag}`);
    const type = await c('/product-types', { name: typeName, category: 'tops', zone_weights: { chest: 1, waist: 0.5 } });
    const chart = await c('/size-charts', { name: chartName, unit: 'cm', measurement_type: 'body', sizes: BODY_CHART });
    const product = await c('/products', {
      title: unique(`tee-${tag}`),
      external_id: productExternalId,
      product_type_id: type.id,
      size_chart_id: chart.id,
    });
    const variant = await c(`/products/${product.id}/variants`, {
      size_label: 'M',
      sku: unique(`sku-${tag}`),
      external_id: unique(`vid-${tag}`),
    });
    const questionnaire = await c('/questionnaires', { name: questionnaireName, questions: QUESTIONS });
    const session = await c('/sessions', { product_id: product.id, questionnaire_id: questionnaire.id });
    await c(`/sessions/${session.id}/answers`, { answers: ANSWERS });
    const w: World = {
      tag,
      merchant,
      storeId,
      admin,
      typeId: String(type.id),
      typeName,
      chartId: String(chart.id),
      chartName,
      productId: String(product.id),
      productExternalId,
      variantId: String(variant.id),
      questionnaireId: String(questionnaire.id),
      questionnaireName,
      sessionId: String(session.id),
      eventId: '',
      experimentId: '',
    };
    const event = await c('/events', purchase(w, unique(`order-${tag}`)));
    w.eventId = String(event.id);
    w.experimentId = String((await c('/experiments', experimentOn([w.productId], unique(`experiment-${tag}`)))).id);
    return w;
  }

  async function key(merchant: Merchant, body: { scopes: Scope[]; store_id?: string }): Promise<{ id: string; secret: string }> {
    const created = await create(merchant, admins[merchant], '/v1/api-keys', { name: unique('matrix-key'), ...body });
    return { id: String(created.id), secret: String(created.secret) };
  }

  /** Answers to a caller must not show anything of a merchant it does not belong to. */
  function checkLeaks(where: string, viewer: Merchant | null, response: Response): void {
    const text = `${response.text ?? ''}\n${String(response.headers.location ?? '')}`;
    for (const merchant of ['A', 'B'] as const) {
      if (merchant === viewer) continue;
      const shown = [...markers[merchant]].filter((marker) => text.includes(marker));
      if (shown.length) leaks.push(`${where}: shows ${merchant}'s ${shown.join(', ')}`);
    }
  }

  beforeAll(async () => {
    platform = await startPlatform();
    t = await startApp({
      rateLimitPerMinute: 0,
      rateLimitPerAddressPerMinute: 0,
      publicUrl: 'http://127.0.0.1:9',
      platform: standinConfig(platform, { scopes: ['read_products'], timeoutMs: 2000, tokenKey: randomBytes(32) }),
    });
    const routes = registeredRoutes(t.app);
    v1Routes = routes.filter((r) => r.path.startsWith('/v1/'));
    consoleRoutes = routes.filter((r) => r.rule?.kind === 'console' && r.rule.signedIn);

    for (const merchant of ['A', 'B'] as const) {
      const created = await http()
        .post('/v1/merchants')
        .set(bearer(OPERATOR_KEY))
        .send({ name: unique(`merchant-${merchant}`) });
      expect(created.status).toBe(201);
      mark(merchant, created.body);
      admins[merchant] = created.body.api_key.secret as string;
    }
    const store = async (tag: StoreTag) => {
      const merchant = merchantOfStore[tag];
      return String((await create(merchant, admins[merchant], '/v1/stores', { name: unique(`store-${tag}`) })).id);
    };
    const storeIds = { A1: await store('A1'), A2: await store('A2'), B1: await store('B1') };
    for (const tag of ['A1', 'A2', 'B1'] as const) worlds[tag] = await buildWorld(tag, storeIds[tag]);

    const A1 = storeIds.A1;
    const revoked = await key('A', { scopes: ['admin'] });
    const expired = await key('A', { scopes: ['admin'] });
    // Both worked before they died, so their 401s are about revocation and expiry.
    for (const k of [revoked, expired]) expect((await http().get('/v1/merchant').set(bearer(k.secret))).status).toBe(200);
    expect((await http().delete(`/v1/api-keys/${revoked.id}`).set(bearer(admins.A))).status).toBe(200);
    await t.app.get(DataSource).query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);

    const bound = async (scope: Scope, tag: StoreTag) =>
      (await key(merchantOfStore[tag], { scopes: [scope], store_id: storeIds[tag] })).secret;
    const base = { pathIds: 'A1', refs: 'A1' } as const;
    columns.push(
      { name: 'no key', merchant: null, secret: undefined, ...base },
      { name: 'operator', merchant: null, secret: OPERATOR_KEY, operator: true, ...base },
      { name: 'admin', merchant: 'A', secret: admins.A, scopes: ['admin'], store: null, ...base },
      { name: 'admin@A1', merchant: 'A', secret: await bound('admin', 'A1'), scopes: ['admin'], store: 'A1', ...base },
      { name: 'catalog@A1', merchant: 'A', secret: await bound('catalog', 'A1'), scopes: ['catalog'], store: 'A1', ...base },
      { name: 'fit@A1', merchant: 'A', secret: await bound('fit', 'A1'), scopes: ['fit'], store: 'A1', ...base },
      { name: 'events@A1', merchant: 'A', secret: await bound('events', 'A1'), scopes: ['events'], store: 'A1', ...base },
      { name: 'analytics@A1', merchant: 'A', secret: await bound('analytics', 'A1'), scopes: ['analytics'], store: 'A1', ...base },
      { name: 'B admin', merchant: 'B', secret: admins.B, scopes: ['admin'], store: null, ...base },
      { name: 'admin@A2', merchant: 'A', secret: await bound('admin', 'A2'), scopes: ['admin'], store: 'A2', ...base },
      { name: 'revoked', merchant: 'A', secret: revoked.secret, dead: true, ...base },
      { name: 'expired', merchant: 'A', secret: expired.secret, dead: true, ...base },
      { name: 'B1 ids', merchant: 'A', secret: admins.A, scopes: ['admin'], store: null, pathIds: 'B1', refs: 'A1' },
      { name: 'B1 refs', merchant: 'A', secret: admins.A, scopes: ['admin'], store: null, pathIds: 'A1', refs: 'B1' },
      { name: 'A2 ids', merchant: 'A', secret: admins.A, scopes: ['admin'], store: null, pathIds: 'A2', refs: 'A1' },
      { name: 'A2 refs', merchant: 'A', secret: admins.A, scopes: ['admin'], store: null, pathIds: 'A1', refs: 'A2' },
    );
    expect(A1).toBe(worlds.A1.storeId);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await platform?.close();
  });

  /** The id a `{param}` of the path takes in world `w`, or a fresh one for a consuming call. */
  async function pathValues(route: RegisteredRoute, recipe: Recipe, w: World): Promise<Record<string, string>> {
    const values: Record<string, string> = { store_id: worlds.A1.storeId };
    for (const param of route.params) {
      if (param === 'store_id') continue;
      // not a resource: the integrator's id for a shopper, which the store never looks up
      if (param === 'shopper_ref') {
        values[param] = 'cust-matrix';
        continue;
      }
      const resource = resourceOf(route.path, param);
      const consumed = recipe.fresh !== undefined && (param === 'id' || param === 'key_id' || param === 'account_id');
      if (consumed) {
        values[param] = await fresh(recipe.fresh as Fresh, w);
        continue;
      }
      const id = {
        product: w.productId,
        'product-types': w.typeId,
        'size-charts': w.chartId,
        products: w.productId,
        variants: w.variantId,
        questionnaires: w.questionnaireId,
        sessions: w.sessionId,
        experiments: w.experimentId,
      }[resource];
      if (id === undefined) throw new Error(`${route.route}: no fixture for {${param}}`);
      values[param] = id;
    }
    return values;
  }

  /** After a denied DELETE, the resource is still there, untouched, for its owner. */
  async function expectIntact(route: RegisteredRoute, values: Record<string, string>, owner: World): Promise<void> {
    if (route.path === '/v1/console-accounts/{account_id}') {
      const list = await http().get('/v1/console-accounts?limit=100').set(bearer(owner.admin));
      if (!(list.body.data as { id: string }[]).some((a) => a.id === values.account_id))
        damaged.push(`${route.route} ${values.account_id}`);
      return;
    }
    if (route.path === '/v1/api-keys/{key_id}') {
      const list = await http().get(`/v1/api-keys?store_id=${owner.storeId}&limit=100`).set(bearer(owner.admin));
      const found = (list.body.data as { id: string; revoked_at: string | null }[]).find((k) => k.id === values.key_id);
      if (!found || found.revoked_at !== null) damaged.push(`${route.route} ${values.key_id}`);
      return;
    }
    // a shopper's erasure has no resource to read back: test/api/fit/returning-shoppers.e2e-spec.ts follows its effect
    if (route.path === '/v1/stores/{store_id}/shoppers/{shopper_ref}') return;
    const path = fillPath(route.path, { ...values, store_id: owner.storeId });
    const response = await http().get(path).set(bearer(owner.admin));
    if (response.status !== 200 || response.body.archived_at) damaged.push(`${route.route} ${path}: ${response.status}`);
  }

  /**
   * Another tenant's resource is "not found" exactly as a resource that does not exist is: the same call with every
   * path id replaced by a random one gets the same answer (but for its request id).
   */
  async function expectSameAsNothing(
    where: string,
    route: RegisteredRoute,
    recipe: Recipe,
    values: Record<string, string>,
    column: Column,
    refWorld: World,
    n: string,
    response: Response,
  ): Promise<void> {
    const nothing: Record<string, string> = {};
    for (const [name, value] of Object.entries(values))
      nothing[name] = name === 'store_id' && column.merchant === 'A' ? value : randomUUID();
    // The request the random ids would make (a real store of A stays when A's admin calls: only the nested ids change).
    const path = fillPath(route.path, nothing) + (recipe.query ? `?${recipe.query(refWorld)}` : '');
    let test = http()[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path);
    if (column.secret !== undefined) test = test.set(bearer(column.secret));
    const other = recipe.body ? await test.send(recipe.body(refWorld, `${n}-x`)) : await test;
    const strip = (r: Response) => ({ status: r.status, body: { ...(r.body as object), request_id: undefined, instance: undefined } });
    if (JSON.stringify(strip(other)) !== JSON.stringify(strip(response))) {
      leaks.push(
        `${where}: its 404 differs from the one for ids that exist nowhere: ${JSON.stringify(strip(response))} vs ${JSON.stringify(strip(other))}`,
      );
    }
  }

  it('has a request recipe for every /v1 route and every signed-in console page', () => {
    expect(v1Routes.length).toBeGreaterThan(40);
    expect(v1Routes.map((r) => r.route).filter((r) => !(r in RECIPES))).toEqual([]);
    expect(Object.keys(RECIPES).filter((r) => !v1Routes.some((route) => route.route === r))).toEqual([]);
    expect(consoleRoutes.map((r) => r.route).filter((r) => !(r in CONSOLE_RECIPES))).toEqual([]);
  });

  it('calls every /v1 route with every credential: each cell as the route rule says, no answer shows another tenant', async () => {
    let counter = 0;
    for (const route of v1Routes) {
      const recipe = RECIPES[route.route];
      if (!recipe) continue;
      const cells = await Promise.all(
        columns.map(async (column) => {
          const expected = byRule(route, recipe, column);
          if (expected[0] === '-') return '-';
          const pathWorld = worlds[column.pathIds];
          const refWorld = worlds[column.refs];
          const values = await pathValues(route, recipe, pathWorld);
          const n = `${++counter}-${randomBytes(5).toString('hex')}`;
          const path = fillPath(route.path, values) + (recipe.query ? `?${recipe.query(refWorld)}` : '');
          let test = http()[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path);
          if (column.secret !== undefined) test = test.set(bearer(column.secret));
          const response = recipe.body ? await test.send(recipe.body(refWorld, n)) : await test;
          const got = route.path.endsWith('/batch') ? batchCell(response) : cell(response);
          const where = `${route.route} [${column.name}]`;
          if (!expected.includes(verdict(got))) {
            ruleMismatches.push(
              `${where}: ${got} (${response.status} ${JSON.stringify(response.body).slice(0, 200)}), rule says ${expected.join(' or ')}`,
            );
          }
          if (!got.startsWith('ok')) {
            expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
          } else if (column.merchant !== null) {
            mark(column.merchant, response.body);
          }
          checkLeaks(where, column.merchant, response);
          if (got === '404') await expectSameAsNothing(where, route, recipe, values, column, refWorld, n, response);
          if (route.method === 'DELETE' && !got.startsWith('ok')) await expectIntact(route, values, pathWorld);
          return got;
        }),
      );
      v1Rows.push(row(route.route, cells));
    }
    expect(ruleMismatches).toEqual([]);
    expect(leaks).toEqual([]);
    expect(damaged).toEqual([]);
  }, 120_000);

  it('serves the signed-in console pages of a store only to sessions of its merchant', async () => {
    const sessions: Record<'A' | 'B', ConsoleClient & { email: string }> = {
      A: await signUp(t, admins.A),
      B: await signUp(t, admins.B),
    };
    markers.A.add(sessions.A.email);
    markers.B.add(sessions.B.email);
    const anonymous = new ConsoleClient(t);
    await anonymous.page('/console/login');
    const consoleColumns: { name: string; merchant: Merchant | null }[] = [
      { name: 'no session', merchant: null },
      { name: 'session A', merchant: 'A' },
      { name: 'session B', merchant: 'B' },
    ];
    for (const route of consoleRoutes) {
      const recipe = CONSOLE_RECIPES[route.route];
      const cells = await Promise.all(
        consoleColumns.map(async ({ name, merchant }) => {
          let client = merchant === null ? anonymous : sessions[merchant];
          if (recipe.fresh === 'session' && merchant !== null) client = await logIn(t, sessions[merchant]);
          const values: Record<string, string> = { store_id: worlds.A1.storeId };
          if (route.params.includes('key_id')) values.key_id = await fresh('key', worlds.A1);
          if (route.params.includes('account_id')) values.account_id = await fresh('account', worlds.A1);
          if (route.params.includes('product_id')) values.product_id = worlds.A1.productId;
          if (route.params.includes('type_id'))
            values.type_id = recipe.fresh === 'type' ? await fresh('type', worlds.A1) : worlds.A1.typeId;
          if (route.params.includes('chart_id'))
            values.chart_id = recipe.fresh === 'chart' ? await fresh('chart', worlds.A1) : worlds.A1.chartId;
          if (route.params.includes('job')) values.job = '01936f6e-0000-7000-8000-00000000a0b1';
          if (route.params.includes('experiment_id'))
            values.experiment_id =
              recipe.fresh === 'draft' || recipe.fresh === 'running' ? await fresh(recipe.fresh, worlds.A1) : worlds.A1.experimentId;
          const path = fillPath(route.path, values);
          const form = Object.fromEntries(
            Object.entries(recipe.form ?? {}).map(([name, value]) => [
              name,
              typeof value === 'string' ? value.replace('{type_id}', worlds.A1.typeId).replace('{chart_id}', worlds.A1.chartId) : value,
            ]),
          );
          if (recipe.fresh === 'product') form.ids = await fresh('product', worlds.A1);
          await client.page(merchant === null ? '/console/login' : '/console'); // a CSRF token of this browser
          const response = route.method === 'GET' ? await client.get(path) : await client.post(path, form);
          const got = cell(response);
          const where = `${route.route} [${name}]`;
          // A store or an account of merchant A is not found for B's session.
          const storePage = route.params.includes('store_id') || route.params.includes('account_id');
          // Signing out ends on the sign-in page too; what matters is that it ended this session and no other.
          const logout = route.route === 'POST /console/logout';
          const expected = merchant === null || logout ? 'login' : merchant === 'B' && storePage ? '404' : 'pass';
          if (verdict(got) !== expected && !(route.route === 'GET /console/platform/callback' && merchant !== null)) {
            ruleMismatches.push(`${where}: ${got}, rule says ${expected}`);
          }
          if (logout && merchant !== null) {
            if (cell(await client.get('/console')) !== 'login') ruleMismatches.push(`${where}: the session outlived its logout`);
            if (cell(await sessions[merchant].get('/console')) !== 'ok 200') ruleMismatches.push(`${where}: logout ended another session`);
          }
          checkLeaks(where, merchant, response);
          return got;
        }),
      );
      consoleRows.push(row(route.route, cells, 20));
    }
    consoleHeader = row(
      '',
      consoleColumns.map((c) => c.name),
      20,
    );
    expect(ruleMismatches).toEqual([]);
    expect(leaks).toEqual([]);
  }, 60_000);

  let consoleHeader = '';

  it('matches the reviewed matrix', () => {
    const text = [
      '# Tenant isolation matrix: each /v1 route called with each credential on the resources of store A1 of merchant A',
      '# (A also has store A2; merchant B has store B1). Regenerate with UPDATE_TENANT_MATRIX=1 and review the diff.',
      '#',
      "# Columns: no key; the operator bootstrap key; A's unrestricted admin key; keys bound to A1 with admin or a single",
      "# scope; B's unrestricted admin; an admin key bound to A2; a revoked and an expired unrestricted admin key of A;",
      '# then A\'s unrestricted admin with the nested path ids (all but store_id) of B1 or A2 ("ids") or with the ids in',
      '# the body or query taken from B1 or A2 ("refs").',
      '# Cells: ok <status> past access control; 401; 403:scope insufficient_scope; 403:store store_forbidden;',
      '# 403:self cannot_revoke_self; 404 not_found; 400:ref a 400 whose every field error is not_found (unknown_store for',
      "# a key's store_id); ok 200/<cell> a batch and its one result; login a 303 to the console sign-in; - not",
      '# applicable (nothing of B1/A2 to put there); <status>:<code> anything else. Every 404 is also checked to be the',
      '# answer ids that exist nowhere get.',
      '',
      row(
        '',
        columns.map((c) => c.name),
      ),
      ...v1Rows,
      '',
      '# Console pages (cookie sessions) on store A1: no session, a session of merchant A, one of merchant B.',
      consoleHeader,
      ...consoleRows,
      '',
    ].join('\n');
    if (process.env.UPDATE_TENANT_MATRIX === '1') writeFileSync(MATRIX_FILE, text);
    expect(text).toEqual(readFileSync(MATRIX_FILE, 'utf8'));
  });
  it('keeps a platform notification for the stores connected to its shop and no other, and refuses one another app signed', async () => {
    // The one route of the platform's rule: the notification's signature is its credential, its shop its tenant.
    const platformRoutes = registeredRoutes(t.app).filter((r) => r.rule?.kind === 'platform');
    expect(platformRoutes.map((r) => r.route)).toEqual(['POST /platform/webhooks']);
    const shops: Record<'A' | 'B', { storeId: string; domain: string }> = {} as never;
    for (const merchant of ['A', 'B'] as const) {
      const tenant = await createTenant(t, `Platform ${merchant}`);
      const session = await signUp(t, tenant);
      const domain = `matrix-${merchant.toLowerCase()}-${randomBytes(4).toString('hex')}.myshopify.com`;
      const { location } = await startConnect(session, tenant.storeId, domain);
      expect((await callback(session, platform.authorize(location))).status).toBe(303);
      shops[merchant] = { storeId: tenant.storeId, domain };
    }
    const kept = async (storeId: string) =>
      (await t.app.get(DataSource).query(`SELECT delivery_id FROM platform_webhooks WHERE store_id = $1`, [storeId])) as Array<{
        delivery_id: string;
      }>;
    const deliver = (domain: string, id: string, secret?: string) => {
      const sent = notification(platform, domain, 'carts/update', { id }, { id, secret });
      return t.http().post('/platform/webhooks').set(sent.headers).send(sent.body);
    };
    expect((await deliver(shops.A.domain, 'for-a')).status).toBe(200);
    expect((await deliver(shops.B.domain, 'for-b')).status).toBe(200);
    expect((await deliver(shops.A.domain, 'forged', 'another-apps-secret')).status).toBe(401);
    expect((await kept(shops.A.storeId)).map((row) => row.delivery_id)).toEqual(['for-a']);
    expect((await kept(shops.B.storeId)).map((row) => row.delivery_id)).toEqual(['for-b']);
  });
});
