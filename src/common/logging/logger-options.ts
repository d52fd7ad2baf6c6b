import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { LevelWithSilent } from 'pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import type { AppConfig } from '../../config/app.config.js';
import { redactUrl } from '../http/redact.js';
import { assignRequestId } from '../http/request-id.js';

/**
 * JSON logs with pino: one line per request, tagged with its Request-Id. Credentials never reach a log line:
 * the Authorization and Cookie headers are censored, secrets are censored wherever they sit in a logged object,
 * and credentials pushed into a URL are blanked.
 *
 * The request logger is pino-http, mounted by `createApp` as the first middleware. The service's own logs (Nest's
 * `Logger`) go through nestjs-pino to the same pino logger, but nestjs-pino does not mount its request middleware
 * (`forRoutes: []`): that middleware only keeps the request's child logger in an AsyncLocalStorage, and on Node 20
 * an AsyncLocalStorage in use puts a hook on every promise, which cost a fifth of the CPU of recording an event
 * (docs/performance.md). Logs written while serving a request name its `request_id` themselves.
 */
export function httpLogger(config: AppConfig): HttpLogger {
  return pinoHttp<IncomingMessage, ServerResponse, never>({
    level: config.logLevel,
    genReqId: assignRequestId,
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
    // The serializers get the request and the response themselves, not pino's generic copies of them (which read every
    // header, the parsed query and the socket's address for each request, only for these to pick three fields).
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.originalUrl ?? req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error): LevelWithSilent => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

/** nestjs-pino over the request logger's pino: Nest's `Logger` writes there, and no request middleware of its own. */
export function loggerModuleParams(logger: HttpLogger['logger']): Params {
  return { pinoHttp: { logger }, forRoutes: [] };
}
