import { isUtf8 } from 'node:buffer';
import { SetMetadata } from '@nestjs/common';
import express, { type Request, type Response } from 'express';
import { ProblemError } from '../problems/problem-error.js';

const BODY_LIMIT = '64kb';
const BATCH_BODY_LIMIT = '1mb';
/** Deeper than any request the API defines; deeper bodies would only exhaust the stack of later stages. */
const MAX_BODY_DEPTH = 32;
/**
 * The longest list the API takes (an import of 1,000 past order lines; twice a batch of 500 events): longer lists are
 * refused before anything reads them.
 */
export const MAX_ARRAY_ITEMS = 1_000;
/**
 * Values in one body, all levels together: a full batch of events holds under 10,000, a full import of past orders
 * about 13,000. Bounds the work any body can cause.
 */
const MAX_BODY_VALUES = 20_000;

/**
 * Marks the handlers that take a large body, a batch (of events, of past order lines: `items` names them in the 413
 * that asks for smaller batches): every other route gets the small limit.
 */
export const LARGE_BODY = 'size-fit:large-body';
export const LargeBody = (items: string) => SetMetadata(LARGE_BODY, items);

/** body-parser's error `type` for a body whose bytes are not UTF-8 (answered by problem-details.filter.ts). */
export const INVALID_UTF8 = 'entity.invalid.utf8';

/**
 * The bytes must be UTF-8 before they are decoded: the decoder would turn any that are not into U+FFFD, and the text
 * would be stored altered without anyone knowing.
 */
const verify = (_request: unknown, _response: unknown, bytes: Buffer): void => {
  if (!isUtf8(bytes)) throw Object.assign(new Error('The request body is not valid UTF-8'), { type: INVALID_UTF8 });
};

const parseObject = express.json({ limit: BODY_LIMIT, strict: true, type: () => true, verify });
const parseBatch = express.json({ limit: BATCH_BODY_LIMIT, strict: true, type: () => true, verify });

/** Names that would reach object prototypes; refused like any unknown field. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Reads a JSON body into `request.body`. Called by the access guard once the caller is authenticated and allowed the
 * route, so that nobody without a key gets a body read. A body sent without `Content-Type: application/json` (UTF-8)
 * is refused with 415, one over the limit with 413 (64 KiB, or 1 MiB for a `@LargeBody()` route), malformed JSON with
 * 400, and JSON the database or the validators cannot take (NUL characters, absurd nesting or length, prototype keys)
 * with 400 too.
 */
export async function readJson(request: Request, response: Response, large: string | undefined): Promise<void> {
  if (!hasBody(request)) return;
  if (!request.is('application/json')) {
    throw new ProblemError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new ProblemError('unsupported_media_type', 'The body must be UTF-8 JSON');
  }
  const parse = large === undefined ? parseObject : parseBatch;
  await new Promise<void>((resolve, reject) =>
    parse(request, response, (error?: unknown) => (error ? reject(tooLarge(error, large) ?? notAnObject(error) ?? error) : resolve())),
  );
  assertStorable(request.body);
}

/** An over-limit body's problem names the limit and the way under it, so the caller knows what to send instead. */
function tooLarge(error: unknown, large: string | undefined): ProblemError | null {
  if ((error as { type?: unknown } | null)?.type !== 'entity.too.large') return null;
  return new ProblemError(
    'payload_too_large',
    large === undefined
      ? 'The body is over 64 KiB, the limit of one request: shorten its fields'
      : `The body is over 1 MiB, the limit of a batch: send its ${large} in smaller batches`,
  );
}

/**
 * The strict parser refuses a top-level string, number, `true` or `null` as if it were malformed; it is JSON, only not
 * an object, and the answer says so.
 */
function notAnObject(error: unknown): ProblemError | null {
  const { type, body } = (error ?? {}) as { type?: unknown; body?: unknown };
  if (type !== 'entity.parse.failed' || typeof body !== 'string') return null;
  try {
    JSON.parse(body);
  } catch {
    return null;
  }
  return new ProblemError('invalid_json', 'The request body must be a JSON object');
}

/** True when the request carries a body (a length above zero, or chunks). */
export function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A UTF-16 surrogate without its pair: JSON can spell it (`"\ud800"`), UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A value met in the walk; its path is spelled out only to report an error. */
interface Visit {
  readonly value: unknown;
  readonly parent: Visit | null;
  readonly key: string;
  readonly depth: number;
}

/** `events[3].product_id`, from the chain of parents. */
function pathOf(visit: Visit): string {
  let path = '';
  for (let at: Visit | null = visit; at?.parent; at = at.parent) {
    path = Array.isArray(at.parent.value) ? `[${at.key}]${path}` : `${at.parent.parent ? '.' : ''}${at.key}${path}`;
  }
  return path || 'body';
}

/**
 * One iterative walk over the parsed body (recursion is what deep nesting attacks), bounded in depth, list length
 * and values in all, so that its cost never depends on how much an attacker packs into the size limit.
 */
function assertStorable(body: unknown): void {
  const pending: Visit[] = [{ value: body, parent: null, key: '', depth: 0 }];
  let values = 0;
  while (pending.length) {
    const visit = pending.pop() as Visit;
    const { value } = visit;
    if (++values > MAX_BODY_VALUES) {
      throw ProblemError.field('body', 'too_many_items', `the body holds more than ${MAX_BODY_VALUES} values`);
    }
    if (typeof value === 'string') {
      if (value.includes('\u0000')) {
        throw ProblemError.field(pathOf(visit), 'invalid_character', `${pathOf(visit)} must not contain the NUL character`);
      }
      if (LONE_SURROGATE.test(value)) {
        // UTF-8 cannot hold it: stored, it would silently become U+FFFD.
        throw ProblemError.field(pathOf(visit), 'invalid_character', `${pathOf(visit)} must be valid Unicode text`);
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (visit.depth >= MAX_BODY_DEPTH) {
      throw ProblemError.field(pathOf(visit), 'too_deep', `the body nests deeper than ${MAX_BODY_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_ITEMS) {
        throw ProblemError.field(pathOf(visit), 'too_many_items', `${pathOf(visit)} holds more than ${MAX_ARRAY_ITEMS} items`);
      }
      for (let i = 0; i < value.length; i++) pending.push({ value: value[i], parent: visit, key: String(i), depth: visit.depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const next: Visit = { value: child, parent: visit, key, depth: visit.depth + 1 };
      if (FORBIDDEN_KEYS.has(key) || key.includes('\u0000')) {
        const path = pathOf(next).replaceAll('\u0000', '\\u0000');
        throw ProblemError.field(path, 'unknown_field', `${path} is not a known field`);
      }
      pending.push(next);
    }
  }
}
