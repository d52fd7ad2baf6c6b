import { PROBLEMS, type ProblemCode } from './problem-catalog.js';

/** One offending field of a 400 answer. */
export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/**
 * A domain error with a stable code. Thrown anywhere; the global filter turns it into RFC 9457 problem details.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;

  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly errors?: readonly FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
    /** A 409 `duplicate`: the id of the resource that already holds the unique value. */
    readonly existingId?: string,
  ) {
    super(detail ?? PROBLEMS[code].title);
    this.status = PROBLEMS[code].status;
  }

  static validation(errors: readonly FieldError[], detail?: string): ProblemError {
    return new ProblemError('validation_failed', detail ?? errors.map((e) => e.message).join('; '), errors);
  }

  static field(field: string, code: string, message: string): ProblemError {
    return ProblemError.validation([{ field, code, message }], message);
  }

  static notFound(what = 'resource'): ProblemError {
    return new ProblemError('not_found', `No such ${what}`);
  }
}
