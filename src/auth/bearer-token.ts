import { ProblemError } from '../common/problems/problem-error.js';
import { isWellFormedSecret } from '../common/crypto/key-secret.js';

/** What a request's `Authorization` header presents. */
type PresentedKey =
  | { readonly kind: 'none' }
  /** A secret of the right shape with a matching checksum: worth looking up. */
  | { readonly kind: 'key'; readonly secret: string }
  /** Anything else: no key of ours, refused without a lookup. */
  | { readonly kind: 'malformed' };

/** The token of an `Authorization` header read as passport-http-bearer reads it (`<scheme> <token>`, `Bearer` in any case). */
export function bearerToken(header: string | undefined): string | null {
  const parts = header?.split(' ');
  return parts?.length === 2 && /^bearer$/i.test(parts[0]) ? parts[1] : null;
}

/**
 * The header's token, if it may be a key of ours: its shape and checksum hold, so a mistyped or made-up key costs no
 * database lookup.
 */
export function presentedKey(header: string | undefined): PresentedKey {
  if (header === undefined) return { kind: 'none' };
  const token = bearerToken(header);
  if (token === null || !isWellFormedSecret(token)) return { kind: 'malformed' };
  return { kind: 'key', secret: token };
}

/** The one 401 of the API, whatever was wrong with the key: unknown, revoked, expired, malformed or missing. */
export function unauthenticated(): ProblemError {
  return new ProblemError('unauthenticated', 'A valid API key is required: Authorization: Bearer <API_KEY>', undefined, {
    'WWW-Authenticate': 'Bearer realm="size-fit"',
  });
}
