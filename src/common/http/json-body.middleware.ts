import { Injectable, type NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ProblemError } from '../problems/problem.error.js';

export const BODY_LIMIT = '64kb';
export const BATCH_BODY_LIMIT = '1mb';

const parseObject = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });
const parseBatch = express.json({ limit: BATCH_BODY_LIMIT, strict: true, type: () => true });

/**
 * JSON bodies only: a body sent without `Content-Type: application/json` is refused with 415, one over the limit
 * with 413 (64 KiB for one object, 1 MiB for a batch), malformed JSON with 400. Running it as Nest middleware makes
 * its errors reach the problem-details filter like any other.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    if (!hasBody(request)) return next();
    if (!request.is('application/json')) {
      throw new ProblemError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    }
    const parse = request.path.endsWith('/batch') ? parseBatch : parseObject;
    await new Promise<void>((resolve, reject) => parse(request, response, (error?: unknown) => (error ? reject(error) : resolve())));
    next();
  }
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
