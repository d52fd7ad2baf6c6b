/**
 * The two signatures the backend checks: its own (the shopper's cookie, the cart property that names a session),
 * and the platform's on each webhook. Every comparison is constant-time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const mac = (secret: string | Buffer, value: string | Buffer) => createHmac('sha256', secret).update(value).digest();

/** `value.signature`: the value stays readable, and cannot be changed without the secret. */
export function sign(secret: string, value: string): string {
  return `${value}.${mac(secret, value).toString('base64url')}`;
}

/** A short id derived from `value` under the secret: the same value gives the same id, and no one else can make it. */
export function derivedId(secret: string, value: string): string {
  return mac(secret, value).toString('base64url');
}

/** The signed value, or null when the signature does not match. */
export function verify(secret: string, token: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot < 0) return null;
  const value = token.slice(0, dot);
  return equal(mac(secret, value), Buffer.from(token.slice(dot + 1), 'base64url')) ? value : null;
}

/**
 * The platform's webhook signature: `X-Shop-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body (the bytes as
 * received, before any JSON parsing) under the secret shared with the platform.
 */
export function verifyWebhook(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  return equal(mac(secret, rawBody), Buffer.from(header, 'base64'));
}

/** Whether `given` is `expected` (a bearer token), compared in constant time whatever their lengths. */
export function sameToken(expected: string, given: string): boolean {
  const key = randomBytes(32);
  return timingSafeEqual(mac(key, expected), mac(key, given));
}

function equal(expected: Buffer, given: Buffer): boolean {
  // timingSafeEqual needs equal lengths; the length of an HMAC is no secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
