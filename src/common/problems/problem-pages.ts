import type { Request, Response } from 'express';
import type { ProblemError } from './problem-error.js';

/** Injection token of the one feature that answers some addresses with pages rather than problem+json. */
export const PROBLEM_PAGES = Symbol('PROBLEM_PAGES');

/**
 * A feature whose addresses are answered with its own pages, even when the request reaches none of its routes (a
 * malformed URL, an unknown method). The console provides it, so the shared error filter knows no feature.
 */
export interface ProblemPages {
  owns(request: Request): boolean;
  send(request: Request, response: Response, problem: ProblemError): void;
}
