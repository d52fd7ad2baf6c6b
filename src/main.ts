import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { operatorKeyNotice, OperatorKeyService } from './api-keys/operator-key.service.js';
import { createApp, logsWritten, printAfterLogs } from './app.js';
import { ConfigError, loadConfig } from './config/app.config.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApp(config);
  const logger = new Logger('Size-Fit');
  // Nest's enableShutdownHooks, said out loud: on the first signal the application closes (no new connection, the
  // requests in flight finished within SHUTDOWN_GRACE_MS, then the database), and the process ends by that signal.
  const shutDown = (signal: NodeJS.Signals): void => {
    process.removeListener('SIGINT', shutDown).removeListener('SIGTERM', shutDown);
    logger.log(`${signal}: shutting down; finishing the requests in flight (for up to ${config.shutdownGraceMs} ms)`);
    app.close().then(
      async () => {
        logger.log('stopped');
        await logsWritten(app);
        process.kill(process.pid, signal);
      },
      (error: unknown) => {
        logger.error(`stopped with an error while shutting down: ${(error as Error)?.message ?? error}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutDown).on('SIGTERM', shutDown);
  await app.listen(config.port, config.host);
  const database = config.databaseUrl === null ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
  logger.log(`listening on http://${config.host}:${config.port} (${database}); console at /console, API reference at /docs`);
  // Last, so that no log line scrolls it away: the key a first start created, shown this once.
  const created = app.get(OperatorKeyService).takeCreated();
  if (created !== null) {
    printAfterLogs(app, operatorKeyNotice(created, config.publicUrl));
  }
}

main().catch((error: unknown) => {
  // A start-up problem is one readable line, not a stack trace.
  const message = error instanceof ConfigError ? error.message : `${(error as Error)?.message ?? error}`;
  process.stderr.write(`size-fit: cannot start: ${message}\n`);
  process.exit(1);
});
