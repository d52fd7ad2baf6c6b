import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { BoundedExpressAdapter } from './common/http/bounded-express-adapter.js';
import { requestLogging, serviceLogger } from './common/logging/logger-options.js';
import { setUpOpenApi } from './common/openapi/openapi.js';
import type { AppConfig } from './config/app.config.js';
import { openDatabase, type OpenOptions } from './database/database.js';

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
  app.useLogger(app.get(Logger));
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
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (!request.path.startsWith('/v1/')) return pages(request, response, next);
    for (const [name, value] of apiHeaders) response.setHeader(name, value);
    next();
  });
  // No CORS: secret keys belong on the integrator's server, never in a browser.
  setUpOpenApi(app, config.publicUrl);
  await app.init();
  return app;
}
