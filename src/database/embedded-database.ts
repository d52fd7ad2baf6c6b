import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import { ConfigError } from '../config/app.config.js';

export const IN_MEMORY = 'memory://';

/**
 * The embedded PostgreSQL (PGlite). A data directory is held under a lock file while open: two processes on one
 * directory would corrupt it. A lock left by a killed process is taken over at once when its owner, recorded beside
 * it, is known to be gone, and otherwise after half a minute without a refresh.
 */
export class EmbeddedDatabase {
  private constructor(
    readonly pglite: PGlite,
    private release: (() => Promise<void>) | null,
  ) {}

  /**
   * Opens the database in `dataDir`. An in-memory database may start from `template`, a `dumpDataDir()` snapshot,
   * which is much faster than creating a cluster from scratch (the test suite starts one per file this way).
   */
  static async open(dataDir: string, template?: Blob): Promise<EmbeddedDatabase> {
    if (dataDir === IN_MEMORY) {
      return new EmbeddedDatabase(await PGlite.create(template ? { loadDataDir: template } : {}), null);
    }

    const directory = resolve(dataDir);
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new ConfigError(`DATA_DIR ${directory} cannot be used as a directory (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const release = await lockDirectory(directory);
    try {
      return new EmbeddedDatabase(await PGlite.create(directory), release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** A snapshot of the whole database, for `open(IN_MEMORY, template)`. */
  snapshot(): Promise<Blob> {
    return this.pglite.dumpDataDir('none');
  }

  /** Closes the database and releases its directory; closing again does nothing. */
  async close(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
    const release = this.release;
    this.release = null;
    await release?.();
  }
}

/** Takes the directory's lock, or refuses to start: two processes on one directory would corrupt it. */
async function lockDirectory(directory: string): Promise<() => Promise<void>> {
  const owner = `${directory}.owner`;
  const lock = () =>
    lockfile.lock(directory, {
      // The holder refreshes the lock every 5 s; one not refreshed for 30 s belongs to a dead process. The margin is
      // wide because PGlite can hold the event loop for seconds, and a live holder must never look dead.
      stale: 30_000,
      update: 5_000,
      retries: 0,
      onCompromised: (error) => {
        // Another process took the directory over: stop before both write to it.
        console.error(`embedded database lock lost (${error.message}); stopping`);
        process.exit(1);
      },
    });
  let release: () => Promise<void>;
  try {
    release = await lock();
  } catch (error) {
    if ((error as { code?: string }).code !== 'ELOCKED') throw error;
    if (!ownerIsGone(owner)) {
      throw new ConfigError(`DATA_DIR ${directory} is in use by another process (after a crash, its lock expires within 30 s)`);
    }
    // The process that held it was killed on this host: its lock is a leftover, not a live holder.
    rmSync(`${directory}.lock`, { recursive: true, force: true });
    release = await lock();
  }
  writeFileSync(owner, JSON.stringify({ pid: process.pid, hostname: hostname() }));
  return async () => {
    rmSync(owner, { force: true });
    await release();
  };
}

/** True when the recorded holder was a process of this host that no longer runs. */
function ownerIsGone(ownerFile: string): boolean {
  let owner: { pid?: unknown; hostname?: unknown };
  try {
    owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as typeof owner;
  } catch {
    return false;
  }
  if (owner.hostname !== hostname() || typeof owner.pid !== 'number' || !Number.isSafeInteger(owner.pid)) return false;
  // Our own pid: this very process holds it. (A container restarted under its old pid waits for the stale lock.)
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ESRCH';
  }
}
