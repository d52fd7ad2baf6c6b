import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Client } from 'pg';
import { OperatorKeyService } from '../../src/api-keys/operator-key.service.js';
import { type AppConfig, ConfigError } from '../../src/config/app.config.js';
import { openDatabase } from '../../src/database/database.js';
import { bearer, startApp, testConfig } from '../support/app.js';
import { seededDataDir } from '../support/embedded-template.js';

const onPostgres = process.env.DATABASE_URL !== undefined;

/** Runs `start` while capturing what the service writes to stdout. */
async function capturingStdout<T>(start: () => Promise<T>): Promise<{ result: T; output: string }> {
  let output = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    output += chunk.toString();
    return true;
  });
  try {
    return { result: await start(), output };
  } finally {
    spy.mockRestore();
  }
}

// The embedded start-up is the same whatever DATABASE_URL says; run it in the embedded pass of the suite only.
(onPostgres ? describe.skip : describe)('start-up on the embedded database', () => {
  let dataDir: string;
  let embedded: Partial<AppConfig>;
  // Opening a cluster on disk takes seconds on a busy machine (creating one, several times that). Whatever a
  // test opened is closed (again, harmlessly) before its directory goes, so that no lock is ever removed under a
  // live holder (which would stop the whole process: src/database/embedded-database.ts).
  const SLOW = 120_000;
  let opened: Array<() => Promise<unknown>> = [];
  const start = async () => {
    const app = await startApp(embedded);
    opened.push(() => app.close());
    return app;
  };
  const open = async () => {
    const database = await openDatabase(testConfig(embedded));
    opened.push(() => database.destroy());
    return database;
  };
  // A migrated database unpacked in about a second (test/support/embedded-template.ts); the first start's test empties it.
  beforeEach(async () => {
    dataDir = await seededDataDir('size-fit-');
    embedded = { databaseUrl: null, dataDir, operatorBootstrapKey: null };
  }, SLOW);
  afterEach(async () => {
    await Promise.allSettled(opened.map((close) => close()));
    opened = [];
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.lock`, { recursive: true, force: true });
    rmSync(`${dataDir}.owner`, { force: true });
  }, SLOW);

  it(
    'creates an operator key on first start, hands it out once, never writes it meanwhile, and keeps data across restarts',
    async () => {
      rmSync(dataDir, { recursive: true, force: true }); // a first start: no database yet
      const first = await capturingStdout(start);
      expect(first.output).not.toMatch(/sfo_/);
      const operatorKey = first.result.app.get(OperatorKeyService).takeCreated() as string;
      expect(operatorKey).toMatch(/^sfo_[0-9A-Za-z]{46}$/);
      expect(first.result.app.get(OperatorKeyService).takeCreated()).toBeNull();
      const merchant = await first.result.http().post('/v1/merchants').set(bearer(operatorKey)).send({ name: 'Kept' });
      expect(merchant.status).toBe(201);
      await first.result.close();

      const second = await capturingStdout(start);
      try {
        expect(second.output).not.toMatch(/sfo_/);
        expect(second.result.app.get(OperatorKeyService).takeCreated()).toBeNull();
        const again = await second.result.http().get('/v1/merchant').set(bearer(merchant.body.api_key.secret));
        expect(again.status).toBe(200);
        expect(again.body).toEqual(merchant.body.merchant);
        const another = await second.result.http().post('/v1/merchants').set(bearer(operatorKey)).send({ name: 'Later' });
        expect(another.status).toBe(201);
      } finally {
        await second.result.close();
      }
    },
    SLOW,
  );

  it(
    'stores only the digest of the operator key it created',
    async () => {
      const started = await capturingStdout(start);
      const secret = started.result.app.get(OperatorKeyService).takeCreated() as string;
      const { DataSource } = await import('typeorm');
      const rows = await started.result.app.get(DataSource).query('SELECT * FROM operator_keys');
      await started.result.close();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(JSON.stringify(rows)).not.toContain(secret.slice(4, 20));
    },
    SLOW,
  );

  it(
    'refuses to open a data directory another instance holds',
    async () => {
      const holder = await capturingStdout(start);
      try {
        const second = open();
        await expect(second).rejects.toThrow(ConfigError);
        await expect(second).rejects.toThrow(/DATA_DIR .* is in use by another process/);
      } finally {
        await holder.result.close();
      }
      const reopened = await open();
      await reopened.destroy();
    },
    SLOW,
  );

  it('refuses, naming DATA_DIR, a data directory that is a file', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, 'not a directory');
    embedded = { ...embedded, dataDir: file };
    await expect(open()).rejects.toThrow(ConfigError);
    await expect(open()).rejects.toThrow(/^DATA_DIR .*a-file cannot be used as a directory \(EEXIST\)$/);
  });

  it(
    'takes over at once a fresh lock whose recorded holder on this host has exited',
    async () => {
      const lock = `${dataDir}.lock`;
      mkdirSync(lock);
      const exited = spawnSync(process.execPath, ['-e', '0']).pid;
      writeFileSync(`${dataDir}.owner`, JSON.stringify({ pid: exited, hostname: hostname() }));

      const database = await open();
      await database.destroy();
      expect(existsSync(lock)).toBe(false);
    },
    SLOW,
  );

  it(
    'still refuses a fresh lock whose recorded holder runs, or runs on another host',
    async () => {
      mkdirSync(`${dataDir}.lock`);
      for (const owner of [
        { pid: process.ppid, hostname: hostname() },
        { pid: 999_999_999, hostname: 'elsewhere' },
      ]) {
        writeFileSync(`${dataDir}.owner`, JSON.stringify(owner));
        await expect(open()).rejects.toThrow(/DATA_DIR .* is in use by another process/);
      }
    },
    SLOW,
  );

  it(
    'takes over the lock a crashed process left behind once it is stale',
    async () => {
      const lock = `${dataDir}.lock`;
      mkdirSync(lock);
      const longAgo = new Date(Date.now() - 60_000);
      utimesSync(lock, longAgo, longAgo);

      const database = await open();
      await database.destroy();
      expect(existsSync(lock)).toBe(false);
    },
    SLOW,
  );
});

describe('start-up on PostgreSQL', () => {
  it('stops with one readable line when PostgreSQL is unreachable', async () => {
    const config = testConfig({ databaseUrl: 'postgres://size:hunter2@127.0.0.1:1/nowhere' });
    const failure = openDatabase(config);
    await expect(failure).rejects.toThrow(ConfigError);
    await expect(failure).rejects.toThrow('cannot reach PostgreSQL at 127.0.0.1:1/nowhere (ECONNREFUSED)');
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });

  it('says it cannot reach PostgreSQL when the address takes the connection and never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const failure = openDatabase(testConfig({ databaseUrl: `postgres://size:hunter2@127.0.0.1:${port}/nowhere` }));
      await expect(failure).rejects.toThrow(`cannot reach PostgreSQL at 127.0.0.1:${port}/nowhere: no answer within 750 ms`);
    } finally {
      silent.close();
    }
  });

  (onPostgres ? it : it.skip)('migrates a fresh database once when instances start together', async () => {
    const url = new URL(process.env.DATABASE_URL as string);
    const name = `size_fit_migrate_${process.pid}_${Date.now()}`;
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      url.pathname = `/${name}`;
      const config = testConfig({ databaseUrl: url.toString() });
      const instances = await Promise.all([openDatabase(config), openDatabase(config), openDatabase(config)]);
      const applied = await instances[0].query('SELECT name FROM schema_migrations');
      await Promise.all(instances.map((instance) => instance.destroy()));
      expect(applied).toHaveLength(instances[0].migrations.length);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
