/**
 * Writes the served OpenAPI document to a file, as a client generator or a linter would read it from `/openapi.json`:
 *
 *   npm run openapi -- openapi.json
 *
 * It starts the service on a throw-away embedded database, on a free port of 127.0.0.1, and stops it afterwards.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../src/common/crypto/key-secret.js';
import { loadConfig } from '../src/config/app.config.js';

const target = process.argv[2] ?? 'openapi.json';
const config = loadConfig({
  ...process.env,
  DATABASE_URL: '',
  DATA_DIR: 'memory://',
  OPERATOR_BOOTSTRAP_KEY: generateSecret(OPERATOR_KEY_PREFIX),
  LOG_LEVEL: 'silent',
});
const app = await createApp(config);
try {
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);
  writeFileSync(target, `${JSON.stringify(await response.json(), null, 2)}\n`);
  process.stdout.write(`wrote ${target}\n`);
} finally {
  await app.close();
}
