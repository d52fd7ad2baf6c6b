import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';

/** The signed-in browser's token. */
export const SESSION_COOKIE = 'sf_console';
/** Before sign-in: the anonymous token the login and sign-up forms' CSRF tokens derive from. */
export const ANONYMOUS_COOKIE = 'sf_csrf';
export const CSRF_FIELD = '_csrf';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** 256 random bits, base64url: a session token or an anonymous CSRF seed. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** The cookie's value when it has the shape of a token; anything else is as good as no cookie. */
export function readToken(request: Request, name: string): string | null {
  const value = parseCookie(request.headers.cookie ?? '')[name];
  return value !== undefined && TOKEN.test(value) ? value : null;
}

/** HttpOnly, SameSite=Lax (see docs/decisions/005-seller-console.md), scoped to the console, ending with the browser. */
export function setTokenCookie(response: Response, name: string, token: string, secure: boolean): void {
  response.cookie(name, token, cookieOptions(secure));
}

export function clearTokenCookie(response: Response, name: string, secure: boolean): void {
  response.clearCookie(name, cookieOptions(secure));
}

/**
 * The synchronizer token for forms: HMAC-SHA256 of a fixed label under the cookie's token. Another site can neither
 * read the cookie nor compute the token, and nothing needs storing beside the session.
 */
export const csrfToken = (cookieToken: string): string =>
  createHmac('sha256', cookieToken).update('size-fit console csrf').digest('base64url');

export function csrfMatches(cookieToken: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfToken(cookieToken));
  const actual = Buffer.from(sent);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const cookieOptions = (secure: boolean): CookieOptions => ({ httpOnly: true, sameSite: 'lax', path: '/console', secure });
