/** Jest in native ESM mode (Nest 12 is ESM-only); run through `npm test`. */
import process from 'node:process';

const swc = {
  jsc: {
    target: 'es2023',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

export default {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/scripts', '<rootDir>/kit'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  // On PostgreSQL (DATABASE_URL set) the unit specs (`*.spec.ts`) are left out: they open no database, so the embedded
  // pass has run them already, and a second run checks nothing more.
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.DATABASE_URL ? ['^(?!.*\\.e2e-spec\\.ts$).*\\.spec\\.ts$'] : [])],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  testTimeout: 30000,
  // Files side by side: on the embedded database four (every file has a database of its own, in its worker, and many
  // files wait on timers, child processes and a browser: on two cores the full pass of 1,909 tests took 944 s with
  // four workers against 1,297 s with three, the cores busy instead of waiting); on PostgreSQL two, each worker with a
  // database of its own (test/support/postgres-databases.ts), since some files check whole tables.
  maxWorkers: process.env.DATABASE_URL ? 2 : 4,
  globalSetup: '<rootDir>/test/support/postgres-databases.ts',
  globalTeardown: '<rootDir>/test/support/postgres-databases-teardown.ts',
  setupFiles: ['<rootDir>/test/support/worker-database.ts'],
  // A worker that has run many files holds every file's module graph (native ESM modules are never unloaded): one
  // past this size after a file is replaced by a fresh one, instead of growing to gigabytes and slowing down.
  workerIdleMemoryLimit: '2GB',
  // After every test file: no API key secret in any response but its creation response, and no answer the
  // OpenAPI document does not allow.
  setupFilesAfterEnv: ['<rootDir>/test/support/secret-audit.ts', '<rootDir>/test/support/contract-audit.ts'],
};
