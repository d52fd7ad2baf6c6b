import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../../config/app.config.js';
import { redactUrl } from '../http/redact.js';
import { assignRequestId } from '../http/request-id.js';

/**
 * JSON logs with pino: one line per request, tagged with its Request-Id. Credentials never reach a log line:
 * the Authorization and Cookie headers are censored, secrets are censored wherever they sit in a logged object,
 * and credentials pushed into a URL are blanked.
 */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
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
      serializers: {
        req: (req: IncomingMessage & { id?: string; raw?: IncomingMessage }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    },
  };
}
