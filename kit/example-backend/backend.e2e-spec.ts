import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createSizeFitClient, secretOf, type SizeFitClient } from '../client/size-fit.js';
import { useService } from '../testing/service.js';
import { createBackend } from './app.js';
import { sign } from './signing.js';

const WEBHOOK_SECRET = randomBytes(32).toString('base64');
const SECRET_KEY = /sf[ko]_[0-9A-Za-z]{46}/;

describe('the example integrator backend (kit/example-backend) against the real service', () => {
  const service = useService();
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /**
   * Its own merchant, store, store-bound key and catalog (a tee whose platform ids are gid-2001…), and the backend;
   * `scopes` of the backend's key, the catalog, fit and events scopes unless given.
   */
  async function setUp(scopes: Array<'catalog' | 'fit' | 'events'> = ['catalog', 'fit', 'events']) {
    const client = (apiKey: string) => createSizeFitClient({ baseUrl: service.baseUrl, apiKey, fetch: service.fetch });
    const created = await client(service.operatorKey).POST('/v1/merchants', { body: { name: 'Backend shop' } });
    const admin = client(secretOf(created.api_key));
    const store = await admin.POST('/v1/stores', { body: { name: 'Backend store' } });
    const inStore = { path: { store_id: store.id } };
    const key = await admin.POST('/v1/api-keys', {
      body: { name: 'shop backend', store_id: store.id, scopes },
    });
    const type = await admin.POST('/v1/stores/{store_id}/product-types', {
      params: inStore,
      body: { name: 'T-shirt', category: 'tops', zone_weights: { chest: 1, waist: 0.5 } },
    });
    const chart = await admin.POST('/v1/stores/{store_id}/size-charts', {
      params: inStore,
      body: {
        name: 'Tops',
        unit: 'cm',
        measurement_type: 'body',
        sizes: ['S', 'M', 'L'].map((label, index) => ({
          label,
          measurements: { chest: { min: 86 + 8 * index, max: 94 + 8 * index }, waist: { min: 71 + 8 * index, max: 79 + 8 * index } },
        })),
      },
    });
    const product = await admin.POST('/v1/stores/{store_id}/products', {
      params: inStore,
      body: { title: 'Crew tee', external_id: 'gid-2001', product_type_id: type.id, size_chart_id: chart.id },
    });
    for (const size of ['S', 'M', 'L'])
      await admin.POST('/v1/stores/{store_id}/products/{product_id}/variants', {
        params: { path: { store_id: store.id, product_id: product.id } },
        body: { size_label: size, external_id: `gid-2001-${size}` },
      });

    const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const statusToken = randomBytes(24).toString('base64url');
    const cookieSecret = randomBytes(32).toString('base64');
    const backend = createBackend({
      sizeFit: { baseUrl: service.baseUrl, apiKey: secretOf(key), storeId: store.id, fetch: service.fetch },
      webhookSecret: WEBHOOK_SECRET,
      cookieSecret,
      secureCookies: false,
      statusToken,
      log: (message, fields) => logs.push({ message, fields }),
    });
    const server = await new Promise<Server>((resolve) => {
      const listening = backend.listen(0, '127.0.0.1', () => resolve(listening));
    });
    servers.push(server);
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the backend is not listening on a port');
    return { admin, storeId: store.id, productId: product.id, url: `http://127.0.0.1:${address.port}`, logs, statusToken, cookieSecret };
  }

  /**
   * A shopper's browser: keeps the cookies the backend sets; every answer is checked for a leaked key. With
   * `customer`, the platform knows her by that id (the example storefront's signed cookie, which plays the platform).
   */
  function browser(url: string, customer?: { id: string; cookieSecret: string }) {
    const jar = new Map<string, string>();
    if (customer) jar.set('sf_customer', sign(customer.cookieSecret, customer.id));
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const text = await response.text();
      expect(`${JSON.stringify([...response.headers])}${text}`).not.toMatch(SECRET_KEY);
      return { status: response.status, body: text === '' ? null : JSON.parse(text), setCookie: response.headers.getSetCookie() };
    };
    return { post, jar };
  }

  async function shopperDecides(url: string) {
    const shopper = browser(url);
    const started = await shopper.post('/fit/sessions', { product: 'gid-2001' });
    expect(started.status).toBe(201);
    const sessionId: string = started.body.session_id;
    const answered = await shopper.post(`/fit/sessions/${sessionId}/answers`, {
      answers: { height: { value: 178, unit: 'cm' }, weight: { value: 72, unit: 'kg' }, age: 34, sex: 'male' },
    });
    expect(answered.status).toBe(200);
    const decided = await shopper.post(`/fit/sessions/${sessionId}/decision`, { size_label: answered.body.recommendation.size_label });
    expect(decided.status).toBe(200);
    return { shopper, started, answered, decided, sessionId, size: String(answered.body.recommendation.size_label) };
  }

  async function deliver(url: string, topic: string, payload: unknown, signature?: string) {
    const body = JSON.stringify(payload);
    const response = await fetch(`${url}/webhooks/orders`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Shop-Topic': topic,
        'X-Shop-Hmac-Sha256': signature ?? createHmac('sha256', WEBHOOK_SECRET).update(body).digest('base64'),
      },
      body,
    });
    return { status: response.status, body: JSON.parse(await response.text()) };
  }

  const paidOrder = (orderId: string, size: string, cartProperty?: { name: string; value: string }, customer?: { id: string } | null) => ({
    id: orderId,
    processed_at: new Date().toISOString(),
    ...(customer === undefined ? {} : { customer }),
    line_items: [
      { id: '1', product_id: 'gid-2001', variant_id: `gid-2001-${size}`, quantity: 1, properties: cartProperty ? [cartProperty] : [] },
      { id: '2', product_id: 'gid-9999', variant_id: 'gid-9999-1', quantity: 2, properties: [] },
    ],
  });

  async function events(admin: SizeFitClient, storeId: string, orderId: string) {
    const found = [];
    for await (const event of admin.list('/v1/stores/{store_id}/events', {
      params: { path: { store_id: storeId }, query: { order_id: orderId } },
    }))
      found.push(event);
    return found;
  }

  async function eventsOfType(admin: SizeFitClient, storeId: string, type: 'add_to_cart' | 'checkout_started') {
    const found = [];
    for await (const event of admin.list('/v1/stores/{store_id}/events', { params: { path: { store_id: storeId }, query: { type } } }))
      found.push(event);
    return found;
  }

  async function variantIds(admin: SizeFitClient, storeId: string, productId: string) {
    const ids = new Map<string, string>();
    for await (const variant of admin.list('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: { path: { store_id: storeId, product_id: productId } },
    }))
      ids.set(variant.size_label, variant.id);
    return ids;
  }

  it('runs a shopper through start, answers and decision, with the key kept on the server', async () => {
    const { url } = await setUp();
    const { started, answered, decided, sessionId } = await shopperDecides(url);
    expect(started.body.questions.map((question: { key: string }) => question.key)).toEqual(expect.arrayContaining(['height', 'weight']));
    expect(started.setCookie[0]).toMatch(/^sf_fit=[^;]+; Max-Age=604800; Path=\/fit; HttpOnly; SameSite=Strict$/);
    expect(answered.body.recommendation).toMatchObject({ size_label: expect.any(String), confidence: expect.any(Number) });
    expect(decided.body).toMatchObject({
      session_id: sessionId,
      decision: { outcome: 'accepted' },
      cart_property: { name: '_size_fit_session' },
    });
  });

  it('serves the widget: a page view recorded, the sizes with the platform variants, the other sizes’ fit, the variant chosen', async () => {
    const { url, admin, storeId } = await setUp();
    const shopper = browser(url);
    expect(await shopper.post('/fit/views', { product: 'gid-2001' })).toMatchObject({ status: 200, body: { size_help: true } });
    expect((await shopper.post('/fit/views', { product: 'gid-unknown' })).status).toBe(404);
    const viewed = [];
    for await (const event of admin.list('/v1/stores/{store_id}/events', {
      params: { path: { store_id: storeId }, query: { type: 'fit_viewed' } },
    }))
      viewed.push(event);
    expect(viewed).toMatchObject([{ type: 'fit_viewed', source: 'shop-webhooks', external_id: expect.stringMatching(/^fit_viewed:/) }]);

    const { started, answered, decided, size } = await shopperDecides(url);
    expect(started.body.sizes).toEqual(['S', 'M', 'L'].map((label) => ({ label, variant_id: `gid-2001-${label}` })));
    const zones = Object.keys(answered.body.recommendation.fit).sort();
    for (const alternative of answered.body.recommendation.alternatives) expect(Object.keys(alternative.fit).sort()).toEqual(zones);
    expect(decided.body.variant_id).toBe(`gid-2001-${size}`);
  });

  it('refuses a session id the browser did not start: another browser, a forged cookie, a session made elsewhere', async () => {
    const { url, admin, storeId, productId } = await setUp();
    const first = browser(url);
    const { body } = await first.post('/fit/sessions', { product: 'gid-2001' });
    const answers = { answers: { height: { value: 178, unit: 'cm' }, weight: { value: 72, unit: 'kg' }, age: 34, sex: 'male' } };

    const other = browser(url);
    await other.post('/fit/sessions', { product: 'gid-2001' });
    expect(await other.post(`/fit/sessions/${body.session_id}/answers`, answers)).toMatchObject({
      status: 403,
      body: { error: 'not_your_session' },
    });
    expect((await other.post(`/fit/sessions/${body.session_id}/decision`, { size_label: 'M' })).status).toBe(403);

    // Naming the first browser's session in the second one's cookie breaks its signature.
    const cookie = other.jar.get('sf_fit') ?? '';
    other.jar.set('sf_fit', `${encodeURIComponent(body.session_id)}${cookie.slice(cookie.indexOf('.'))}`);
    expect((await other.post(`/fit/sessions/${body.session_id}/answers`, answers)).status).toBe(403);

    const elsewhere = await admin.POST('/v1/stores/{store_id}/sessions', {
      params: { path: { store_id: storeId } },
      body: { product_id: productId },
    });
    expect((await first.post(`/fit/sessions/${elsewhere.id}/answers`, answers)).status).toBe(403);
    expect((await first.post(`/fit/sessions/${body.session_id}/answers`, answers)).status).toBe(200);
    expect((await first.post('/fit/sessions', { product: 'gid-unknown' })).status).toBe(404);
  });

  it('refuses a webhook whose signature is wrong or missing, and records nothing', async () => {
    const { url, admin, storeId } = await setUp();
    const order = paidOrder('3001', 'M');
    const forged = createHmac('sha256', 'not the secret').update(JSON.stringify(order)).digest('base64');
    expect(await deliver(url, 'orders/paid', order, forged)).toEqual({ status: 401, body: { error: 'bad_signature' } });
    expect((await deliver(url, 'orders/paid', order, '')).status).toBe(401);
    expect((await deliver(url, 'orders/paid', order, 'c2hvcnQ=')).status).toBe(401);
    expect(await events(admin, storeId, '3001')).toEqual([]);
  });

  it('forwards a webhook delivered twice as one event: 201, then 200 for the repeat', async () => {
    const { url, admin, storeId } = await setUp();
    const { decided, sessionId, size } = await shopperDecides(url);
    const order = paidOrder('4001', size, decided.body.cart_property);

    const first = await deliver(url, 'orders/paid', order);
    expect(first).toEqual({
      status: 200,
      body: {
        events: [
          { external_id: 'purchase:4001:1', status: 201 },
          { external_id: 'purchase:4001:2', status: 'skipped' },
        ],
      },
    });
    const again = await deliver(url, 'orders/paid', order);
    expect(again.body.events[0]).toEqual({ external_id: 'purchase:4001:1', status: 200 });

    const stored = await events(admin, storeId, '4001');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: 'purchase', source: 'shop-webhooks', session_id: sessionId, line_item_id: '1' });
  });

  it('links only sessions this backend signed: a forged cart property makes an unassisted purchase', async () => {
    const { url, admin, storeId } = await setUp();
    const { sessionId, size } = await shopperDecides(url);
    await deliver(url, 'orders/paid', paidOrder('5001', size, { name: '_size_fit_session', value: `session:${sessionId}.forged` }));
    const [stored] = await events(admin, storeId, '5001');
    expect(stored).toMatchObject({ type: 'purchase', session_id: null });
  });

  it('forwards purchases, returns and exchanges, and the purchase shows in the metrics', async () => {
    const { url, admin, storeId } = await setUp();
    const { decided, size } = await shopperDecides(url);
    await deliver(url, 'orders/paid', paidOrder('6001', size, decided.body.cart_property));
    const line = { id: '1', product_id: 'gid-2001', variant_id: `gid-2001-${size}` };
    const returned = await deliver(url, 'returns/requested', {
      id: 'R1',
      order_id: '6001',
      requested_at: new Date().toISOString(),
      return_line_items: [{ id: 'RL1', quantity: 1, return_reason: 'SIZE_TOO_SMALL', line_item: line }],
    });
    expect(returned.body.events).toEqual([{ external_id: 'return:R1:RL1', status: 201 }]);
    const exchanged = await deliver(url, 'exchanges/created', {
      id: 'X1',
      order_id: '6001',
      created_at: new Date().toISOString(),
      exchange_line_items: [{ id: 'XL1', reason: 'COLOR', line_item: line }],
    });
    expect(exchanged.body.events).toEqual([{ external_id: 'exchange:X1:XL1', status: 201 }]);
    expect((await deliver(url, 'orders/fulfilled', { id: '6001' })).body).toEqual({ events: [] });
    expect((await deliver(url, 'returns/requested', { id: 'R2' })).status).toBe(400);

    const stored = await events(admin, storeId, '6001');
    expect(stored.map((event) => [event.type, event.reason]).sort()).toEqual([
      ['purchase', null],
      ['return_requested', 'size'],
      ['size_exchange', 'other'],
    ]);
    const metrics = await admin.GET('/v1/stores/{store_id}/metrics', { params: { path: { store_id: storeId } } });
    expect(metrics.counts).toMatchObject({
      started_sessions: 1,
      accepted_sessions: 1,
      converted_sessions: 1,
      purchased_lines: 1,
      size_returned_lines: 1,
      size_exchanged_lines: 0,
    });
  });

  it('records add_to_cart and checkout_started for a cart line, with the session only from a cart property it signed', async () => {
    const { url, admin, storeId, productId, logs } = await setUp();
    const { shopper, decided, sessionId, size } = await shopperDecides(url);
    const variants = await variantIds(admin, storeId, productId);
    const line = { product: 'gid-2001', variant: `gid-2001-${size}`, cart_property: decided.body.cart_property };

    const added = await shopper.post('/fit/cart-events', { type: 'add_to_cart', ...line }, { 'Idempotency-Key': 'add-1' });
    expect(added).toMatchObject({ status: 204, body: null });
    // The same call retried (its answer lost): stored once.
    expect((await shopper.post('/fit/cart-events', { type: 'add_to_cart', ...line }, { 'Idempotency-Key': 'add-1' })).status).toBe(204);
    // Another browser, with no cookie, holding the line's property: the property is the proof (a checkout may run elsewhere).
    const checkout = browser(url);
    expect((await checkout.post('/fit/cart-events', { type: 'checkout_started', ...line }, { 'Idempotency-Key': 'co-1' })).status).toBe(
      204,
    );
    // A line without the widget's property (unassisted), and one of a product without size help (nothing to count).
    expect((await shopper.post('/fit/cart-events', { type: 'add_to_cart', product: 'gid-2001', variant: 'gid-2001-S' })).status).toBe(204);
    expect((await shopper.post('/fit/cart-events', { type: 'add_to_cart', product: 'gid-9999', variant: 'gid-9999-1' })).status).toBe(204);

    const expected = {
      source: 'shop-webhooks',
      product_id: productId,
      variant_id: variants.get(size),
      session_id: sessionId,
      order_id: null,
      external_id: expect.stringMatching(/^add_to_cart:[A-Za-z0-9_-]{43}$/),
    };
    const addedEvents = await eventsOfType(admin, storeId, 'add_to_cart');
    expect(addedEvents).toHaveLength(2);
    expect(addedEvents.find((event) => event.session_id !== null)).toMatchObject({ type: 'add_to_cart', ...expected });
    expect(addedEvents.find((event) => event.session_id === null)).toMatchObject({ variant_id: variants.get('S'), product_id: productId });
    for (const event of addedEvents) expect(Math.abs(Date.parse(event.occurred_at) - Date.now())).toBeLessThan(60_000);
    expect(logs.map((entry) => entry.message)).not.toContain('event refused'); // the retry was answered as stored
    expect(await eventsOfType(admin, storeId, 'checkout_started')).toMatchObject([
      { type: 'checkout_started', ...expected, external_id: expect.stringMatching(/^checkout_started:/) },
    ]);
  });

  it('refuses cart events that name a session without its signed property, and bodies that are not one small cart line', async () => {
    const { url, admin, storeId } = await setUp();
    const { shopper, sessionId, size } = await shopperDecides(url);
    const line = { type: 'add_to_cart', product: 'gid-2001', variant: `gid-2001-${size}` };
    const refused = [
      // the session id alone, a forged signature, a property signed by another server
      { ...line, cart_property: { name: '_size_fit_session', value: `session:${sessionId}` } },
      { ...line, cart_property: { name: '_size_fit_session', value: `session:${sessionId}.forged` } },
      {
        ...line,
        cart_property: {
          name: '_size_fit_session',
          value: `session:${sessionId}.${createHmac('sha256', 'another secret').update(`session:${sessionId}`).digest('base64url')}`,
        },
      },
    ];
    for (const body of refused)
      expect(await shopper.post('/fit/cart-events', body)).toMatchObject({ status: 403, body: { error: 'not_your_session' } });
    expect(await shopper.post('/fit/cart-events', { ...line, session_id: sessionId })).toMatchObject({ status: 204 }); // ignored: unassisted

    expect(await shopper.post('/fit/cart-events', { ...line, type: 'purchase' })).toMatchObject({ status: 400, body: { field: 'type' } });
    expect(await shopper.post('/fit/cart-events', [line, line])).toMatchObject({ status: 400, body: { field: 'body' } });
    expect(await shopper.post('/fit/cart-events', { ...line, product: 'p'.repeat(256) })).toMatchObject({
      status: 400,
      body: { field: 'product' },
    });
    expect(await shopper.post('/fit/cart-events', { ...line, cart_property: 'x' })).toMatchObject({
      status: 400,
      body: { field: 'cart_property' },
    });
    expect(await shopper.post('/fit/cart-events', line, { 'Idempotency-Key': 'k'.repeat(256) })).toMatchObject({
      status: 400,
      body: { field: 'Idempotency-Key' },
    });
    expect(await shopper.post('/fit/cart-events', { ...line, padding: 'x'.repeat(2048) })).toMatchObject({
      status: 413,
      body: { error: 'body_too_large' },
    });
    expect(await shopper.post('/fit/cart-events', '{"type":')).toMatchObject({ status: 400, body: { error: 'unreadable_body' } });
    expect(await shopper.post('/fit/cart-events', JSON.stringify(line), { 'Content-Type': 'text/plain' })).toMatchObject({ status: 415 });

    const stored = await eventsOfType(admin, storeId, 'add_to_cart');
    expect(stored.map((event) => event.session_id)).toEqual([null]);
  });

  it('records a cart event whose signed property names a session of another product as unassisted', async () => {
    const { url, admin, storeId, productId, logs } = await setUp();
    const tee = await admin.GET('/v1/stores/{store_id}/products/{id}', { params: { path: { store_id: storeId, id: productId } } });
    const polo = await admin.POST('/v1/stores/{store_id}/products', {
      params: { path: { store_id: storeId } },
      body: { title: 'Polo', external_id: 'gid-2002', product_type_id: tee.product_type_id, size_chart_id: tee.size_chart_id },
    });
    await admin.POST('/v1/stores/{store_id}/products/{product_id}/variants', {
      params: { path: { store_id: storeId, product_id: polo.id } },
      body: { size_label: 'M', external_id: 'gid-2002-M' },
    });
    const { shopper, decided } = await shopperDecides(url);
    const moved = { type: 'add_to_cart', product: 'gid-2002', variant: 'gid-2002-M', cart_property: decided.body.cart_property };
    expect((await shopper.post('/fit/cart-events', moved, { 'Idempotency-Key': 'moved-1' })).status).toBe(204);
    expect((await shopper.post('/fit/cart-events', moved, { 'Idempotency-Key': 'moved-1' })).status).toBe(204);
    expect(await eventsOfType(admin, storeId, 'add_to_cart')).toMatchObject([{ product_id: polo.id, session_id: null }]);
    expect(logs.map((entry) => entry.message)).not.toContain('event refused');
  });

  it('does not acknowledge an order line whose variant it cannot map: logged, counted, delivered again until the catalog names it', async () => {
    const { url, admin, storeId, productId, logs, statusToken } = await setUp();
    const variants = await variantIds(admin, storeId, productId);
    const other = 'S';
    const otherId = variants.get(other) ?? '';
    // A variant without the platform's id.
    await admin.PATCH('/v1/stores/{store_id}/products/{product_id}/variants/{id}', {
      params: { path: { store_id: storeId, product_id: productId, id: otherId } },
      body: { external_id: null },
    });
    // The shopper's choice caches the product's map, which lacks that variant.
    const { decided, sessionId, size } = await shopperDecides(url);
    expect(size).not.toBe(other);
    const order = {
      id: '7001',
      processed_at: new Date().toISOString(),
      line_items: [
        { id: '1', product_id: 'gid-2001', variant_id: `gid-2001-${size}`, quantity: 1, properties: [decided.body.cart_property] },
        { id: '2', product_id: 'gid-2001', variant_id: `gid-2001-${other}`, quantity: 1, properties: [] },
        { id: '3', product_id: 'gid-9999', variant_id: 'gid-9999-1', quantity: 1, properties: [] },
      ],
    };

    const first = await deliver(url, 'orders/paid', order);
    expect(first).toEqual({
      status: 503,
      body: {
        error: 'lines_not_mapped',
        events: [
          { external_id: 'purchase:7001:1', status: 201 },
          { external_id: 'purchase:7001:2', status: 'unmapped' },
          { external_id: 'purchase:7001:3', status: 'skipped' },
        ],
      },
    });
    const line = { order_id: '7001', line_item_id: '2', product_id: 'gid-2001', variant_id: `gid-2001-${other}` };
    expect(logs.filter((entry) => entry.fields?.level === 'warning')).toEqual([
      {
        message: expect.stringContaining('order line not sent'),
        fields: expect.objectContaining({ level: 'warning', topic: 'orders/paid', ...line }),
      },
    ]);
    expect(JSON.stringify(logs)).not.toMatch(SECRET_KEY);
    expect(JSON.stringify(logs)).not.toContain(WEBHOOK_SECRET);
    expect((await events(admin, storeId, '7001')).map((event) => event.line_item_id)).toEqual(['1']);

    const status = async (authorization?: string) => {
      const response = await fetch(`${url}/status`, { headers: authorization ? { Authorization: authorization } : {} });
      return { status: response.status, body: JSON.parse(await response.text()) };
    };
    expect((await status()).status).toBe(401);
    expect((await status('Bearer not-the-token')).status).toBe(401);
    const seen = await status(`Bearer ${statusToken}`);
    expect(seen).toEqual({
      status: 200,
      body: {
        started_at: expect.any(String),
        unmapped_lines: {
          since_start: 1,
          recent: [{ at: expect.any(String), topic: 'orders/paid', external_id: 'purchase:7001:2', ...line }],
        },
      },
    });

    // The merchant gives the variant its platform id (the cached map still lacks it); the platform's next delivery
    // completes the order, each line stored once.
    await admin.PATCH('/v1/stores/{store_id}/products/{product_id}/variants/{id}', {
      params: { path: { store_id: storeId, product_id: productId, id: otherId } },
      body: { external_id: `gid-2001-${other}` },
    });
    expect(await deliver(url, 'orders/paid', order)).toEqual({
      status: 200,
      body: {
        events: [
          { external_id: 'purchase:7001:1', status: 200 },
          { external_id: 'purchase:7001:2', status: 201 },
          { external_id: 'purchase:7001:3', status: 'skipped' },
        ],
      },
    });
    const stored = await events(admin, storeId, '7001');
    expect(stored.map((event) => [event.line_item_id, event.variant_id, event.session_id]).sort()).toEqual([
      ['1', variants.get(size), sessionId],
      ['2', otherId, null],
    ]);
    expect((await status(`Bearer ${statusToken}`)).body.unmapped_lines.since_start).toBe(1);
  });

  /** A running experiment on the tee, half of its shoppers held out; a shopper of each arm, by the platform's id. */
  async function experiment(admin: SizeFitClient, storeId: string, productId: string) {
    const inStore = { path: { store_id: storeId } };
    const draft = await admin.POST('/v1/stores/{store_id}/experiments', {
      params: inStore,
      body: {
        name: 'Does size help cut size returns?',
        arms: [
          { name: 'size help', share: 0.5, treatment: 'size_help' },
          { name: 'holdout', share: 0.5, treatment: 'no_size_help' },
        ],
        product_ids: [productId],
        primary_metric: 'size_return_rate',
        minimum_effect: 0.03,
      },
    });
    const started = await admin.POST('/v1/stores/{store_id}/experiments/{id}/start', {
      params: { path: { ...inStore.path, id: draft.id } },
    });
    // Asked with the admin key, as a test may: each customer's arm is fixed by her id, whoever asks.
    const arms = new Map<string, string>();
    for (let i = 1; arms.size < 2 && i < 100; i++) {
      const { treatment } = await admin.assign(storeId, { shopper_ref: `7310${i}`, product_id: productId });
      if (!arms.has(treatment)) arms.set(treatment, `7310${i}`);
    }
    return { id: started.id, holdout: arms.get('no_size_help') ?? '', helped: arms.get('size_help') ?? '' };
  }

  it('asks the service for the shopper’s arm on the product page: no size help for a holdout, never as an error', async () => {
    const { url, admin, storeId, productId, cookieSecret, logs } = await setUp();
    const { holdout, helped } = await experiment(admin, storeId, productId);
    const viewed = async () => {
      const found = [];
      for await (const event of admin.list('/v1/stores/{store_id}/events', {
        params: { path: { store_id: storeId }, query: { type: 'fit_viewed' } },
      }))
        found.push(event);
      return found.length;
    };

    const held = browser(url, { id: holdout, cookieSecret });
    expect(await held.post('/fit/views', { product: 'gid-2001' })).toEqual({ status: 200, body: { size_help: false }, setCookie: [] });
    expect(await viewed()).toBe(0); // nothing was shown
    // Her page showed the widget all the same (a cached page, an arm not read): her session is refused by the service,
    // and she is told no size help, as from the page; no session joins her cookie.
    expect(await held.post('/fit/sessions', { product: 'gid-2001' })).toEqual({ status: 200, body: { size_help: false }, setCookie: [] });

    const shown = browser(url, { id: helped, cookieSecret });
    expect(await shown.post('/fit/views', { product: 'gid-2001' })).toMatchObject({ status: 200, body: { size_help: true } });
    expect(await viewed()).toBe(1);
    const started = await shown.post('/fit/sessions', { product: 'gid-2001' });
    expect(started).toMatchObject({ status: 201, body: { session_id: expect.any(String) } });
    // A visitor the platform does not name is in no experiment: size help as usual.
    const anonymous = browser(url);
    expect(await anonymous.post('/fit/views', { product: 'gid-2001' })).toMatchObject({ status: 200, body: { size_help: true } });
    expect((await anonymous.post('/fit/sessions', { product: 'gid-2001' })).status).toBe(201);
    expect(logs.map((entry) => entry.message)).not.toContain('size-fit refused a shopper request');
  });

  it('names the order’s customer on its purchases, so that the holdout’s purchases count in her arm', async () => {
    const { url, admin, storeId, productId } = await setUp();
    const { id, holdout, helped } = await experiment(admin, storeId, productId);
    const { decided, size } = await shopperDecides(url);

    const held = paidOrder('8001', 'M', undefined, { id: holdout });
    expect((await deliver(url, 'orders/paid', held)).body.events[0]).toEqual({ external_id: 'purchase:8001:1', status: 201 });
    expect((await deliver(url, 'orders/paid', paidOrder('8002', size, decided.body.cart_property, { id: helped }))).status).toBe(200);
    expect((await deliver(url, 'orders/paid', paidOrder('8003', 'S', undefined, null))).status).toBe(200); // a guest's order
    // The redelivery is the same event, the customer included.
    expect((await deliver(url, 'orders/paid', held)).body.events[0]).toEqual({ external_id: 'purchase:8001:1', status: 200 });
    expect((await deliver(url, 'orders/paid', { ...paidOrder('8004', 'M'), customer: { id: {} } })).status).toBe(400);

    const results = await admin.GET('/v1/stores/{store_id}/experiments/{id}/results', { params: { path: { store_id: storeId, id } } });
    expect(results.arms.map((arm) => [arm.name, arm.purchasing_units, arm.purchased_lines])).toEqual([
      ['size help', 1, 1],
      ['holdout', 1, 1],
    ]);
  });

  it('shows size help when the service does not give the shopper’s arm, and says why in its log', async () => {
    const { url, admin, storeId, productId, cookieSecret, logs } = await setUp(['catalog', 'events']);
    const { holdout } = await experiment(admin, storeId, productId);
    const held = browser(url, { id: holdout, cookieSecret });
    expect(await held.post('/fit/views', { product: 'gid-2001' })).toMatchObject({ status: 200, body: { size_help: true } });
    expect(logs).toContainEqual({
      message: 'arm not read, size help shown',
      fields: { error: expect.stringContaining('insufficient_scope') },
    });
  });
});
