import express, { type Request, type Response } from 'express';
import { ProblemError } from '../problems/problem-error.js';
import { hasBody } from './json-body.js';

/**
 * Console forms are small. The largest is a size chart: up to 50 sizes of a label and nine ranges (some 950 fields), or
 * the same as CSV text.
 */
const parseForm = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 1000, type: () => true });

/**
 * Reads an HTML form body (`application/x-www-form-urlencoded`, UTF-8) into `request.body`; anything else is refused
 * with 415. A request without a body gets an empty form.
 */
export async function readForm(request: Request, response: Response): Promise<void> {
  if (!hasBody(request)) {
    request.body = {};
    return;
  }
  if (!request.is('application/x-www-form-urlencoded')) {
    throw new ProblemError('unsupported_media_type', 'Console forms are sent as application/x-www-form-urlencoded');
  }
  await new Promise<void>((resolve, reject) => parseForm(request, response, (error?: unknown) => (error ? reject(error) : resolve())));
  for (const [name, value] of Object.entries(request.body as Record<string, string | string[]>)) {
    if (`${name}${value}`.includes('\u0000')) {
      throw ProblemError.field(name.replaceAll('\u0000', ''), 'invalid_character', 'Form fields must not contain the NUL character');
    }
  }
}
