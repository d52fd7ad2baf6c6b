import type { Request } from 'express';
import type { ProblemError } from './problem-error.js';

/** Injection token of the one feature told of each problem answered. */
export const PROBLEM_OBSERVER = Symbol('PROBLEM_OBSERVER');

/**
 * A feature that keeps a record of refused requests (the console's status panel). The shared error filter tells it of
 * each problem it answers as problem+json, so that no request that succeeds pays for the record.
 */
export interface ProblemObserver {
  answered(request: Request, problem: ProblemError): void;
}
