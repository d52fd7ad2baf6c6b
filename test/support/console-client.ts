import { afterAll, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { TestApp } from './app.js';

/**
 * A browser-like client of the seller console (docs/decisions/005-seller-console.md) over supertest, and readers of
 * the console's HTML hooks (/tmp/console-spec/hooks.md). Reusable by any console test: `signUp`/`logIn` give a signed-in
 * client, `csrfFrom` reads a form's token, `find`/`findAll` read elements by their attributes.
 */

// ———————————————————————————————————————— accounts ————————————————————————————————————————

/** A valid console password (12 to 256 characters, not the email). */
export const PASSWORD = 'correct horse battery staple';

/** A fresh email, unique across test runs. */
export const uniqueEmail = (label = 'console'): string => `${label}-${randomBytes(6).toString('hex')}@example.test`;

// ———————————————————————————————————————— reading HTML ————————————————————————————————————————

export interface Element {
  readonly tag: string;
  /** Attribute values, entity-decoded; a bare attribute (`hidden`) has the value ''. */
  readonly attrs: Readonly<Record<string, string>>;
  /** The markup between the start tag and the first matching end tag (elements of the console do not nest in themselves). */
  readonly inner: string;
  /** `inner` without tags, entity-decoded, whitespace collapsed. */
  readonly text: string;
}

/** `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;` and numeric references, as the console escapes them. */
export function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const VOID_ELEMENTS = new Set(['input', 'meta', 'link', 'br', 'img', 'hr']);

function parseAttributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of source.matchAll(/([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g)) {
    attrs[match[1].toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attrs;
}

/**
 * Every `<tag …>` whose attributes include `where`: a string is an exact value, `true` only asks for the attribute.
 * `tag` '*' matches any element.
 */
export function findAll(html: string, tag: string, where: Readonly<Record<string, string | true>> = {}): Element[] {
  const found: Element[] = [];
  const start = new RegExp(`<(${tag === '*' ? '[a-zA-Z][a-zA-Z0-9-]*' : tag})\\b((?:[^>"']|"[^"]*"|'[^']*')*)>`, 'gi');
  for (const match of html.matchAll(start)) {
    const name = match[1].toLowerCase();
    const attrs = parseAttributes(match[2]);
    const wanted = Object.entries(where).every(([key, value]) => (value === true ? key in attrs : attrs[key] === value));
    if (!wanted) continue;
    let inner = '';
    if (!VOID_ELEMENTS.has(name)) {
      const from = (match.index ?? 0) + match[0].length;
      const end = html.toLowerCase().indexOf(`</${name}>`, from);
      inner = end < 0 ? '' : html.slice(from, end);
    }
    found.push({ tag: name, attrs, inner, text: textOf(inner) });
  }
  return found;
}

/** The only element matching; fails the test when there are none or several. */
export function find(html: string, tag: string, where: Readonly<Record<string, string | true>> = {}): Element {
  const all = findAll(html, tag, where);
  if (all.length !== 1) {
    throw new Error(`expected exactly one <${tag}> with ${JSON.stringify(where)}, found ${all.length}`);
  }
  return all[0];
}

/** Visible text of a fragment of markup. */
export const textOf = (markup: string): string =>
  decodeEntities(markup.replace(/<script\b[\s\S]*?<\/script>/gi, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();

/** The `_csrf` value of the page's forms (they all carry the same one); fails when the page has none. */
export function csrfFrom(html: string): string {
  const values = [...new Set(findAll(html, 'input', { name: '_csrf' }).map((input) => input.attrs.value ?? ''))];
  if (values.length !== 1 || values[0] === '') throw new Error(`expected one _csrf token on the page, found ${JSON.stringify(values)}`);
  return values[0];
}

/** `data-error-code` of `<main>` on an error page; undefined on other pages. */
export const errorCode = (html: string): string | undefined =>
  findAll(html, 'main', { 'data-error-code': true })[0]?.attrs['data-error-code'];

/** The field errors of a form page: field → message. */
export function fieldErrors(html: string): Record<string, string> {
  return Object.fromEntries(
    findAll(html, 'p', { 'data-field': true })
      .filter(isFieldError)
      .map((p) => [p.attrs['data-field'], p.text]),
  );
}

const isFieldError = (p: Element): boolean => (p.attrs.class ?? '').split(/\s+/).includes('field-error');

/** The form-level error (`<p class="form-error" data-error-code>`), if any. */
export function formError(html: string): { code: string; text: string } | undefined {
  const p = findAll(html, 'p', { 'data-error-code': true }).find((el) => (el.attrs.class ?? '').split(/\s+/).includes('form-error'));
  return p && { code: p.attrs['data-error-code'], text: p.text };
}

/** Store ids linked from the stores list (`<a data-store-id>`). */
export const storeIds = (html: string): string[] => findAll(html, 'a', { 'data-store-id': true }).map((a) => a.attrs['data-store-id']);

export interface KeyRow {
  readonly id: string;
  readonly status: string;
  readonly text: string;
  /** The revoke form's action, for active keys. */
  readonly revokeAction: string | undefined;
}

/** The keys table of a store page (`<tr data-key-id data-status>`). */
export function keyRows(html: string): KeyRow[] {
  return findAll(html, 'tr', { 'data-key-id': true }).map((tr) => ({
    id: tr.attrs['data-key-id'],
    status: tr.attrs['data-status'],
    text: tr.text,
    revokeAction: findAll(tr.inner, 'form')
      .map((form) => form.attrs.action)
      .find((action) => action?.endsWith('/revoke')),
  }));
}

/** The secret on the key-creation page (`<code id="new-secret">`), if shown. */
export const newSecret = (html: string): string | undefined => findAll(html, 'code', { id: 'new-secret' })[0]?.text;

/** Anything shaped like a full merchant key secret. */
export const SECRET_IN_TEXT = /sfk_[0-9A-Za-z]{20,}/g;

// ———————————————————————————————————————— the client ————————————————————————————————————————

export type Form = Readonly<Record<string, string | readonly string[] | undefined>>;

/** `application/x-www-form-urlencoded` as a browser sends it: repeated names for several values. */
export function encodeForm(form: Form): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue;
    for (const item of typeof value === 'string' ? [value] : value) params.append(name, item);
  }
  return params.toString();
}

interface StoredCookie {
  value: string;
  path: string;
  secure: boolean;
}

/** A Set-Cookie header, read as a browser would. */
export interface SetCookie {
  readonly name: string;
  readonly value: string;
  /** Attribute names lower-cased → value ('' for flags). */
  readonly attributes: Readonly<Record<string, string>>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...rest] = header.split(';');
  const eq = pair.indexOf('=');
  const attributes: Record<string, string> = {};
  for (const part of rest) {
    const i = part.indexOf('=');
    const name = (i < 0 ? part : part.slice(0, i)).trim().toLowerCase();
    if (name) attributes[name] = i < 0 ? '' : part.slice(i + 1).trim();
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes };
}

/** The Set-Cookie headers of a response for one cookie name. */
export function setCookies(response: Response, name: string): SetCookie[] {
  return setCookieHeaders(response)
    .map(parseSetCookie)
    .filter((cookie) => cookie.name === name);
}

/** One answer the console gave, kept so tests can audit every page a client saw. */
export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly text: string;
}

/** Every answer any ConsoleClient received in this test file, in order. */
export const transcript: Seen[] = [];

export interface PostOptions {
  /** The `_csrf` field: by default the token of the last page seen; null sends none. */
  readonly csrf?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One browser: keeps the console's cookies (honouring Path and Secure over plain http, dropping cleared ones) and
 * the CSRF token of the last page it read. Requests go to `t.app.getHttpServer()` through supertest.
 */
export class ConsoleClient {
  private readonly jar = new Map<string, StoredCookie>();
  /** The `_csrf` token of the last page that had forms. */
  csrf: string | undefined;
  /** The answers this client received. */
  readonly seen: Seen[] = [];

  constructor(readonly t: TestApp) {}

  /** The value of a cookie this browser holds. */
  cookie(name: string): string | undefined {
    return this.jar.get(name)?.value;
  }

  /** Puts a cookie in this browser, e.g. one copied from another (a stolen session cookie). */
  setCookie(name: string, value: string, path = '/console'): void {
    this.jar.set(name, { value, path, secure: false });
  }

  dropCookie(name: string): void {
    this.jar.delete(name);
  }

  async get(path: string, headers: Readonly<Record<string, string>> = {}): Promise<Response> {
    let test = this.t.http().get(path);
    for (const [name, value] of Object.entries({ ...headers, ...this.cookieHeader(path) })) test = test.set(name, value);
    return this.received('GET', path, await test);
  }

  /** Posts a form, with the page's CSRF token unless told otherwise. */
  async post(path: string, form: Form = {}, options: PostOptions = {}): Promise<Response> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (options.csrf === undefined && csrf === undefined) throw new Error(`POST ${path}: no page with a CSRF token was read yet`);
    const body = encodeForm({ ...form, ...(csrf === null ? {} : { _csrf: csrf }) });
    return this.send(path, 'application/x-www-form-urlencoded', body, options.headers);
  }

  /** Posts any body with any content type, cookies included (for refusals of non-form bodies). */
  async send(path: string, contentType: string, body: string, headers: Readonly<Record<string, string>> = {}): Promise<Response> {
    let test = this.t.http().post(path);
    for (const [name, value] of Object.entries({ ...headers, ...this.cookieHeader(path), 'Content-Type': contentType }))
      test = test.set(name, value);
    return this.received('POST', path, await test.send(body));
  }

  /** GET a page and expect 200. */
  async page(path: string): Promise<Response> {
    const response = await this.get(path);
    if (response.status !== 200) {
      throw new Error(`GET ${path}: expected 200, got ${response.status} ${response.headers.location ?? errorCode(response.text) ?? ''}`);
    }
    return response;
  }

  /** Fills in the sign-up form (reading the form first when no token is known yet). */
  async submitSignUp(form: { admin_key: string; email: string; password: string }, options: PostOptions = {}): Promise<Response> {
    if (this.csrf === undefined && options.csrf === undefined) await this.page('/console/signup');
    return this.post('/console/signup', form, options);
  }

  /** Fills in the login form (reading the form first when no token is known yet). */
  async submitLogIn(form: { email: string; password: string }, options: PostOptions = {}): Promise<Response> {
    if (this.csrf === undefined && options.csrf === undefined) await this.page('/console/login');
    return this.post('/console/login', form, options);
  }

  async logOut(options: PostOptions = {}): Promise<Response> {
    return this.post('/console/logout', {}, options);
  }

  private cookieHeader(path: string): Record<string, string> {
    const pairs = [...this.jar.entries()]
      .filter(([, cookie]) => !cookie.secure && pathMatches(path, cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`);
    return pairs.length ? { Cookie: pairs.join('; ') } : {};
  }

  private received(method: string, path: string, response: Response): Response {
    for (const header of setCookieHeaders(response)) this.store(parseSetCookie(header), path);
    const text = response.text ?? '';
    if (/^text\/html/.test(String(response.headers['content-type'] ?? ''))) {
      const tokens = findAll(text, 'input', { name: '_csrf' });
      if (tokens.length) this.csrf = csrfFrom(text);
    }
    const seen = { method, path, status: response.status, headers: response.headers, text };
    this.seen.push(seen);
    transcript.push(seen);
    return response;
  }

  private store(cookie: SetCookie, requestPath: string): void {
    const maxAge = cookie.attributes['max-age'];
    const expires = cookie.attributes.expires;
    const expired = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) <= Date.now());
    if (expired || cookie.value === '') {
      this.jar.delete(cookie.name);
      return;
    }
    const path = cookie.attributes.path?.startsWith('/') ? cookie.attributes.path : defaultPath(requestPath);
    this.jar.set(cookie.name, { value: cookie.value, path, secure: 'secure' in cookie.attributes });
  }
}

function setCookieHeaders(response: Response): string[] {
  const raw = response.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

/** RFC 6265 §5.1.4. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  const path = requestPath.split('?')[0];
  if (path === cookiePath) return true;
  if (!path.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || path[cookiePath.length] === '/';
}

function defaultPath(requestPath: string): string {
  const path = requestPath.split('?')[0];
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

// ———————————————————————————————————————— signed-in clients ————————————————————————————————————————

/** 303 to `path` (the Location's path and query, ignoring any fragment). */
export function expectSeeOther(response: Response, path: string): void {
  const location = response.headers.location as string | undefined;
  const target = location === undefined ? undefined : new URL(location, 'http://console.invalid').pathname;
  expect({ status: response.status, location: target }).toEqual({ status: 303, location: path });
}

/** An account of the tenant's merchant, signed up with its unrestricted admin key: a client signed in and on /console. */
export async function signUp(
  t: TestApp,
  tenant: { admin: { secret: string } } | string,
  account: { email?: string; password?: string } = {},
): Promise<ConsoleClient & { email: string; password: string }> {
  const email = account.email ?? uniqueEmail();
  const password = account.password ?? PASSWORD;
  const client = new ConsoleClient(t);
  const adminKey = typeof tenant === 'string' ? tenant : tenant.admin.secret;
  const response = await client.submitSignUp({ admin_key: adminKey, email, password });
  if (response.status !== 303)
    throw new Error(`sign-up of ${email}: expected 303, got ${response.status} ${JSON.stringify(fieldErrors(response.text))}`);
  expectSeeOther(response, '/console');
  await client.page('/console'); // the session's CSRF token
  return Object.assign(client, { email, password });
}

/** A new browser logged in to an existing account: a client signed in and on /console. */
export async function logIn(t: TestApp, account: { email: string; password?: string }): Promise<ConsoleClient> {
  const client = new ConsoleClient(t);
  const response = await client.submitLogIn({ email: account.email, password: account.password ?? PASSWORD });
  if (response.status !== 303) throw new Error(`login of ${account.email}: expected 303, got ${response.status}`);
  expectSeeOther(response, '/console');
  await client.page('/console');
  return client;
}

// ———————————————————————————————————————— pages ————————————————————————————————————————

/** An HTML page with this status, never cached; the failure shows the page's error code and field errors. */
export function expectPage(response: Response, status: number): void {
  expect({ status: response.status, code: errorCode(response.text), fields: fieldErrors(response.text) }).toEqual(
    expect.objectContaining({ status }),
  );
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.headers['cache-control']).toMatch(/\bno-store\b/);
}

/** An error page: `<main data-error-code>` with this code and status. */
export function expectErrorPage(response: Response, status: number, code: string): void {
  expect({ status: response.status, code: errorCode(response.text) }).toEqual({ status, code });
  expectPage(response, status);
}

/** A 422 form page whose field errors name exactly these fields. */
export function expectFieldErrors(response: Response, fields: string[]): void {
  expect({ status: response.status, fields: Object.keys(fieldErrors(response.text)).sort() }).toEqual({
    status: 422,
    fields: [...fields].sort(),
  });
  expectPage(response, 422);
}

/** Nothing the client was answered — bodies, Location or any other header — contains one of these strings. */
export function expectNeverShown(client: ConsoleClient, ...secrets: string[]): void {
  expect(client.seen.length).toBeGreaterThan(0);
  const leaks = client.seen.flatMap((seen) => {
    const visible = [seen.text, ...Object.values(seen.headers).map(String)].join('\n');
    return secrets.filter((secret) => visible.includes(secret)).map((secret) => `${seen.method} ${seen.path} shows ${secret.slice(0, 8)}…`);
  });
  expect(leaks).toEqual([]);
}

// ———————————————————————————————————————— auditing every answer ————————————————————————————————————————

/** What is wrong with one answer: an sfk_ secret other than the one on a key-creation page, or a cacheable page. */
function answerProblems(seen: Seen): string[] {
  const where = `${seen.method} ${seen.path} ${seen.status}`;
  const creation = seen.method === 'POST' && /\/keys$/.test(seen.path) && seen.status === 201;
  const secrets = new Set(seen.text.match(SECRET_IN_TEXT) ?? []).size;
  const problems: string[] = [];
  if (secrets !== (creation ? 1 : 0)) {
    problems.push(`${where}: showed ${secrets} sfk_ secret(s), expected ${creation ? '1 (a key-creation page)' : 'none'}`);
  }
  if (/^text\/html/.test(String(seen.headers['content-type'] ?? '')) || seen.status === 303) {
    const cache = seen.headers['cache-control'];
    if (!/\bno-store\b/.test(String(cache ?? ''))) problems.push(`${where}: Cache-Control is ${JSON.stringify(cache)}, not no-store`);
  }
  return problems;
}

/**
 * After the enclosing `describe` block, checks every answer a ConsoleClient of this test file received so far
 * (`transcript`): an sfk_ secret appears only on a key-creation page (POST …/keys answered 201), exactly one there, and
 * every HTML page and 303 redirect is sent with Cache-Control: no-store. A problem fails the test file (an `afterAll`
 * that throws), listing each offending answer.
 */
export function auditConsoleAnswers(): void {
  afterAll(() => {
    const problems = transcript.flatMap(answerProblems);
    if (problems.length > 0) {
      throw new Error(
        `auditConsoleAnswers: ${problems.length} of the ${transcript.length} console answers of this file showed an sfk_ ` +
          `secret outside a key-creation page or could be cached:\n  ${problems.join('\n  ')}`,
      );
    }
  });
}
