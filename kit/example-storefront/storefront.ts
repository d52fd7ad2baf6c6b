/**
 * The example storefront, served by the example backend: a product page with the widget, a cart whose lines carry
 * the Size-Fit session the widget's decision named (the signed `_size_fit_session` property), and a checkout that
 * plays the e-commerce platform: it sends the signed `orders/paid` webhook to the backend's own `/webhooks/orders`,
 * which turns it into the purchase event with its `session_id`. The page's script (assets/storefront.js) tells the
 * backend's `POST /fit/cart-events` of each line added to the cart (`add_to_cart`) and, before the order is placed,
 * of each line checked out (`checkout_started`), with the line's cart property.
 *
 * As a platform does, it knows each browser as a customer (a pseudonymous id in its signed `sf_customer` cookie) and
 * names her in the order (`customer.id`); the backend takes the same id as the shopper whose arm it asks for on the
 * product page (`customerOf`), so that an experiment finds her purchases. A holdout shopper's product page has no size
 * help button: the widget asks the backend before showing itself.
 *
 *   GET  /products/:id?lang=de      the product page (`lang`: en, de, fr, es; the widget follows the page's `lang`)
 *   GET  /size-fit/widget.js        the widget's script (kit/widget, bundled at start)
 *   POST /cart/lines                { product, variant, properties } → 201 { count }   (the page's add-to-cart)
 *   GET  /cart, POST /cart/checkout the cart and the order
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCookie, stringifySetCookie } from 'cookie';
import express, { type Request, type Response, type Router } from 'express';
import { sign, verify } from '../example-backend/signing.js';
import { SESSION_PROPERTY } from '../example-backend/webhooks.js';
import { type ShopProduct, SHOP_PRODUCTS } from './catalog.js';
import { type Words, WORDS } from './words.js';

export interface StorefrontOptions {
  /** The widget's bundled script (kit/widget/build.ts). */
  readonly widgetScript: string;
  /** Called once an order's webhook was delivered (the example's start script prints the store's metrics then). */
  readonly onOrder?: (orderId: string) => void;
  /** The shop's products: the example's own two (the default), or a store's as set up in the console (`storeProducts`). */
  readonly products?: readonly ShopProduct[];
}

interface Secrets {
  readonly cookieSecret: string;
  readonly webhookSecret: string;
  readonly secureCookies: boolean;
}

interface CartLine {
  readonly product: ShopProduct;
  readonly variantId: string;
  readonly size: string;
  readonly properties: Array<{ name: string; value: string }>;
}

const CART_COOKIE = 'sf_cart';
const CUSTOMER_COOKIE = 'sf_customer';
/** As a platform keeps its customer: a visitor stays the same shopper across an experiment's weeks. */
const CUSTOMER_MAX_AGE = 365 * 24 * 3600;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const here = dirname(fileURLToPath(import.meta.url));
const ASSETS = here.includes('/dist/') ? resolve(here, '../../../kit/example-storefront/assets') : resolve(here, 'assets');

/** The customer a browser's request comes from, as this stand-in platform names her, or null when it does not. */
export function customerOf(request: Request, cookieSecret: string): string | null {
  const token = parseCookie(request.headers.cookie ?? '')[CUSTOMER_COOKIE];
  return token === undefined ? null : verify(cookieSecret, token);
}

export function storefront(options: StorefrontOptions, secrets: Secrets): Router {
  const router = express.Router();
  const carts = new Map<string, CartLine[]>();
  const assets = {
    'storefront.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(resolve(ASSETS, 'storefront.js'), 'utf8') },
    'storefront.css': { type: 'text/css; charset=utf-8', body: readFileSync(resolve(ASSETS, 'storefront.css'), 'utf8') },
  };
  let orders = 0;

  router.use((_request: Request, response: Response, next) => {
    response.setHeader('Content-Security-Policy', CSP);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.get('/favicon.ico', (_request, response) => void response.status(204).end());
  router.get('/size-fit/widget.js', (_request, response) => {
    response.type('text/javascript; charset=utf-8').setHeader('Cache-Control', 'no-cache');
    response.send(options.widgetScript);
  });
  for (const [name, asset] of Object.entries(assets))
    router.get(`/${name}`, (_request, response) => void response.type(asset.type).send(asset.body));

  const cartId = (request: Request, response: Response): string => {
    const token = parseCookie(request.headers.cookie ?? '')[CART_COOKIE];
    const existing = token === undefined ? null : verify(secrets.cookieSecret, token);
    if (existing !== null) return existing;
    const id = randomUUID();
    response.append(
      'Set-Cookie',
      stringifySetCookie({
        name: CART_COOKIE,
        value: sign(secrets.cookieSecret, id),
        httpOnly: true,
        secure: secrets.secureCookies,
        sameSite: 'strict',
        path: '/',
      }),
    );
    return id;
  };
  /** The browser's customer, named on her first page. */
  const customer = (request: Request, response: Response): string => {
    const existing = customerOf(request, secrets.cookieSecret);
    if (existing !== null) return existing;
    const id = `cust_${randomUUID()}`;
    response.append(
      'Set-Cookie',
      stringifySetCookie({
        name: CUSTOMER_COOKIE,
        value: sign(secrets.cookieSecret, id),
        httpOnly: true,
        secure: secrets.secureCookies,
        // Lax, not Strict: a shopper arriving from another site's link is still the same customer, in the same arm.
        sameSite: 'lax',
        path: '/',
        maxAge: CUSTOMER_MAX_AGE,
      }),
    );
    return id;
  };
  const linesOf = (request: Request, response: Response) => {
    const id = cartId(request, response);
    const lines = carts.get(id) ?? [];
    carts.set(id, lines);
    return lines;
  };

  const products = options.products ?? SHOP_PRODUCTS;
  router.get('/', (request, response) =>
    response.redirect(303, `/products/${encodeURIComponent(products[0]?.id ?? '')}${langQuery(request)}`),
  );

  router.get('/products/:id', (request, response) => {
    const product = products.find((p) => p.id === request.params.id);
    const { lang, words } = languageOf(request);
    if (product === undefined)
      return void response
        .status(404)
        .type('html')
        .send(page(lang, words.notFound, `<h1>${words.notFound}</h1>`, words, 0, request));
    customer(request, response);
    const count = linesOf(request, response).length;
    const others = products
      .filter((p) => p !== product)
      .map((p) => `<li><a href="/products/${esc(encodeURIComponent(p.id))}${langQuery(request)}">${esc(p.title)}</a></li>`)
      .join('');
    const body = `
<h1>${esc(product.title)}</h1>
${product.price ? `<p class="price">${esc(product.price)}</p>` : ''}
${product.description ? `<p>${esc(product.description)}</p>` : ''}
<form id="add-to-cart" data-product="${esc(product.id)}" data-added="${esc(words.added)}" data-selected="${esc(words.selected)}" data-failed="${esc(words.addFailed)}">
  <div class="size-row">
    <label for="size">${esc(words.size)}</label>
    <select id="size" name="variant" required>
      <option value="">${esc(words.chooseSize)}</option>
      ${product.sizes.map((s) => `<option value="${esc(s.variantId)}">${esc(s.label)}</option>`).join('')}
    </select>
    <size-fit-button product="${esc(product.id)}" endpoint="/fit"></size-fit-button>
  </div>
  <button type="submit" class="buy">${esc(words.addToCart)}</button>
  <p id="cart-status" role="status"></p>
</form>
<h2>${esc(words.more)}</h2>
<ul>${others}</ul>`;
    response.type('html').send(page(lang, product.title, body, words, count, request));
  });

  router.post('/cart/lines', express.json({ limit: '8kb' }), (request: Request, response: Response) => {
    const product = products.find((p) => p.id === request.body?.product);
    const size = product?.sizes.find((s) => s.variantId === request.body?.variant);
    if (product === undefined || size === undefined) return void response.status(400).json({ error: 'invalid_line' });
    // Only the property the widget's decision answered travels with the line; the backend checks its signature again.
    const given: unknown = request.body?.properties;
    const properties = Array.isArray(given)
      ? given.filter(
          (p): p is { name: string; value: string } => p?.name === SESSION_PROPERTY && typeof p.value === 'string' && p.value.length < 300,
        )
      : [];
    const lines = linesOf(request, response);
    lines.push({ product, variantId: size.variantId, size: size.label, properties: properties.slice(0, 1) });
    response.status(201).json({ count: lines.length });
  });

  router.get('/cart', (request, response) => {
    const { lang, words } = languageOf(request);
    const lines = linesOf(request, response);
    const body = lines.length
      ? `<h1>${esc(words.cart)}</h1>
<ul class="lines">${lines.map((l) => `<li ${lineData(l)}>${esc(l.product.title)}, ${esc(words.size)} ${esc(l.size)}, ${esc(l.product.price)}</li>`).join('')}</ul>
<form id="checkout" method="post" action="/cart/checkout${langQuery(request)}"><button type="submit" class="buy">${esc(words.placeOrder)}</button></form>`
      : `<h1>${esc(words.cart)}</h1><p>${esc(words.empty)}</p>`;
    response.type('html').send(page(lang, words.cart, body, words, lines.length, request));
  });

  router.post('/cart/checkout', async (request: Request, response: Response) => {
    const lines = linesOf(request, response);
    if (lines.length === 0) return void response.redirect(303, `/cart${langQuery(request)}`);
    orders += 1;
    const orderId = `${Date.now()}${orders}`;
    const customerId = customerOf(request, secrets.cookieSecret);
    const order = {
      id: orderId,
      processed_at: new Date().toISOString(),
      customer: customerId === null ? null : { id: customerId },
      line_items: lines.map((line, index) => ({
        id: String(index + 1),
        product_id: line.product.id,
        variant_id: line.variantId,
        quantity: 1,
        properties: line.properties,
      })),
    };
    lines.length = 0;
    // The platform's part: the signed orders/paid webhook, to this server's own webhook route.
    const body = JSON.stringify(order);
    const delivered = await fetch(
      `http://${request.socket.localAddress?.includes(':') ? `[${request.socket.localAddress}]` : request.socket.localAddress}:${request.socket.localPort}/webhooks/orders`,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Shop-Topic': 'orders/paid',
          'X-Shop-Hmac-Sha256': createHmac('sha256', secrets.webhookSecret).update(body).digest('base64'),
        },
        body,
      },
    ).catch(() => null);
    // A platform delivers a refused webhook again later; the example only reports it in the order's id.
    if (delivered?.ok) options.onOrder?.(orderId);
    response.redirect(303, `/orders/${orderId}${langQuery(request)}`);
  });

  router.get('/orders/:id', (request, response) => {
    const { lang, words } = languageOf(request);
    const body = `<h1>${esc(words.thanks)}</h1><p>${esc(words.placed.replace('{id}', String(request.params.id).slice(0, 40)))}</p>
<p><a href="/${langQuery(request)}">${esc(words.continue)}</a></p>`;
    response.type('html').send(page(lang, words.thanks, body, words, 0, request));
  });

  return router;
}

/** `?lang=de`, `?lang=en-US`…: the page's language tag (the widget follows it), and the shop's words in it. */
function languageOf(request: Request): { lang: string; words: Words } {
  const asked = typeof request.query.lang === 'string' && /^[a-z]{2}(-[A-Z]{2})?$/.test(request.query.lang) ? request.query.lang : 'en';
  const language = asked.slice(0, 2);
  return Object.hasOwn(WORDS, language) ? { lang: asked, words: WORDS[language] ?? WORDS.en } : { lang: 'en', words: WORDS.en };
}

function langQuery(request: Request): string {
  const { lang } = languageOf(request);
  return lang === 'en' ? '' : `?lang=${lang}`;
}

function page(lang: string, title: string, body: string, words: Words, cartCount: number, request: Request): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · ${esc(words.shop)}</title>
<link rel="stylesheet" href="/storefront.css">
<script src="/size-fit/widget.js" defer></script>
<script src="/storefront.js" defer></script>
</head>
<body>
<header><a class="brand" href="/${langQuery(request)}">${esc(words.shop)}</a>
<a href="/cart${langQuery(request)}">${esc(words.cart)} (<span id="cart-count">${cartCount}</span>)</a></header>
<main>${body}</main>
</body>
</html>`;
}

/** A cart line's ids and cart property, for the page's script to report the checkout to the backend. */
function lineData(line: CartLine): string {
  const property = line.properties.find((p) => p.name === SESSION_PROPERTY)?.value;
  return `data-product="${esc(line.product.id)}" data-variant="${esc(line.variantId)}"${property === undefined ? '' : ` data-cart-property="${esc(property)}"`}`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
