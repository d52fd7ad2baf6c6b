import { Injectable, type NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ProblemError } from '../problems/problem.error.js';

export const BODY_LIMIT = '64kb';
export const BATCH_BODY_LIMIT = '1mb';
/** Deeper than any request the API defines; deeper bodies would only exhaust the stack of later stages. */
export const MAX_BODY_DEPTH = 32;

const parseObject = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });
const parseBatch = express.json({ limit: BATCH_BODY_LIMIT, strict: true, type: () => true });

/** Names that would reach object prototypes; refused like any unknown field. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON bodies only: a body sent without `Content-Type: application/json` (UTF-8) is refused with 415, one over the
 * limit with 413 (64 KiB for one object, 1 MiB for a batch), malformed JSON with 400, and JSON the database or the
 * validators cannot take (NUL characters, absurd nesting, prototype keys) with 400 too. Running as Nest middleware,
 * its errors reach the problem-details filter like any other.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    if (!hasBody(request)) return next();
    if (!request.is('application/json')) {
      throw new ProblemError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      throw new ProblemError('unsupported_media_type', 'The body must be UTF-8 JSON');
    }
    const parse = request.path.endsWith('/batch') ? parseBatch : parseObject;
    await new Promise<void>((resolve, reject) =>
      parse(request, response, (error?: unknown) => (error ? reject(error) : resolve())),
    );
    assertStorable(request.body);
    next();
  }
}

/** True when the request carries a body (a length above zero, or chunks). */
export function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A UTF-16 surrogate without its pair: JSON can spell it (`"\ud800"`), UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One iterative walk over the parsed body (recursion is what deep nesting attacks). */
function assertStorable(body: unknown): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (pending.length) {
    const { value, path, depth } = pending.pop() as (typeof pending)[number];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) {
        throw ProblemError.field(path || 'body', 'invalid_character', `${path || 'body'} must not contain the NUL character`);
      }
      if (LONE_SURROGATE.test(value)) {
        // UTF-8 cannot hold it: stored, it would silently become U+FFFD.
        throw ProblemError.field(path || 'body', 'invalid_character', `${path || 'body'} must be valid Unicode text`);
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw ProblemError.field(path || 'body', 'too_deep', `the body nests deeper than ${MAX_BODY_DEPTH} levels`);
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!Array.isArray(value) && (FORBIDDEN_KEYS.has(key) || key.includes('\u0000'))) {
        throw ProblemError.field(childPath, 'unknown_field', `${childPath.replace(/\u0000/g, '\\u0000')} is not a known field`);
      }
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
}
