import { SECRET_LIKE } from '../../auth/key-secret.js';

const SENSITIVE_QUERY = /([?&](?:access_token|api_key|apikey|key|token|secret)=)[^&#]*/gi;

/** A URL fit for a log line: credentials in the query string (refused by the API anyway) are blanked. */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(SENSITIVE_QUERY, '$1[REDACTED]').replace(SECRET_LIKE, '[REDACTED]');
}
