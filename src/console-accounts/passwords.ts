import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords, hashed with scrypt from node:crypto. N = 2^cost, r = 8, p = 5; at the default cost of 14
 * (`PASSWORD_HASH_COST`) one of OWASP's equivalent settings (16 MiB and roughly 50 ms per hash on a server core). The
 * parameters are stored with each hash, so raising the cost later leaves existing hashes verifiable.
 */
const BLOCK_SIZE = 8;
const PARALLELISM = 5;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Room for the highest cost the configuration takes (16: 64 MiB); a stored hash asking for more never matches. */
const MAX_MEMORY = 128 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** The password's hash at `cost` (log2 of scrypt's N), with its parameters and salt. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const parameters = { N: 2 ** cost, r: BLOCK_SIZE, p: PARALLELISM };
  const hash = await derive(password, salt, KEY_LENGTH, parameters);
  return ['scrypt', parameters.N, parameters.r, parameters.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (![N, r, p].every(Number.isSafeInteger) || expected.length === 0) return false;
  try {
    return timingSafeEqual(await derive(password, salt, expected.length, { N, r, p }), expected);
  } catch {
    return false; // parameters scrypt refuses
  }
}

const dummies = new Map<number, Promise<string>>();

/**
 * A hash at `cost` to verify against when an email is unknown, so that a failed login takes the same time either way.
 */
export function dummyPasswordHash(cost: number): Promise<string> {
  let dummy = dummies.get(cost);
  if (dummy === undefined) {
    dummy = hashPassword(randomBytes(18).toString('base64'), cost);
    dummies.set(cost, dummy);
  }
  return dummy;
}

/** Code points, not UTF-16 units: an emoji is one character to the person typing it. */
export const passwordLength = (password: string): number => [...password].length;

function derive(password: string, salt: Buffer, length: number, cost: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { ...cost, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}
