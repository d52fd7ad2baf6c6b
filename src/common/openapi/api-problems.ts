import { ApiExtension } from '@nestjs/swagger';
import type { ProblemCode } from '../problems/problem-catalog.js';

/** A problem an operation answers with, and when: the catalog gives its status. */
export interface ProblemCase {
  readonly code: ProblemCode;
  readonly when: string;
}

/** The extension that carries a route's own problems until `setUpOpenApi` files them under their statuses. */
export const PROBLEMS_EXTENSION = 'x-problems' as const;

/**
 * The problems a route answers beyond the ones every /v1 route gives (401, 429, 500, 503, a bad query) and the ones
 * every route with a body gives (`invalid_json`, `validation_failed`, 413, 415): a 404 for its own resource, a 409,
 * a route-specific 400 or 403. The document then lists each code under its status, with an example of each.
 */
export const ApiProblems = (...cases: ProblemCase[]) => ApiExtension(PROBLEMS_EXTENSION, cases);
