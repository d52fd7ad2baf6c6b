import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { assignRequestId } from './common/http/request-id.js';
import type { AppConfig } from './config/app.config.js';
import { openDatabase, type OpenOptions } from './database/database.js';

/**
 * Builds the service (database opened and migrated, every route wired) without listening. `main.ts` listens;
 * tests drive the same application through supertest.
 */
export async function createApp(config: AppConfig, database: OpenOptions = {}): Promise<NestExpressApplication> {
  const dataSource = await openDatabase(config, database);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, dataSource), {
      bufferLogs: true,
      bodyParser: false,
      abortOnError: false,
    });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use((request: Parameters<typeof assignRequestId>[0], response: Parameters<typeof assignRequestId>[1], next: () => void) => {
    assignRequestId(request, response);
    next();
  });
  app.use(helmet());
  // No CORS: secret keys belong on the integrator's server, never in a browser.
  setUpOpenApi(app);
  await app.init();
  return app;
}

function setUpOpenApi(app: NestExpressApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Size-Fit API')
      .setDescription(
        'Helps shoppers pick a size and ties their choices to purchase outcomes. Every /v1 route takes ' +
          '`Authorization: Bearer <API_KEY>`; errors are RFC 9457 problem details (see /problems).',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A merchant API key (sfk_…)' }, 'api_key')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The operator bootstrap key (sfo_…)' }, 'operator')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}
