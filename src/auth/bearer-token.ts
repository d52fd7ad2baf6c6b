import { ProblemError } from '../common/problems/problem-error.js';
import { isWellFormedSecret } from './key-secret.js';

/** What a request's `Authorization` header presents. */
type PresentedKey =
  | { readonly kind: 'none' }
  /** A secret of the right shape with a matching checksum: worth looking up. */
  | { readonly kind: 'key'; readonly secret: string }
  /** Anything else: no key of ours, refused without a lookup. */
  | { readonly kind: 'malformed' };

/**
 * Reads the header as passport-http-bearer does (`<scheme> <token>`, the scheme `Bearer` in any case), then checks
 * the token's shape and checksum, so that a mistyped or made-up key costs no database lookup.
 */
export function presentedKey(header: string | undefined): PresentedKey {
  if (header === undefined) return { kind: 'none' };
  const parts = header.split(' ');
  if (parts.length !== 2 || !/^bearer$/i.test(parts[0]) || !isWellFormedSecret(parts[1])) return { kind: 'malformed' };
  return { kind: 'key', secret: parts[1] };
}

/** The one 401 of the API, whatever was wrong with the key: unknown, revoked, expired, malformed or missing. */
export function unauthenticated(): ProblemError {
  return new ProblemError('unauthenticated', 'A valid API key is required: Authorization: Bearer <API_KEY>', undefined, {
    'WWW-Authenticate': 'Bearer realm="size-fit"',
  });
}
