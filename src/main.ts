import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config/app.config.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApp(config);
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  const database = config.databaseUrl === null ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
  new Logger('Size-Fit').log(`listening on http://${config.host}:${config.port} (${database}); docs at /docs`);
}

main().catch((error: unknown) => {
  // A start-up problem is one readable line, not a stack trace.
  const message = error instanceof ConfigError ? error.message : `${(error as Error)?.message ?? error}`;
  process.stderr.write(`size-fit: cannot start: ${message}\n`);
  process.exit(1);
});
