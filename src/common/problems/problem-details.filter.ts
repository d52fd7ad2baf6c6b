import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PROBLEMS, type ProblemCode } from './problem-catalog.js';
import { type FieldError, ProblemError } from './problem-error.js';
import { isDatabaseUnavailable, isPoolWaitOver } from '../../database/database-errors.js';
import { redactSecrets } from '../http/redact.js';
import { INVALID_UTF8 } from '../http/json-body.js';
import { PROBLEM_OBSERVER, type ProblemObserver } from './problem-observer.js';
import { PROBLEM_PAGES, type ProblemPages } from './problem-pages.js';

/** The RFC 9457 body every 4xx/5xx answer carries. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: ProblemCode;
  request_id: string;
  errors?: readonly FieldError[];
  existing_id?: string;
}

const CODE_BY_STATUS: Readonly<Record<number, ProblemCode>> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'insufficient_scope',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * The one place where errors become HTTP answers. Known errors map to their stable code; anything unknown
 * becomes a 500 that reveals nothing (the full error goes to the log, tagged with the request id).
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(
    @Optional() @Inject(PROBLEM_PAGES) private readonly pages?: ProblemPages,
    @Optional() @Inject(PROBLEM_OBSERVER) private readonly observer?: ProblemObserver,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const problem = asProblem(exception);

    if (problem.code === 'internal_error') {
      this.logger.error({ err: exception, request_id: request.id }, 'unhandled error');
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    // An address of a feature with pages that reached none of its routes (a malformed URL, an unknown method).
    if (this.pages?.owns(request)) return this.pages.send(request, response, problem);
    this.observer?.answered(request, problem);
    for (const [name, value] of Object.entries(problem.headers ?? {})) response.setHeader(name, value);
    const body = problemBody(problem, String(request.id ?? ''));
    response.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
  }
}

/** Any error as the problem it answers with: known errors keep their code, anything else is `internal_error`. */
export function asProblem(exception: unknown): ProblemError {
  if (exception instanceof ProblemError) return exception;
  if (exception instanceof HttpException) return fromHttpException(exception);
  const bodyParserProblem = fromBodyParserError(exception);
  if (bodyParserProblem) return bodyParserProblem;
  if (isPoolWaitOver(exception)) {
    return new ProblemError(
      'unavailable',
      'Every database connection stayed busy while this request waited its turn; retry shortly',
      undefined,
      {
        'Retry-After': '1',
      },
    );
  }
  if (isDatabaseUnavailable(exception)) return new ProblemError('unavailable', 'The database is unreachable');
  return internalError();
}

/** The body of a problem answer; also what a batch reports for each refused item. */
export function problemBody(problem: ProblemError, requestId: string): ProblemBody {
  return {
    type: `/problems/${problem.code}`,
    title: PROBLEMS[problem.code].title,
    status: problem.status,
    // Details may quote the request (a path parameter, a field); a secret pushed there is never echoed back.
    ...(problem.detail ? { detail: redactSecrets(problem.detail) } : {}),
    code: problem.code,
    request_id: requestId,
    ...(problem.errors?.length
      ? {
          errors: problem.errors.map((error) => ({
            ...error,
            field: redactSecrets(error.field),
            message: redactSecrets(error.message),
          })),
        }
      : {}),
    ...(problem.existingId ? { existing_id: problem.existingId } : {}),
  };
}

const internalError = () =>
  new ProblemError('internal_error', 'Something failed inside the service; quote the request_id when reporting it');

function fromHttpException(exception: HttpException): ProblemError {
  const status = exception.getStatus();
  const code = CODE_BY_STATUS[status];
  if (status === 404) return new ProblemError('not_found', 'No such route');
  if (exception.cause instanceof URIError) {
    return new ProblemError('validation_failed', 'The URL is not valid percent-encoded UTF-8');
  }
  if (status === 429) {
    return new ProblemError('rate_limited', 'Too many requests');
  }
  if (code && status < 500) return new ProblemError(code, clientMessage(exception));
  if (code === 'unavailable') return new ProblemError('unavailable', 'The database is unreachable');
  if (status === 405) return new ProblemError('not_found', 'No such route');
  if (status >= 400 && status < 500) return new ProblemError('validation_failed', clientMessage(exception));
  return internalError();
}

/** Nest's own 4xx messages are safe to show; anything else is summarised by the code's title. */
function clientMessage(exception: HttpException): string | undefined {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('; ');
  return undefined;
}

/** Errors raised by Express's body parser carry a `type` and a status. */
function fromBodyParserError(exception: unknown): ProblemError | null {
  if (typeof exception !== 'object' || exception === null) return null;
  const { type, status } = exception as { type?: unknown; status?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return new ProblemError('invalid_json', 'The request body is not valid JSON');
    case INVALID_UTF8:
      return ProblemError.field('body', 'invalid_character', 'The request body must be valid UTF-8');
    case 'entity.too.large':
      return new ProblemError('payload_too_large', 'The request body is over the size limit');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ProblemError('unsupported_media_type', 'The request body must be UTF-8 JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ProblemError('validation_failed', 'The request body could not be read');
    default:
      if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500) {
        return new ProblemError('validation_failed', 'The request body could not be read');
      }
      // A body that does not inflate under its Content-Encoding: body-parser passes zlib's error on as a bare 400.
      if (
        status === 400 &&
        (exception as { expose?: unknown }).expose === true &&
        typeof (exception as { code?: unknown }).code === 'string'
      ) {
        return new ProblemError('validation_failed', 'The request body could not be decoded under its Content-Encoding');
      }
      return null;
  }
}
