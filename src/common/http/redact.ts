import { CREDENTIAL_PARAMS, SECRET_LIKE } from '../crypto/key-secret.js';

/** With the OAuth callback's one-time code, its state and its signature: the console's callback URL carries them. */
const SENSITIVE_PARAMS = new Set([...CREDENTIAL_PARAMS, 'password', 'code', 'state', 'hmac']);
const REDACTED = '[REDACTED]';

/**
 * A URL fit for a log line: credentials pushed into it (refused by the API anyway) are blanked, in the path and the
 * query string, whether written plainly or percent-encoded.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const fragmentStart = url.indexOf('#');
  if (fragmentStart !== -1) {
    return `${redactUrl(url.slice(0, fragmentStart))}#${redactSecrets(safeDecode(url.slice(fragmentStart + 1)))}`;
  }
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? null : url.slice(queryStart + 1);
  const safePath = redactSecrets(blankShopperRef(path, safeDecode(path)));
  if (query === null) return safePath;
  const params = new URLSearchParams(query);
  const safeQuery = [...params]
    .map(([name, value]) => {
      const hidden = SENSITIVE_PARAMS.has(name.toLowerCase()) || redactSecrets(value) !== value;
      return `${redactSecrets(name)}=${hidden ? REDACTED : encodeURIComponent(value)}`;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

/** The text with anything shaped like one of our secrets blanked. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_LIKE, REDACTED);
}

/** A path that needs no decoding to be read: no escape, no `;`, no backslash, nothing outside ASCII. */
const PLAIN_PATH = /^[\w\-./~]*$/;
/** Separators between path segments, as a reader (or a lenient router) may take them. */
const SEPARATOR = /[/\\]/;

/**
 * A returning shopper's id, erased through its path (`DELETE …/shoppers/{shopper_ref}`), is never logged, however the
 * route is spelt: everything after a segment that reads as `shoppers` is blanked. A segment reads as `shoppers` once
 * percent-decoded (escapes of escapes too), cut at its first `;` (matrix parameters), `?` or `#`, in compatibility
 * form (`ſ`, full-width letters) and lower case, without invisible characters, surrounding white space or trailing
 * dots; empty segments (`//`) are only separators, and so is a backslash. Any other path is `decoded` as it was.
 */
function blankShopperRef(path: string, decoded: string): string {
  if (PLAIN_PATH.test(path) && !/shoppers/i.test(path)) return decoded;
  const text = decodeFully(decoded);
  let start = 0;
  for (const segment of text.split(SEPARATOR)) {
    const name = segment.split(/[;?#]/, 1)[0];
    if (readsAsShoppers(name)) {
      const nothingAfter = start + segment.length === text.length && name === segment;
      return nothingAfter ? decoded : `${text.slice(0, start)}${name}/${REDACTED}`;
    }
    start += segment.length + 1;
  }
  return decoded;
}

const readsAsShoppers = (name: string): boolean =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/^\s+|[\s.]+$/g, '') === 'shoppers';

/** The text decoded until no escape is left (an escape of an escape, `%2573`, decodes twice), at most four times. */
function decodeFully(text: string): string {
  let current = text;
  for (let round = 0; round < 4 && current.includes('%'); round++) {
    const next = safeDecode(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * The text percent-decoded. When it does not decode as a whole (an escape that is not UTF-8), its ASCII escapes are
 * still decoded one by one: a secret (ASCII) written with escapes beside a broken one is then seen, and blanked.
 */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}
