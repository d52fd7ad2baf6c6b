import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { PlatformConfig } from '../../src/config/app.config.js';

/**
 * A stand-in for the Shopify-style e-commerce platform the seller console connects stores to
 * (docs/decisions/005-seller-console.md, "Platform connection"). It listens on 127.0.0.1 and serves, per shop,
 *
 * - `GET  /shops/{shop}/admin/oauth/authorize?client_id=&scope=&redirect_uri=&state=`: the merchant approves at once:
 *   302 to `redirect_uri` with the signed callback parameters (code, host, shop, state, timestamp, hmac);
 * - `POST /shops/{shop}/admin/oauth/access_token` with JSON `{client_id, client_secret, code}`: exchanges a code issued
 *   for that shop, once, for `{access_token: 'shpat_…', scope}`; how it answers is switchable (`tokenBehaviour`).
 *
 * Configure the service with `platform.baseUrl` (it holds the `{shop}` placeholder), `clientId` and `clientSecret`.
 * Tests that drive the console with supertest call `authorize(location)` instead of following the redirect.
 */

/** How the token endpoint answers. */
export type TokenBehaviour =
  /** 200 `{access_token, scope}` after checking client id, secret and code (400 `{error}` when one is wrong). */
  | 'ok'
  /** 500 with a JSON error body. */
  | 'error500'
  /** Never answers (until `close()`): longer than any timeout a test configures. */
  | 'hang'
  /** Sends 200 and the headers, then never finishes the body. */
  | 'hang-body'
  /** 200, `Content-Type: application/json`, a body that is not JSON. */
  | 'invalid-json'
  /** 200 JSON with a scope but no `access_token`. */
  | 'missing-access-token'
  /** 200 JSON with `access_token: ''`. */
  | 'empty-access-token'
  /** 200 JSON with an `access_token` but no `scope`. */
  | 'missing-scope'
  /** Destroys the connection without an answer. */
  | 'drop';

/** The query parameters the platform sends back to the redirect URI. `hmac` signs all the others. */
export interface CallbackParams {
  code: string;
  shop: string;
  state: string;
  timestamp: string;
  hmac: string;
  host?: string;
  [name: string]: string | undefined;
}

export interface ApproveOptions {
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Add the base64 `host` parameter, as the real platform does (it is part of the signed message). Default false. */
  host?: boolean;
  /** More parameters to add before signing. */
  extra?: Record<string, string>;
  /** Sign with this secret instead of the client secret (to forge a callback). */
  secret?: string;
}

/** A product as the admin API lists it (Shopify's REST shape, ids as numbers). */
export interface StandinProduct {
  id: number;
  title: string;
  product_type: string;
  vendor: string;
  /** Comma-separated. */
  tags: string;
  options: Array<{ name: string; position: number; values: string[] }>;
  variants: Array<{ id: number; title: string; sku: string; option1: string | null; option2: string | null; option3: string | null }>;
  /** When the shop last changed it (ISO 8601). */
  updated_at?: string;
}

/** One request the token endpoint received, whatever it answered. */
export interface TokenExchange {
  readonly shop: string;
  readonly contentType: string | undefined;
  /** The raw request body. */
  readonly rawBody: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  readonly body: Record<string, unknown> | undefined;
  /** The status the stand-in answered (0 for `hang` and `drop`). */
  readonly status: number;
  /** The access token it handed out, when it did. */
  readonly accessToken?: string;
}

/** An authorization code handed out by `approve` / `authorize` / the authorize endpoint. */
export interface IssuedCode {
  readonly code: string;
  readonly shop: string;
  used: boolean;
}

export interface PlatformOptions {
  clientId?: string;
  clientSecret?: string;
  /** The `scope` the token endpoint reports as granted; default `read_products,read_orders`. */
  grantedScope?: string;
  tokenBehaviour?: TokenBehaviour;
}

export interface StandinPlatform {
  /** `http://127.0.0.1:PORT/shops/{shop}`: the service's `platform.baseUrl`. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Switch at any time; applies to the next token request. */
  tokenBehaviour: TokenBehaviour;
  /** The `scope` the token endpoint reports as granted; switch at any time. */
  grantedScope: string;
  readonly codes: readonly IssuedCode[];
  readonly exchanges: readonly TokenExchange[];
  /** Every access token handed out, in order. */
  readonly tokens: readonly string[];
  /** The shops' catalogs, as the admin API serves them (`setProducts`). */
  readonly catalogs: Map<string, StandinProduct[]>;
  /** Every Nth request to the admin API is answered 429 with `Retry-After: 1` (0: never); switch at any time. */
  rateLimitEvery: number;
  /** How long the admin API takes to answer each request, in ms (0 by default); switch at any time. */
  adminDelayMs: number;
  /** Every request the admin API received, in order. */
  readonly adminRequests: ReadonlyArray<{ readonly shop: string; readonly query: string; readonly status: number }>;
  /** The merchant approves the app for `shop`: a fresh code and the signed callback parameters for `state`. */
  approve(shop: string, state: string, options?: ApproveOptions): CallbackParams;
  /**
   * Given the authorize URL the console redirected to, checks it is this platform's authorize endpoint for this
   * app (throws otherwise) and approves: the callback parameters the platform would send to its `redirect_uri`.
   */
  authorize(url: string, options?: ApproveOptions): CallbackParams;
  close(): Promise<void>;
}

/**
 * The callback signature as the platform documents it: hex HMAC-SHA256 under `secret` of every parameter but `hmac`
 * and `signature`, sorted by name, joined `k=v&…`, with `%` → `%25` and `&` → `%26` in names and values and
 * `=` → `%3D` in names. Written from the platform's documentation, not from src.
 */
export function signCallback(params: Readonly<Record<string, string | undefined>>, secret: string): string {
  const escape = (text: string) => text.replaceAll('%', '%25').replaceAll('&', '%26');
  const message = Object.keys(params)
    .filter((name) => name !== 'hmac' && name !== 'signature' && params[name] !== undefined)
    .sort()
    .map((name) => `${escape(name).replaceAll('=', '%3D')}=${escape(params[name] as string)}`)
    .join('&');
  return createHmac('sha256', secret).update(message).digest('hex');
}

/**
 * The service's settings for a platform (a stand-in's address and app credentials): jobs polled, retried and given up
 * on within seconds, a fresh token key, and the scheduled reconcile on a date no test runs on (tests start it by hand).
 */
export function standinConfig(
  platform: Pick<StandinPlatform, 'baseUrl' | 'clientId' | 'clientSecret'>,
  overrides: Partial<PlatformConfig> = {},
): PlatformConfig {
  return {
    baseUrl: platform.baseUrl,
    clientId: platform.clientId,
    clientSecret: platform.clientSecret,
    scopes: ['read_products', 'read_orders'],
    timeoutMs: 2000,
    jobPollSeconds: 1,
    retryDelaySeconds: 1,
    jobRetries: 1,
    reconcileCron: '0 4 1 1 *',
    tokenKey: randomBytes(32),
    ...overrides,
  };
}

/** `k=v&…` with URL encoding, in the given order: the query string of a callback. */
export function callbackQuery(params: Readonly<Record<string, string | undefined>>): string {
  return Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

const SHOP_PATH = /^\/shops\/([^/]+)\/admin\/oauth\/(authorize|access_token)$/;
const ADMIN_PATH = /^\/shops\/([^/]+)\/admin\/api\/[0-9-]+\/products\.json$/;

export async function startPlatform(options: PlatformOptions = {}): Promise<StandinPlatform> {
  const clientId = options.clientId ?? `standin-client-${randomBytes(4).toString('hex')}`;
  const clientSecret = options.clientSecret ?? `standin-secret-${randomBytes(24).toString('hex')}`;
  const codes: IssuedCode[] = [];
  const exchanges: TokenExchange[] = [];
  const tokens: string[] = [];
  const sockets = new Set<Socket>();

  const approve = (shop: string, state: string, approveOptions: ApproveOptions = {}): CallbackParams => {
    const code = randomBytes(16).toString('hex');
    codes.push({ code, shop, used: false });
    const params: CallbackParams = {
      code,
      shop,
      state,
      timestamp: String(approveOptions.timestamp ?? Math.floor(Date.now() / 1000)),
      hmac: '',
      ...(approveOptions.host ? { host: Buffer.from(`admin.example/store/${shop.split('.')[0]}`).toString('base64') } : {}),
      ...approveOptions.extra,
    };
    params.hmac = signCallback(params, approveOptions.secret ?? clientSecret);
    return params;
  };

  const catalogs = new Map<string, StandinProduct[]>();
  const adminRequests: Array<{ shop: string; query: string; status: number }> = [];

  /**
   * `GET /shops/{shop}/admin/api/{version}/products.json?limit=&page_info=`, with `X-Shop-Access-Token` a token
   * issued for the shop: a page of products in id order (`limit` at most 250, default 50) and, when more follow, a
   * `Link: <…?limit=&page_info=…>; rel="next"` header, as the platform paginates by cursor.
   */
  function adminProducts(req: IncomingMessage, res: ServerResponse, url: URL, shop: string): void {
    const record = (status: number) => adminRequests.push({ shop, query: url.search, status });
    const token = req.headers['x-shop-access-token'];
    if (!exchanges.some((exchange) => exchange.shop === shop && exchange.accessToken !== undefined && exchange.accessToken === token)) {
      record(401);
      return answer(res, 401, { errors: '[API] Invalid API key or access token' });
    }
    if (platform.rateLimitEvery > 0 && (adminRequests.length + 1) % platform.rateLimitEvery === 0) {
      record(429);
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      res.end(
        JSON.stringify({ errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' }),
      );
      return;
    }
    const limit = Math.min(250, Math.max(1, Number(url.searchParams.get('limit') ?? 50) || 50));
    const cursor = url.searchParams.get('page_info');
    const offset = cursor ? Number(Buffer.from(cursor, 'base64url').toString('utf8')) : 0;
    const all = [...(catalogs.get(shop) ?? [])].sort((a, b) => a.id - b.id);
    const page = all.slice(offset, offset + limit);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (offset + limit < all.length) {
      const next = new URL(url);
      next.search = '';
      next.searchParams.set('limit', String(limit));
      next.searchParams.set('page_info', Buffer.from(String(offset + limit)).toString('base64url'));
      headers.Link = `<${next.toString()}>; rel="next"`;
    }
    record(200);
    res.writeHead(200, headers);
    res.end(JSON.stringify({ products: page }));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const platform: StandinPlatform = {
    baseUrl: '',
    origin: '',
    clientId,
    clientSecret,
    tokenBehaviour: options.tokenBehaviour ?? 'ok',
    grantedScope: options.grantedScope ?? 'read_products,read_orders',
    codes,
    exchanges,
    tokens,
    catalogs,
    rateLimitEvery: 0,
    adminDelayMs: 0,
    adminRequests,
    approve,
    authorize(url: string, approveOptions?: ApproveOptions): CallbackParams {
      const parsed = new URL(url);
      const match = SHOP_PATH.exec(parsed.pathname);
      if (parsed.origin !== platform.origin || !match || match[2] !== 'authorize') {
        throw new Error(`not this platform's authorize endpoint: ${url}`);
      }
      const state = parsed.searchParams.get('state');
      if (parsed.searchParams.get('client_id') !== clientId) throw new Error(`authorize: wrong client_id in ${url}`);
      if (!state) throw new Error(`authorize: no state in ${url}`);
      if (!parsed.searchParams.get('redirect_uri')) throw new Error(`authorize: no redirect_uri in ${url}`);
      return approve(decodeURIComponent(match[1]), state, approveOptions);
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', platform.origin);
    const admin = ADMIN_PATH.exec(url.pathname);
    if (admin && req.method === 'GET') {
      if (platform.adminDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, platform.adminDelayMs));
      return adminProducts(req, res, url, decodeURIComponent(admin[1]));
    }
    const match = SHOP_PATH.exec(url.pathname);
    if (!match) return answer(res, 404, { error: 'not_found' });
    const shop = decodeURIComponent(match[1]);

    if (match[2] === 'authorize') {
      if (req.method !== 'GET') return answer(res, 405, { error: 'method_not_allowed' });
      const redirectUri = url.searchParams.get('redirect_uri');
      const state = url.searchParams.get('state');
      if (url.searchParams.get('client_id') !== clientId || !redirectUri || !state) {
        return answer(res, 400, { error: 'invalid_request' });
      }
      const params = approve(shop, state, { host: true });
      const target = new URL(redirectUri);
      target.search = callbackQuery(params);
      res.writeHead(302, { Location: target.toString() });
      res.end();
      return;
    }

    if (req.method !== 'POST') return answer(res, 405, { error: 'method_not_allowed' });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(rawBody);
      body = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const record = (status: number, accessToken?: string) =>
      exchanges.push({ shop, contentType: req.headers['content-type'], rawBody, body, status, accessToken });

    switch (platform.tokenBehaviour) {
      case 'hang':
        record(0);
        return; // the socket stays open until the client gives up or close() destroys it
      case 'drop':
        record(0);
        req.socket.destroy();
        return;
      case 'hang-body':
        record(200);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"access_token": ');
        return; // the rest never comes
      case 'error500':
        record(500);
        return answer(res, 500, { errors: 'Internal Server Error' });
      case 'invalid-json':
        record(200);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"access_token": "shpat_');
        return;
      case 'missing-access-token':
        record(200);
        return answer(res, 200, { scope: platform.grantedScope });
      case 'empty-access-token':
        record(200);
        return answer(res, 200, { access_token: '', scope: platform.grantedScope });
      case 'missing-scope': {
        const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
        tokens.push(accessToken);
        record(200, accessToken);
        return answer(res, 200, { access_token: accessToken });
      }
      case 'ok':
        break;
    }

    const issued = codes.find((entry) => entry.code === body?.code && entry.shop === shop);
    if (!body || body.client_id !== clientId || body.client_secret !== clientSecret || !issued || issued.used) {
      record(400);
      return answer(res, 400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
    }
    issued.used = true;
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    tokens.push(accessToken);
    record(200, accessToken);
    return answer(res, 200, { access_token: accessToken, scope: platform.grantedScope });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  Object.assign(platform, { origin: `http://127.0.0.1:${port}`, baseUrl: `http://127.0.0.1:${port}/shops/{shop}` });
  return platform;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A port on 127.0.0.1 nothing listens on (bound, then released): a platform that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A notification (webhook) as the platform delivers it: its headers and raw body. */
export interface Notification {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A notification for `shop` on `topic`, as the platform documents it: `X-Shop-Hmac-Sha256` is the base64
 * HMAC-SHA256 of the raw body under the app's client secret; `X-Shop-Webhook-Id` is the same on every redelivery.
 * Written from the platform's documentation, not from src. `secret` forges one; `id` redelivers one.
 */
export function notification(
  platform: Pick<StandinPlatform, 'clientSecret'>,
  shop: string,
  topic: string,
  payload: unknown,
  options: { id?: string; secret?: string } = {},
): Notification {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Shop-Topic': topic,
      'X-Shop-Domain': shop,
      'X-Shop-Webhook-Id': options.id ?? randomBytes(12).toString('hex'),
      'X-Shop-Hmac-Sha256': createHmac('sha256', options.secret ?? platform.clientSecret)
        .update(body, 'utf8')
        .digest('base64'),
    },
  };
}

/**
 * `count` products for the stand-in's catalog: ids from `firstId`; every tenth without a size option (one size), the
 * others with a size option named in one of the languages shops use, sizes S to XL, and a colour.
 */
export function standinProducts(count: number, firstId = 1000): StandinProduct[] {
  const sizeNames = ['Size', 'Taille', 'Größe', 'Talla', 'Taglia', 'Maat', 'size'];
  return Array.from({ length: count }, (_, n) => {
    const id = firstId + n;
    const sized = n % 10 !== 9;
    const sizes = sized ? ['S', 'M', 'L', 'XL'] : ['One size'];
    const option = sized ? sizeNames[n % sizeNames.length] : 'Title';
    return {
      id,
      title: `Product ${id}`,
      product_type: n % 3 === 0 ? 'Dresses' : 'T-Shirts',
      vendor: n % 2 === 0 ? 'Northwind' : 'Fjord',
      tags: n % 4 === 0 ? 'summer, linen' : 'basics',
      options: [
        { name: 'Color', position: 1, values: ['Blue'] },
        { name: option, position: 2, values: sizes },
      ],
      variants: sizes.map((size, k) => ({
        id: id * 100 + k,
        title: `Blue / ${size}`,
        sku: `SKU-${id}-${k}`,
        option1: 'Blue',
        option2: size,
        option3: null,
      })),
    };
  });
}
