import 'reflect-metadata';
import { afterAll, beforeAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { App } from 'supertest/types.js';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { type AppConfig, loadConfig } from '../../src/config/app.config.js';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../src/common/crypto/key-secret.js';
import { embeddedTemplate } from './embedded-template.js';

/** The operator key every test app accepts. */
export const OPERATOR_KEY = generateSecret(OPERATOR_KEY_PREFIX);

/**
 * The service as `npm start` builds it, on a throw-away embedded database — or on PostgreSQL when the suite runs
 * with DATABASE_URL set.
 */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    ...loadConfig({
      DATABASE_URL: process.env.DATABASE_URL,
      DATA_DIR: 'memory://',
      OPERATOR_BOOTSTRAP_KEY: OPERATOR_KEY,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // Console passwords hashed at scrypt's lowest cost the service takes: hundreds of sign-ups and sign-ins run here,
      // and the cost changes nothing else (the default's hash is checked in passwords.spec.ts and app.config.spec.ts).
      PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST ?? '10',
    }),
    ...overrides,
  };
}

export interface TestApp {
  readonly app: INestApplication<App>;
  readonly http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

export async function startApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const config = testConfig(overrides);
  const fromTemplate = config.databaseUrl === null && config.dataDir === 'memory://';
  const app = (await createApp(config, {
    template: fromTemplate ? await embeddedTemplate() : undefined,
  })) as unknown as INestApplication<App>;
  return {
    app,
    http: () => request(app.getHttpServer()),
    close: () => app.close(),
  };
}

export const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

/**
 * One app for the enclosing `describe` block: started before its tests, closed after them. Use the returned
 * object only inside tests and hooks.
 */
export function useApp(overrides: Partial<AppConfig> = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await startApp(overrides);
  });
  afterAll(async () => {
    await current?.close();
  });
  const started = (): TestApp => {
    if (!current) throw new Error('useApp(): the app is used before beforeAll started it');
    return current;
  };
  return {
    get app() {
      return started().app;
    },
    http: () => started().http(),
    close: () => started().close(),
  };
}
