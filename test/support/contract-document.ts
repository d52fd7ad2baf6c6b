import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';
import { loadConfig } from '../../src/config/app.config.js';
import { embeddedTemplate } from './embedded-template.js';

/**
 * Where this run keeps the document, for its later test files, in every worker: named after the process that started
 * the workers (Jest's own; the one that started Jest when the files run in it), which lives as long as the run.
 */
const FILE = join(tmpdir(), `size-fit-openapi-${process.ppid}.json`);

/** The OpenAPI document as the service serves it at `/openapi.json`, from an app on a throw-away embedded database. */
export async function servedDocument(): Promise<unknown> {
  if (existsSync(FILE)) return JSON.parse(readFileSync(FILE, 'utf8'));
  const config = loadConfig({ DATA_DIR: 'memory://', OPERATOR_BOOTSTRAP_KEY: generateSecret(OPERATOR_KEY_PREFIX), LOG_LEVEL: 'silent' });
  const app = await createApp(config, { template: await embeddedTemplate() });
  try {
    const response = await request(app.getHttpServer()).get('/openapi.json');
    // written whole or not at all: another worker may read it meanwhile
    const partial = `${FILE}.${process.pid}.tmp`;
    writeFileSync(partial, response.text);
    renameSync(partial, FILE);
    return JSON.parse(response.text);
  } finally {
    await app.close();
  }
}
