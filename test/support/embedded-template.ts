import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrations } from '../../ormconfig.js';
import { EmbeddedDatabase, IN_MEMORY } from '../../src/database/embedded-database.js';
import { runMigrations } from '../../src/database/migrate.js';

let template: Blob | undefined;

const MIGRATIONS = fileURLToPath(new URL('../../src/database/migrations/', import.meta.url));

/**
 * A snapshot of a freshly migrated embedded database. Each test file starts its own database from it instead of
 * creating and migrating a cluster (about 1 s instead of 3–4 s). The snapshot is kept in the temp directory under
 * a name derived from the migrations' files, every line of them (constants outside a migration's class included), so
 * a changed migration makes a new one.
 */
export async function embeddedTemplate(): Promise<Blob> {
  if (template) return template;
  template = new Blob([readFileSync(await templateFile())]);
  return template;
}

/**
 * A new data directory holding a migrated embedded database, for a service (in this process or a child) that is to
 * start on a directory: unpacked from the snapshot in about a second, instead of a cluster created on disk and
 * migrated (5–12 s). For tests about something else than a first start; a first start gets an empty directory.
 */
export async function seededDataDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const unpacked = spawnSync('tar', ['-x', '-f', await templateFile(), '-C', dir], { encoding: 'utf8' });
  if (unpacked.status !== 0) throw new Error(`unpacking the database snapshot failed: ${unpacked.stderr}`);
  return dir;
}

/** The snapshot's file, made once per set of migrations. */
async function templateFile(): Promise<string> {
  const hash = createHash('sha256').update(migrations.map((migration) => migration.name).join('\n'));
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(`\n${file}\n`).update(readFileSync(join(MIGRATIONS, file)));
  const fingerprint = hash.digest('hex').slice(0, 16);
  const file = join(tmpdir(), `size-fit-test-template-${fingerprint}.tar`);
  if (!existsSync(file)) {
    const embedded = await EmbeddedDatabase.open(IN_MEMORY);
    const dataSource = new DataSource(dataSourceOptions({ pglite: embedded.pglite }));
    await dataSource.initialize();
    await runMigrations(dataSource);
    await dataSource.destroy();
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, Buffer.from(await (await embedded.snapshot()).arrayBuffer()));
    renameSync(partial, file);
    await embedded.close();
  }
  return file;
}
