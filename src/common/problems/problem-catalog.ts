/**
 * Every error code the API can answer with: its status, its title and the page served at `/problems/{code}`.
 * Clients branch on `status` and `code`; both are stable.
 */
export const PROBLEMS = {
  invalid_json: {
    status: 400,
    title: 'Malformed JSON',
    description: 'The request body is not valid JSON, or is not a JSON object where one is expected.',
  },
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    description:
      'A field breaks a rule, a required field is missing, a field is unknown, or a query parameter is invalid. ' +
      '`errors` lists each offending field with a stable `code`: `required` for a field left out, `unknown_field` ' +
      'for one the route does not define, else the rule a value broke (`must_be_string`, `invalid_timestamp`…). ' +
      'Unknown fields are refused so that a typo never ' +
      'silently becomes a default. An API key sent anywhere but the Authorization header is refused here too.',
  },
  event_type_reserved: {
    status: 400,
    title: 'Event type reserved',
    description: 'The event type is recorded by the service itself and cannot be sent to the events endpoint.',
  },
  session_mismatch: {
    status: 400,
    title: 'Session does not fit the event',
    description:
      'The session named by the event belongs to another product of the store, or was created after the event. ' +
      'A session the store does not have is a `validation_failed` with the code `not_found` on `session_id`.',
  },
  unauthenticated: {
    status: 401,
    title: 'Unauthenticated',
    description: 'No API key was sent, or the key is unknown, revoked or expired. Send `Authorization: Bearer <API_KEY>`.',
  },
  invalid_signature: {
    status: 401,
    title: 'Invalid signature',
    description:
      'A platform notification whose `X-Shop-Hmac-Sha256` header is missing or is not the base64 HMAC-SHA256 of the ' +
      "body's bytes under the app's secret. Nothing of it was read or kept.",
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    description:
      'The key is valid but lacks the scope or credential level this route needs: for example a store-bound key ' +
      'where an unrestricted admin key is required, or a merchant key on an operator route.',
  },
  store_forbidden: {
    status: 403,
    title: 'Store forbidden',
    description: 'The key is bound to one store and the request names another store (whether or not it exists).',
  },
  cannot_revoke_self: {
    status: 403,
    title: 'Cannot revoke the calling key',
    description: 'A key cannot revoke itself. To rotate, create the replacement key first, then revoke the old one with it.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'The route or the resource does not exist, or belongs to another merchant.',
  },
  event_conflict: {
    status: 409,
    title: 'Event conflict',
    description: 'An event with the same source and external_id was already recorded with a different payload.',
  },
  session_state_conflict: {
    status: 409,
    title: 'Session state conflict',
    description: "The session's state does not allow this step (for example a second decision).",
  },
  experiment_state_conflict: {
    status: 409,
    title: 'Experiment state conflict',
    description:
      "The experiment's state does not allow this: only a draft is started or deleted, only a running experiment is " +
      'stopped, and arms and shares never change once it has run.',
  },
  experiment_overlap: {
    status: 409,
    title: 'Experiment overlap',
    description:
      'Another running experiment of the store covers some of these products: a product takes part in one running ' +
      'experiment at a time. Stop that one first, or narrow the products.',
  },
  experiment_holdout: {
    status: 409,
    title: 'Shopper in a holdout',
    description:
      'The shopper is in the holdout arm of a running experiment on this product: size help is not shown to her, so no ' +
      'session starts. Ask for her arm (`POST …/assignments`) when the product page is shown, and show no size help ' +
      'when it says `no_size_help`.',
  },
  duplicate: {
    status: 409,
    title: 'Duplicate',
    description: 'Another resource of this store already uses this external_id (or other unique value).',
  },
  idempotency_key_reused: {
    status: 409,
    title: 'Idempotency key reused',
    description:
      'The `Idempotency-Key` was used by this credential, within the last 24 hours, for a request with another path or ' +
      'body. A retry must repeat the request exactly; a new request needs a new key.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency key in use',
    description:
      'A request with this `Idempotency-Key` is still running. Retry after the number of seconds in `Retry-After`: ' +
      'you will then get its answer.',
  },
  in_use: {
    status: 409,
    title: 'In use',
    description:
      'The resource cannot be deleted while other resources refer to it: for example a product type or size chart ' +
      'that products use. Move or delete those first. (Products, charts, variants and questionnaires that sessions or ' +
      'events refer to are archived on delete instead.)',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The body is over the limit: 64 KiB for one object, 1 MiB for a batch.',
  },
  csrf_failed: {
    status: 403,
    title: 'Form refused',
    description:
      "A seller-console form arrived without its CSRF token, with another session's token, or from another site. " +
      'Reload the console page and send the form again.',
  },
  malformed_request: {
    status: 400,
    title: 'Malformed request',
    description: 'The request is not valid HTTP/1.1, so the service could not read it at all.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    description:
      'The request took too long to arrive: its headers over `HEADERS_TIMEOUT_MS` (10 s by default), or the whole request ' +
      'over `REQUEST_TIMEOUT_MS` (30 s). Send it again, faster.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request line and headers together are over 16 KiB. Long filters belong in fewer, shorter parameters.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description: 'A request with a body must send `Content-Type: application/json` (UTF-8).',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    description: 'Too many requests. Wait for the number of seconds in `Retry-After`.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'Something failed inside the service. Quote the request_id when reporting it.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    description:
      'The database is unreachable, or every connection to it stayed busy for 10 seconds (then with `Retry-After`). ' +
      'Retry later; no data was written by the failed request.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export function isProblemCode(value: string): value is ProblemCode {
  return Object.hasOwn(PROBLEMS, value);
}
