/**
 * Writes the served OpenAPI document to a file (by default `dist/openapi.json`, with the build, never in the working
 * tree's root), as a client generator or a linter would read it from `/openapi.json`:
 *
 *   npm run openapi                     # dist/openapi.json
 *   npm run openapi -- ../client/api.json
 *
 * It starts the service on a throw-away embedded database, on a free port of 127.0.0.1, and stops it afterwards.
 */
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../src/common/crypto/key-secret.js';
import { loadConfig } from '../src/config/app.config.js';

const target = process.argv[2] ?? 'dist/openapi.json';
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
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(await response.json(), null, 2)}\n`);
  process.stdout.write(`wrote ${target}\n`);
} finally {
  await app.close();
}
