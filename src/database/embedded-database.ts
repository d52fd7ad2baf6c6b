import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import { ConfigError } from '../config/app.config.js';

export const IN_MEMORY = 'memory://';

/**
 * The embedded PostgreSQL (PGlite). A data directory is held under a lock file while open: two processes on one
 * directory would corrupt it. A lock left by a killed process goes stale after half a minute and is taken over.
 */
export class EmbeddedDatabase {
  private constructor(
    readonly pglite: PGlite,
    private readonly release: (() => Promise<void>) | null,
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
    mkdirSync(directory, { recursive: true });
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(directory, {
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
    } catch (error) {
      if ((error as { code?: string }).code === 'ELOCKED') {
        throw new ConfigError(
          `DATA_DIR ${directory} is in use by another process (after a crash, its lock expires within 30 s)`,
        );
      }
      throw error;
    }
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

  async close(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
    await this.release?.();
  }
}
