import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { type Logger as PinoInstance, symbols } from 'pino';
import { AppModule } from './app.module.js';
import { BoundedExpressAdapter } from './common/http/bounded-express-adapter.js';
import { requestLogging, serviceLogger } from './common/logging/logger-options.js';
import { setUpOpenApi } from './common/openapi/openapi.js';
import type { AppConfig } from './config/app.config.js';
import { openDatabase, type OpenOptions } from './database/database.js';
import { HOME_PAGE_POLICY, homePage } from './home-page.js';

/** Nest's own start-up lines (one per module, controller and route: over a hundred) are debug; info says what matters. */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

class StartUpQuietLogger implements LoggerService {
  constructor(private readonly logger: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) this.logger.debug?.(message, ...rest);
    else this.logger.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.logger.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.logger.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.logger.debug?.(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.logger.verbose?.(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.logger.fatal?.(message, ...rest);
  }
}

/** The pino logger of each application `createApp` built, for `logsWritten`. */
const serviceLoggers = new WeakMap<NestExpressApplication, PinoInstance>();

interface LogStream {
  destroyed: boolean;
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

/** The longest `logsWritten` waits for a log that cannot be written (a pipe no one reads). */
const LOGS_WRITTEN_WITHIN_MS = 2_000;

/**
 * Log lines are written asynchronously: ends the log and resolves once the lines logged so far are out, before the
 * process ends by a signal (which skips pino's own flush on 'exit'). `flush(callback)` would not do: it answers at
 * once, while the last line may still be on its way to a busy pipe. Standard output itself stays open.
 */
export function logsWritten(app: NestExpressApplication): Promise<void> {
  const logger = serviceLoggers.get(app);
  // pino's own stream (sonic-boom): end() writes out what is pending, then emits 'close'
  const stream = logger ? (logger as unknown as Record<symbol, LogStream>)[symbols.streamSym] : undefined;
  if (typeof stream?.end !== 'function' || stream.destroyed) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(done, LOGS_WRITTEN_WITHIN_MS);
    stream.once('close', () => {
      clearTimeout(timer);
      done();
    });
    stream.end();
  });
}

/** Writes `text` as is to where the logs go, after the lines logged so far. */
export function printAfterLogs(app: NestExpressApplication, text: string): void {
  const logger = serviceLoggers.get(app);
  if (logger) (logger as unknown as Record<symbol, NodeJS.WritableStream>)[symbols.streamSym].write(text);
  else process.stdout.write(text);
}

/**
 * Builds the service (database opened and migrated, every route wired) without listening. `main.ts` listens;
 * tests drive the same application through supertest.
 */
export async function createApp(config: AppConfig, database: OpenOptions = {}): Promise<NestExpressApplication> {
  const dataSource = await openDatabase(config, database);
  const logger = serviceLogger(config);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot(config, dataSource, logger),
      new BoundedExpressAdapter(config, logger),
      {
        bufferLogs: true,
        bodyParser: false,
        abortOnError: false,
      },
    );
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  serviceLoggers.set(app, logger);
  app.useLogger(new StartUpQuietLogger(app.get(Logger)));
  // First of all: every request is logged, whatever answers it.
  app.use(requestLogging(logger));
  app.disable('x-powered-by');
  // Every answer is no-store (the API, the console's pages) or immutable (its hashed assets): an ETag, a hash of
  // each body, would never be used.
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Behind a proxy the socket's address is the proxy's: rate limits and sign-in throttling need the client's.
  app.set('trust proxy', config.trustProxy);
  // HSTS makes browsers refuse the host and its subdomains over plain HTTP for a year: announced only when the
  // service is meant to be reached over HTTPS, never for a local or plain-HTTP address.
  const https = new URL(config.publicUrl).protocol === 'https:';
  const pages = helmet({ strictTransportSecurity: https });
  const apiHeaders = Object.entries({
    // API answers may carry secrets (a new key) or tenant data: no cache, shared or private, may keep them.
    'Cache-Control': 'no-store',
    // JSON is never a page: OWASP's headers for a REST API, fixed, instead of helmet's dozen for HTML.
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    ...(https ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  });
  // `GET /` is where a person who opens the service's address lands: the pages' headers, then the home page's policy.
  let home: string | undefined;
  const sendHome = (response: Response) => {
    home ??= homePage();
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('Content-Security-Policy', HOME_PAGE_POLICY);
    response.status(200).type('text/html; charset=utf-8').send(home);
  };
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (!request.path.startsWith('/v1/')) {
      const isHome = request.path === '/' && (request.method === 'GET' || request.method === 'HEAD');
      return pages(request, response, isHome ? () => sendHome(response) : next);
    }
    for (const [name, value] of apiHeaders) response.setHeader(name, value);
    next();
  });
  // No CORS: secret keys belong on the integrator's server, never in a browser.
  setUpOpenApi(app, config.publicUrl);
  await app.init();
  return app;
}
