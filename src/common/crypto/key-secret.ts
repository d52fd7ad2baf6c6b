import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key secrets: `<prefix>_<40 base62 chars><6-char base62 CRC32 checksum>`.
 * The fixed prefix and checksum let secret scanners find leaked keys with few false positives,
 * and let the service reject a mistyped key without touching the database.
 */
export const MERCHANT_KEY_PREFIX = 'sfk';
export const OPERATOR_KEY_PREFIX = 'sfo';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const SECRET_PATTERN = /^(sfk|sfo)_([0-9A-Za-z]{40})([0-9A-Za-z]{6})$/;

/** Length of the recognisable start of a secret that the service keeps and shows (e.g. `sfk_7Hq2`). */
export const DISPLAY_PREFIX_LENGTH = 8;

export function generateSecret(prefix: string = MERCHANT_KEY_PREFIX): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += BASE62[randomInt(BASE62.length)];
  return `${prefix}_${body}${checksum(body)}`;
}

/** True when the string has the shape of a secret and its checksum matches. */
export function isWellFormedSecret(secret: string, prefix?: string): boolean {
  const match = SECRET_PATTERN.exec(secret);
  if (!match) return false;
  if (prefix !== undefined && match[1] !== prefix) return false;
  return match[3] === checksum(match[2]);
}

/** The SHA-256 digest (hex) under which a secret is stored and looked up. */
export function digestSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Query or body names under which clients put keys. Keys there are refused, and blanked in logs. */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(['access_token', 'api_key', 'apikey', 'key', 'token', 'secret']);

/** Anything in a string that looks like one of our secrets, for scrubbing logs and URLs. */
export const SECRET_LIKE = /sf[ko]_[0-9A-Za-z]{8,}/g;

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
