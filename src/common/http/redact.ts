import { CREDENTIAL_PARAMS, SECRET_LIKE } from '../../auth/key-secret.js';

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
  // a returning shopper's id, erased through its path (DELETE …/shoppers/{shopper_ref}), is never logged
  const safePath = redactSecrets(safeDecode(path)).replace(/\/shoppers\/.+$/, `/shoppers/${REDACTED}`);
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
