import type { Request } from 'express';

/**
 * Where sign-in leads back to after a session ended: a page of this console, given as a path.
 * The value arrives in a query string and a form field, so anyone can write it: only a same-origin path under
 * /console/ that a browser cannot read as another host or another place is kept (no `//`, no backslash, no dot
 * segments, nothing percent-encoded that would decode to one of those, no control characters), else nothing.
 */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_LENGTH || !ALLOWED.test(value)) return null;
  const path = value.split('?', 1)[0];
  if (path.includes('//') || /%(?:2e|2f|5c|[01][0-9a-f]|7f)/i.test(path)) return null;
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  if (NOT_RETURNED_TO.some((page) => path === page || path.startsWith(`${page}/`))) return null;
  // what a browser would make of it must be this very path on this very origin
  const resolved = new URL(value, 'http://console.invalid');
  if (resolved.origin !== 'http://console.invalid' || resolved.pathname !== path) return null;
  return value;
}

/**
 * The page to come back to for a request that met the sign-in: the page itself for a GET; for a form, the page that
 * shows it (sending the form again after signing in would act on a guess of what the person still wants).
 */
export function returnPathOf(request: Request): string | null {
  if (request.method === 'GET' || request.method === 'HEAD') return safeReturnPath(request.originalUrl);
  const path = request.path;
  for (const [pattern, page] of FORM_PAGES) {
    const match = pattern.exec(path);
    if (match) return safeReturnPath(page(match));
  }
  return null;
}

/** The sign-in address, saying why it is shown (`ended`: a session cookie came but its session is over) and where next. */
export function logInAddress(options: { ended: boolean; back: string | null }): string {
  const query = new URLSearchParams();
  if (options.ended) query.set('ended', '1');
  if (options.back !== null && options.back !== '/console') query.set('return', options.back);
  const search = query.toString();
  return search ? `/console/login?${search}` : '/console/login';
}

/** The sign-up address, carrying where sign-in was to lead (a value safeReturnPath kept). */
export function signUpAddress(back: string | null): string {
  return back !== null && back !== '/console' ? `/console/signup?${new URLSearchParams({ return: back }).toString()}` : '/console/signup';
}

const MAX_LENGTH = 1024;
/** A path and query of URL characters only (RFC 3986 pchar, `/` and `?`), under /console/. */
const ALLOWED = /^\/console\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
/** Signing in, signing up and out, the platform's single-use callback, and files are no place to return to. */
const NOT_RETURNED_TO = ['/console/login', '/console/signup', '/console/logout', '/console/platform', '/console/assets'];
/** Each form's action → the page that shows the form. */
const FORM_PAGES: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray) => string]> = [
  [/^\/console\/stores\/([0-9a-f-]{36})\/(?:keys|platform)(?:\/.*)?$/, (match) => `/console/stores/${match[1]}`],
  [/^\/console\/stores\/([0-9a-f-]{36})\/experiments$/, (match) => `/console/stores/${match[1]}/experiments`],
  [
    /^\/console\/stores\/([0-9a-f-]{36})\/experiments\/([0-9a-f-]{36})\/(?:start|stop|delete)$/,
    (match) => `/console/stores/${match[1]}/experiments/${match[2]}`,
  ],
  [/^\/console\/access\/[^/]+\/remove$/, () => '/console/access'],
  [/^\/console\/password$/, () => '/console/password'],
];
