/**
 * An integrator's backend, in the small: the shop's server between the shopper's browser, the e-commerce platform
 * and Size-Fit. The Size-Fit key stays here (a store-bound key with the catalog, fit and events scopes); the browser
 * only ever talks to this server.
 *
 * For the browser (JSON in, JSON out; the widget in kit/widget calls these, the storefront's cart the last one):
 *   POST /fit/views                     { product } → 200 { size_help }, the widget's question before it shows itself
 *                                       (once per page view): the shopper's arm, and a `fit_viewed` event when shown
 *   POST /fit/sessions                  { product: "<platform product id>" } → 201 { session_id, questions, sizes },
 *                                       or 200 { size_help: false } for a shopper in an experiment's holdout
 *   POST /fit/sessions/:id/answers      { answers: { height: { value, unit }, … } } → 200 { session_id, recommendation }
 *   POST /fit/sessions/:id/decision     { size_label } → 200 { session_id, decision, variant_id, cart_property }
 *   POST /fit/cart-events               { type: "add_to_cart" | "checkout_started", product, variant, cart_property }
 *                                       → 204, that event for one cart line (Idempotency-Key: the same on a retry)
 * `sizes` are the chart's sizes, smallest first, each with the platform's variant id in that size; the
 * recommendation's alternatives each get the per-zone `fit` the chart gives them for the shopper's measurements
 * (the service answers it for the recommended size); `variant_id` of the decision is the platform's.
 * Starting a session adds its id to the `sf_fit` cookie (HttpOnly, SameSite=Strict, signed by this server): answers
 * and decisions are forwarded only for a session that cookie names, so a browser cannot act on another shopper's
 * session by guessing or copying its id. The decision answers a signed `cart_property` for the storefront to put on
 * the cart line, which the order webhook brings back: only a session this server handed out is linked to a purchase.
 * The cart's events take their session from that signed property too (a session id alone is refused 403): one line
 * per call, in a body of at most 2 KB, with an `external_id` this server derives from the call's Idempotency-Key
 * and line, so that a retried call is stored once.
 *
 * Experiments: the shopper is named by the platform's customer id (`shopperOf`), sent as `shopper_ref` when the page
 * asks for her arm, when her session starts, and with her purchases. A holdout shopper (`no_size_help`) is told
 * `size_help: false` and the widget hides itself; a session the service refuses as `experiment_holdout` (her arm not
 * asked for, or not answered) is answered the same, never as an error. A visitor the platform does not name gets size
 * help outside any experiment.
 *
 * For the platform:
 *   POST /webhooks/orders   (X-Shop-Topic, X-Shop-Hmac-Sha256 over the raw body) → 200 { events: [...] }
 * The signature is checked in constant time before anything else (401 otherwise); the order's lines become purchase,
 * return_requested and size_exchange events whose `source` and `external_id` come from the platform's ids, so a
 * webhook delivered twice is stored once; a purchase names the order's customer as `shopper_ref`. When Size-Fit
 * cannot be reached the answer is 503, and the platform delivers the webhook again later. A line of a product without
 * size help is skipped; a line whose variant has no Size-Fit variant with its id (even after the product's map is read
 * again) is logged, counted, and answered 503 after the order's other lines are sent, so that the platform delivers it
 * again once the catalog is fixed.
 *
 * For the merchant:
 *   GET /status   (Authorization: Bearer <statusToken>) → 200 { started_at, unmapped_lines: { since_start, recent } }
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import { createSizeFitClient, type EventRequest, type FetchFunction, type SizeFitClient, SizeFitProblem } from '../client/size-fit.js';
import { CatalogMap } from './catalog-map.js';
import { customerOf, type StorefrontOptions, storefront } from '../example-storefront/storefront.js';
import { alternativesFit } from './alternatives-fit.js';
import { derivedId, sameToken, sign, verify, verifyWebhook } from './signing.js';
import { isTopic, type LineOutcome, lineOutcomes, SESSION_PROPERTY, type Topic, WebhookPayloadError } from './webhooks.js';

export interface BackendConfig {
  readonly sizeFit: {
    readonly baseUrl: string;
    /** A key bound to `storeId` with the catalog, fit and events scopes. */
    readonly apiKey: string;
    readonly storeId: string;
    readonly fetch?: FetchFunction;
  };
  /** The secret the platform signs webhooks with. */
  readonly webhookSecret: string;
  /** This server's own secret, for the shopper's cookie and the cart property (32 random bytes or more). */
  readonly cookieSecret: string;
  /** `Secure` cookies: true behind https (the default); false only for local http. */
  readonly secureCookies?: boolean;
  /** The events' `source`: one name per sending integration. */
  readonly eventSource?: string;
  /** Serves the example storefront and the widget's script (kit/example-storefront). */
  readonly storefront?: StorefrontOptions;
  /** The bearer token of `GET /status`; without it that route is not served. */
  readonly statusToken?: string;
  /**
   * The shopper a browser's request comes from, as the platform names her: her customer id (pseudonymous, never an
   * email or a name), the one the order webhooks give as `customer.id`, so that her arm, her sessions and her
   * purchases name one shopper. Null when the platform does not know her: she is then in no experiment. Default: the
   * example storefront's customer (its signed `sf_customer` cookie), which plays the platform here.
   */
  readonly shopperOf?: (request: Request) => string | null;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

const COOKIE = 'sf_fit';
/** The sessions a browser keeps: the newest ones (a shopper sizing a few products). */
const SESSIONS_PER_BROWSER = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CART_EVENT_TYPES = ['add_to_cart', 'checkout_started'] as const;
/** As the service takes it: 1–255 printable ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;
/** The unmapped order lines `GET /status` lists: the latest ones. */
const RECENT_UNMAPPED = 10;

/** An order line that could not be sent: its product has size help, its variant no Size-Fit variant (platform ids). */
interface UnmappedLine {
  readonly at: string;
  readonly topic: Topic;
  readonly external_id: string;
  readonly order_id: string;
  readonly line_item_id: string;
  readonly product_id: string;
  readonly variant_id: string;
}

export function createBackend(config: BackendConfig): express.Express {
  const log = config.log ?? (() => undefined);
  const source = config.eventSource ?? 'shop-webhooks';
  const storeId = config.sizeFit.storeId;
  const sizeFit: SizeFitClient = createSizeFitClient({
    baseUrl: config.sizeFit.baseUrl,
    apiKey: config.sizeFit.apiKey,
    fetch: config.sizeFit.fetch,
  });
  const catalog = new CatalogMap(sizeFit, storeId);
  const shopperOf = config.shopperOf ?? ((request: Request) => customerOf(request, config.cookieSecret));
  /** The shopper's id as the service takes it, or null (none, or not one it would take). */
  const shopperRef = (request: Request): string | null => {
    const shopper = shopperOf(request);
    return shopper !== null && shopper.length > 0 && shopper.length <= 200 ? shopper : null;
  };
  const inStore = { store_id: storeId };
  const startedAt = new Date().toISOString();
  let unmappedSinceStart = 0;
  const recentUnmapped: UnmappedLine[] = [];

  const app = express();
  app.disable('x-powered-by');

  // ---- the shopper's browser ----------------------------------------------------------------------------------

  const fit = express.Router();
  const json = express.json({ limit: '16kb' });
  const cartJson = express.json({ limit: '2kb' }); // one cart line
  fit.use((request: Request, response: Response, next: NextFunction) =>
    (request.path === '/cart-events' ? cartJson : json)(request, response, next),
  );
  // JSON only: a cross-site form cannot send it without a CORS preflight, which this server never grants.
  fit.use((request: Request, response: Response, next: NextFunction) => {
    if (request.method === 'POST' && !request.is('application/json')) return void response.status(415).json({ error: 'json_required' });
    next();
  });

  const ownSessions = (request: Request): string[] => {
    const token = parseCookie(request.headers.cookie ?? '')[COOKIE];
    const value = token === undefined ? null : verify(config.cookieSecret, token);
    return value ? value.split(',').filter((id) => UUID.test(id)) : [];
  };
  /** The session named in the path, if this browser started it; else answers 403 and gives null. */
  const ownSession = (request: Request, response: Response): string | null => {
    const sessionId = request.params.id;
    if (typeof sessionId === 'string' && ownSessions(request).includes(sessionId)) return sessionId;
    response.status(403).json({ error: 'not_your_session' });
    return null;
  };

  /** The product the body names, or null once the answer (400, 404) is sent. */
  const productOf = async (request: Request, response: Response) => {
    const product: unknown = request.body?.product;
    if (typeof product !== 'string' || product.length === 0 || product.length > 255) {
      response.status(400).json({ error: 'invalid_request', field: 'product' });
      return null;
    }
    const found = await catalog.product(product);
    if (found === null) response.status(404).json({ error: 'no_size_help_for_product' });
    return found;
  };

  // The widget asks before it shows itself on a product page, once per page view: the page is where an experiment
  // exposes the shopper, and a holdout gets no size help entry point (nor a `fit_viewed`, since nothing is shown).
  // Should her arm not come, size help is shown: the service still refuses a holdout's session.
  fit.post('/views', async (request: Request, response: Response) => {
    const found = await productOf(request, response);
    if (found === null) return;
    const shopper = shopperRef(request);
    if (shopper !== null) {
      const treatment = await sizeFit.assign(storeId, { shopper_ref: shopper, product_id: found.id }).then(
        (assignment) => assignment.treatment,
        (error: unknown) => {
          log('arm not read, size help shown', { error: error instanceof Error ? error.message : String(error) });
          return 'size_help' as const;
        },
      );
      if (treatment === 'no_size_help') return void response.json({ size_help: false });
    }
    const [result] = await sizeFit.sendEvents(storeId, [
      {
        source,
        external_id: `fit_viewed:${randomUUID()}`,
        type: 'fit_viewed',
        product_id: found.id,
        occurred_at: new Date().toISOString(),
      },
    ]);
    if (result !== undefined && result.status >= 400) log('event refused', { type: 'fit_viewed', code: result.error?.code });
    response.json({ size_help: true });
  });

  fit.post('/sessions', async (request: Request, response: Response) => {
    const found = await productOf(request, response);
    if (found === null) return;
    const shopper = shopperRef(request);
    const session = await sizeFit
      .POST('/v1/stores/{store_id}/sessions', {
        params: { path: inStore },
        body: { product_id: found.id, shopper_ref: shopper ?? undefined },
      })
      .catch((error: unknown) => {
        if (error instanceof SizeFitProblem && error.code === 'experiment_holdout') return null;
        throw error;
      });
    // A holdout shopper whose page showed size help all the same: the widget hides itself, as her page should have.
    if (session === null) return void response.json({ size_help: false });
    const sessions = [...ownSessions(request), session.id].slice(-SESSIONS_PER_BROWSER);
    response.setHeader(
      'Set-Cookie',
      stringifySetCookie({
        name: COOKIE,
        value: sign(config.cookieSecret, sessions.join(',')),
        httpOnly: true,
        secure: config.secureCookies ?? true,
        sameSite: 'strict',
        path: '/fit',
        maxAge: 7 * 24 * 3600,
      }),
    );
    response.status(201).json({
      session_id: session.id,
      questions: session.questions,
      sizes: found.sizes.map((size) => ({ label: size.label, variant_id: size.platformVariantId })),
    });
  });

  fit.post('/sessions/:id/answers', async (request: Request, response: Response) => {
    const sessionId = ownSession(request, response);
    if (sessionId === null) return;
    const answers: unknown = request.body?.answers;
    if (!isAnswers(answers)) return void response.status(400).json({ error: 'invalid_request', field: 'answers' });
    const session = await sizeFit.POST('/v1/stores/{store_id}/sessions/{id}/answers', {
      params: { path: { ...inStore, id: sessionId } },
      body: { answers },
    });
    const recommendation = session.recommendation;
    const product = await catalog.productById(session.product_id);
    response.json({
      session_id: session.id,
      recommendation:
        recommendation && product ? { ...recommendation, alternatives: alternativesFit(recommendation, product.sizes) } : recommendation,
    });
  });

  fit.post('/sessions/:id/decision', async (request: Request, response: Response) => {
    const sessionId = ownSession(request, response);
    if (sessionId === null) return;
    const sizeLabel: unknown = request.body?.size_label;
    if (typeof sizeLabel !== 'string' || sizeLabel.length === 0 || sizeLabel.length > 50)
      return void response.status(400).json({ error: 'invalid_request', field: 'size_label' });
    const session = await sizeFit.POST('/v1/stores/{store_id}/sessions/{id}/decision', {
      params: { path: { ...inStore, id: sessionId } },
      body: { size_label: sizeLabel },
    });
    const product = await catalog.productById(session.product_id);
    response.json({
      session_id: session.id,
      decision: session.decision,
      variant_id: product?.sizes.find((size) => size.label === session.decision?.size_label)?.platformVariantId ?? null,
      // For the storefront's add-to-cart: the order webhook brings it back, and it names this session only.
      cart_property: { name: SESSION_PROPERTY, value: sign(config.cookieSecret, `session:${session.id}`) },
    });
  });

  // The storefront's cart: a line added, a checkout started (one call per line). The session is the one the line's
  // cart property names when this server signed it, never an id the browser names; the product and variant are
  // mapped from the platform's ids; the external_id is derived from the call's Idempotency-Key and line, so that a
  // retried call is stored once (its `occurred_at` differs, which the service answers 409: stored already).
  fit.post('/cart-events', async (request: Request, response: Response) => {
    const line = cartLine(request.body, request.get('Idempotency-Key'));
    if (typeof line === 'string') return void response.status(400).json({ error: 'invalid_request', field: line });
    const sessionId = line.cartProperty === null ? null : sessionOf(line.cartProperty);
    if (line.cartProperty !== null && sessionId === null) return void response.status(403).json({ error: 'not_your_session' });
    const product = await catalog.product(line.product);
    // A product without size help: nothing to count (the storefront may report every line).
    if (product === null) return void response.status(204).end();
    const call = line.key === null ? randomUUID() : derivedId(config.cookieSecret, JSON.stringify([line, sessionId]));
    const event: EventRequest = {
      source,
      external_id: `${line.type}:${call}`,
      type: line.type,
      product_id: product.id,
      variant_id: line.variant === null ? null : (product.variants.get(line.variant) ?? null),
      session_id: sessionId,
      occurred_at: new Date().toISOString(),
    };
    let [result] = await sizeFit.sendEvents(storeId, [event]);
    // A session of another product (a property moved to another line): the event counts, unassisted.
    if (result?.error?.code === 'session_mismatch') [result] = await sizeFit.sendEvents(storeId, [{ ...event, session_id: null }]);
    const retried = result?.error?.code === 'event_conflict' && (result.error.errors ?? []).every((error) => error.field === 'occurred_at');
    if (result !== undefined && result.status >= 400 && !retried) log('event refused', { type: line.type, code: result.error?.code });
    response.status(204).end();
  });

  // Size-Fit's answers, as much as a browser needs: its field errors (the shopper's input), a state conflict; never
  // the key, the request's details or an internal status.
  fit.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    if (!(error instanceof SizeFitProblem)) return next(error);
    log('size-fit refused a shopper request', { status: error.status, code: error.code, request_id: error.request_id });
    if (error.status === 400) return void response.status(400).json({ error: 'invalid_answers', errors: error.errors });
    if (error.status === 404) return void response.status(404).json({ error: 'not_found' });
    if (error.code === 'session_state_conflict') return void response.status(409).json({ error: 'session_already_decided' });
    response.status(502).json({ error: 'size_help_unavailable' });
  });
  app.use('/fit', fit);

  // The merchant's view of what the webhooks could not send; the platform's ids only, never a secret.
  app.get('/status', (request: Request, response: Response) => {
    if (config.statusToken === undefined) return void response.status(404).json({ error: 'not_found' });
    const given = /^Bearer (\S+)$/.exec(request.get('Authorization') ?? '')?.[1];
    if (given === undefined || !sameToken(config.statusToken, given)) return void response.status(401).json({ error: 'unauthorized' });
    response.setHeader('Cache-Control', 'no-store');
    response.json({ started_at: startedAt, unmapped_lines: { since_start: unmappedSinceStart, recent: recentUnmapped } });
  });
  if (config.storefront)
    app.use(
      storefront(config.storefront, {
        cookieSecret: config.cookieSecret,
        webhookSecret: config.webhookSecret,
        secureCookies: config.secureCookies ?? true,
      }),
    );

  // ---- the platform's webhooks --------------------------------------------------------------------------------

  app.post('/webhooks/orders', express.raw({ type: () => true, limit: '1mb' }), async (request: Request, response: Response) => {
    const raw: unknown = request.body;
    const body = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
    if (!verifyWebhook(config.webhookSecret, body, request.get('X-Shop-Hmac-Sha256'))) {
      log('webhook refused: bad signature');
      return void response.status(401).json({ error: 'bad_signature' });
    }
    const topic = request.get('X-Shop-Topic');
    // Other topics are acknowledged, so that the platform does not deliver them again.
    if (!isTopic(topic)) return void response.json({ events: [] });
    let outcomes: LineOutcome[];
    try {
      outcomes = lineOutcomes(topic, JSON.parse(body.toString('utf8')));
    } catch (error) {
      if (!(error instanceof WebhookPayloadError || error instanceof SyntaxError)) throw error;
      log('webhook refused: unreadable payload', { topic, reason: error.message });
      return void response.status(400).json({ error: 'unreadable_payload' });
    }
    const events = await forward(topic, outcomes);
    // A line lost to the metrics and to learning is not acknowledged: the platform delivers the webhook again, and
    // once the catalog names the variant, that delivery sends the line (the others come back as duplicates, 200).
    if (events.some((event) => event.status === 'unmapped')) return void response.status(503).json({ error: 'lines_not_mapped', events });
    response.json({ events });
  });

  /**
   * The outcomes as events, sent in batches; a session the service does not accept is left off, not the sale. A line
   * of a product without size help is skipped; a line whose variant the product's map lacks, even read again, is
   * `unmapped`: logged and counted for `GET /status`.
   */
  async function forward(
    topic: Topic,
    outcomes: readonly LineOutcome[],
  ): Promise<Array<{ external_id: string; status: number | 'skipped' | 'unmapped' }>> {
    const events: EventRequest[] = [];
    const skipped = new Set<string>();
    const unmapped = new Set<string>();
    const refreshed = new Set<string>();
    for (const outcome of outcomes) {
      let product = await catalog.product(outcome.productId);
      // A variant added, or given its external_id, after the map was cached: read the product again, once per webhook.
      if (product !== null && !product.variants.has(outcome.variantId) && !refreshed.has(outcome.productId)) {
        refreshed.add(outcome.productId);
        product = await catalog.refresh(outcome.productId);
      }
      if (product === null) {
        skipped.add(outcome.externalId); // not a product with size help
        continue;
      }
      const variantId = product.variants.get(outcome.variantId);
      if (variantId === undefined) {
        unmapped.add(outcome.externalId);
        noteUnmapped(topic, outcome);
        continue;
      }
      events.push({
        source,
        external_id: outcome.externalId,
        type: outcome.type,
        product_id: product.id,
        variant_id: variantId,
        session_id: sessionOf(outcome.sessionToken),
        // The order's customer, as her arm was asked for: an experiment counts her purchases, the holdout's too.
        ...(outcome.type === 'purchase' && outcome.customerId !== null ? { shopper_ref: outcome.customerId } : {}),
        order_id: outcome.orderId,
        line_item_id: outcome.lineItemId,
        quantity: outcome.quantity,
        reason: outcome.reason,
        occurred_at: outcome.occurredAt,
      });
    }
    const results = await sizeFit.sendEvents(storeId, events);
    // A session of another product, or started after the order (a cart property copied around): the purchase
    // still counts, unassisted. The first attempt was refused, so its external_id is still free.
    const unlinked = events
      .filter((event, index) => results[index]?.error?.code === 'session_mismatch')
      .map((event) => ({ ...event, session_id: null }));
    const retried = new Map((await sizeFit.sendEvents(storeId, unlinked)).map((result, index) => [unlinked[index]?.external_id, result]));
    const statuses = new Map<string, number>();
    events.forEach((event, index) => {
      const result = retried.get(event.external_id) ?? results[index];
      if (result === undefined) return;
      statuses.set(event.external_id, result.status);
      if (result.status >= 400)
        log('event refused', { external_id: event.external_id, code: result.error?.code, detail: result.error?.detail });
    });
    return outcomes.map((outcome) => ({
      external_id: outcome.externalId,
      status: unmapped.has(outcome.externalId)
        ? 'unmapped'
        : skipped.has(outcome.externalId)
          ? 'skipped'
          : (statuses.get(outcome.externalId) ?? 'skipped'),
    }));
  }

  function noteUnmapped(topic: Topic, outcome: LineOutcome): void {
    const line: UnmappedLine = {
      at: new Date().toISOString(),
      topic,
      external_id: outcome.externalId,
      order_id: outcome.orderId,
      line_item_id: outcome.lineItemId,
      product_id: outcome.productId,
      variant_id: outcome.variantId,
    };
    unmappedSinceStart += 1;
    const earlier = recentUnmapped.findIndex((recent) => recent.external_id === line.external_id);
    if (earlier >= 0) recentUnmapped.splice(earlier, 1);
    recentUnmapped.unshift(line);
    recentUnmapped.splice(RECENT_UNMAPPED);
    log('order line not sent: no Size-Fit variant has its variant id as external_id; answering 503 so that it is delivered again', {
      level: 'warning',
      ...line,
    });
  }

  /** The session a cart property names, when this server signed it. */
  function sessionOf(token: string | null): string | null {
    const value = token === null ? null : verify(config.cookieSecret, token);
    const sessionId = value?.startsWith('session:') ? value.slice('session:'.length) : null;
    return sessionId !== null && UUID.test(sessionId) ? sessionId : null;
  }

  // Anything else (Size-Fit unreachable after the client's retries, a bug): the platform retries a webhook on 5xx.
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    const status = clientErrorStatus(error);
    if (status !== null) return void response.status(status).json({ error: status === 413 ? 'body_too_large' : 'unreadable_body' });
    log('request failed', { path: request.path, error: error instanceof Error ? error.message : String(error) });
    response.status(503).json({ error: 'try_again_later' });
  });
  return app;
}

type Answer = { value: number; unit: 'cm' | 'in' | 'kg' | 'lb'; method?: 'tape' | 'bra_size' } | number | string | boolean;

/** The shape the answers route takes; Size-Fit judges the values (and answers each field's error). */
function isAnswers(value: unknown): value is Record<string, Answer> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (answer) =>
      typeof answer === 'number' ||
      typeof answer === 'string' ||
      typeof answer === 'boolean' ||
      (typeof answer === 'object' &&
        answer !== null &&
        'value' in answer &&
        typeof answer.value === 'number' &&
        'unit' in answer &&
        (answer.unit === 'cm' || answer.unit === 'in' || answer.unit === 'kg' || answer.unit === 'lb') &&
        (!('method' in answer) || answer.method === 'tape' || answer.method === 'bra_size')),
  );
}

interface CartLine {
  readonly type: (typeof CART_EVENT_TYPES)[number];
  /** The platform's ids. */
  readonly product: string;
  readonly variant: string | null;
  /** The value of the line's `_size_fit_session` property, not yet verified. */
  readonly cartProperty: string | null;
  readonly key: string | null;
}

/** The one cart line a call reports, or the name of the first field that is not as the route takes it. */
function cartLine(body: unknown, key: string | undefined): CartLine | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body';
  const field = (name: string): unknown => Object.getOwnPropertyDescriptor(body, name)?.value;
  const type = CART_EVENT_TYPES.find((known) => known === field('type'));
  if (type === undefined) return 'type';
  const product = field('product');
  if (!isId(product)) return 'product';
  const variant = field('variant') ?? null;
  if (variant !== null && !isId(variant)) return 'variant';
  const property = field('cart_property') ?? null;
  let cartProperty: string | null = null;
  if (property !== null) {
    if (typeof property !== 'object' || !('name' in property) || property.name !== SESSION_PROPERTY) return 'cart_property';
    if (!('value' in property) || typeof property.value !== 'string' || property.value.length > 300) return 'cart_property';
    cartProperty = property.value;
  }
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) return 'Idempotency-Key';
  return { type, product, variant, cartProperty, key: key ?? null };
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 255;
}

/** The status of a request the body parser refused (too large, not JSON), or null for any other error. */
function clientErrorStatus(error: unknown): number | null {
  if (!(error instanceof Error) || !('status' in error) || typeof error.status !== 'number') return null;
  return error.status >= 400 && error.status < 500 ? error.status : null;
}
