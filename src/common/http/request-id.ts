import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const REQUEST_ID_HEADER = 'Request-Id';
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The start of one of our keys: an id holding one would be logged and echoed, so it is replaced. */
const KEY_PREFIX = /sf[ko]_/i;

/**
 * Every response carries a `Request-Id`: the caller's own when it sent a sane one (short, plain, no key in it), else a
 * fresh one.
 * Used by the logger as its request id, so a log line and an error body can be matched.
 */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const existing = (request as { id?: unknown }).id;
  if (typeof existing === 'string') return existing;
  const sent = request.headers['request-id'];
  const id = typeof sent === 'string' && CALLER_REQUEST_ID.test(sent) && !KEY_PREFIX.test(sent) ? sent : randomUUID();
  (request as { id?: string }).id = id;
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
