import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';
import { loadConfig } from '../../src/config/app.config.js';
import { embeddedTemplate } from './embedded-template.js';

/** Where this run keeps the document (the suite runs in one process: later test files reuse it). */
const FILE = join(tmpdir(), `size-fit-openapi-${process.pid}.json`);

/** The OpenAPI document as the service serves it at `/openapi.json`, from an app on a throw-away embedded database. */
export async function servedDocument(): Promise<unknown> {
  if (existsSync(FILE)) return JSON.parse(readFileSync(FILE, 'utf8'));
  const config = loadConfig({ DATA_DIR: 'memory://', OPERATOR_BOOTSTRAP_KEY: generateSecret(OPERATOR_KEY_PREFIX), LOG_LEVEL: 'silent' });
  const app = await createApp(config, { template: await embeddedTemplate() });
  try {
    const response = await request(app.getHttpServer()).get('/openapi.json');
    writeFileSync(FILE, response.text);
    return JSON.parse(response.text);
  } finally {
    await app.close();
  }
}
