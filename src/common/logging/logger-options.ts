import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { type Logger, pino } from 'pino';
import type { AppConfig } from '../../config/app.config.js';
import { redactUrl } from '../http/redact.js';
import { assignRequestId } from '../http/request-id.js';

/**
 * JSON logs with pino: one line per request, tagged with its Request-Id. Credentials never reach a log line:
 * the Authorization and Cookie headers are censored, secrets are censored wherever they sit in a logged object,
 * and credentials pushed into a URL are blanked.
 *
 * The service's own logs (Nest's `Logger`) go through nestjs-pino to this logger, but nestjs-pino does not mount its
 * request middleware (`forRoutes: []`): that middleware only keeps the request's child logger in an AsyncLocalStorage,
 * and on Node 20 an AsyncLocalStorage in use puts a hook on every promise, which cost a fifth of the CPU of recording
 * an event (docs/performance.md). Logs written while serving a request name its `request_id` themselves.
 */
export function serviceLogger(config: AppConfig): Logger {
  return pino({
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        'secret',
        'password',
        'access_token',
        'token',
        '*.secret',
        '*.password',
        '*.access_token',
        '*.token',
      ],
      censor: '[REDACTED]',
    },
    // A request or a response in a log line is these few fields, never its headers, body or socket.
    serializers: {
      req: (req: IncomingMessage & { id?: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.originalUrl ?? req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/**
 * The request log, mounted by `createApp` as the first middleware: once a request's answer is finished (or abandoned),
 * one line with its Request-Id (given here), method, URL (credentials blanked), status and the milliseconds it took;
 * at level error for a 5xx. pino-http writes the same line, but builds a child logger for every request first (its
 * bindings serialised and redacted, whatever is logged), which cost a tenth of an event's CPU (docs/performance.md).
 */
export function requestLogging(logger: Logger): Middleware {
  return (request, response, next) => {
    const started = Date.now();
    assignRequestId(request, response);
    const settled = (error?: Error): void => {
      response.removeListener('close', settled);
      response.removeListener('finish', settled);
      response.removeListener('error', settled);
      const failed = error !== undefined || response.statusCode >= 500;
      const level = failed ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const message = failed ? 'request errored' : response.writableFinished ? 'request completed' : 'request aborted';
      logger[level]({ req: request, res: response, responseTime: Date.now() - started, ...(error ? { err: error } : {}) }, message);
    };
    response.on('close', settled);
    response.on('finish', settled);
    response.on('error', settled);
    next();
  };
}

/** nestjs-pino over the service's logger: Nest's `Logger` writes there, and no request middleware of its own. */
export function loggerModuleParams(logger: Logger): Params {
  return { pinoHttp: { logger }, forRoutes: [] };
}
