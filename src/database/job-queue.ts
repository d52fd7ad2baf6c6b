import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type Job, type JobResult, PgBoss, type QueueOptions } from 'pg-boss';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner.js';

/** pg-boss keeps its tables in a schema of their own. */
const SCHEMA = 'jobs';
/** How long a stopping service lets the jobs in hand finish; a job cut off is run again after its expiry. */
const STOP_WITHIN_MS = 5_000;
/** The most jobs a worker takes at once; it fetches again at once while it gets this many. */
const BATCH = 20;

/** What a queue retries, and where its jobs go once they have failed every time. */
interface QueueDefinition {
  readonly name: string;
  /** Attempts after the first (default 5), each `retryDelaySeconds` × 2ⁿ later (with jitter, at most 10 minutes). */
  readonly retryLimit?: number;
  readonly retryDelaySeconds?: number;
  /** A job still running after this long is taken as lost (its process died) and run again. */
  readonly expireInSeconds: number;
  /** For long jobs: the worker beats every half of this, and a job whose beat stops this long is taken as lost. */
  readonly heartbeatSeconds?: number;
  /** How often an idle worker asks for work. */
  readonly pollingIntervalSeconds: number;
  /**
   * A job of this queue sent on a cron expression (UTC) with `data`, by whichever instance's cron pass comes first; an
   * occurrence missed while no instance ran is sent once when one starts.
   */
  readonly schedule?: { readonly cron: string; readonly data: object };
  /** `lastAttempt`: a failure now sends the job to the dead-letter queue. */
  readonly handler: (data: unknown, attempt: { id: string; lastAttempt: boolean }) => Promise<void>;
}

/** A job that failed every attempt, as the dead-letter queue holds it. */
interface DeadLetter {
  readonly id: string;
  readonly data: unknown;
  readonly failedAt: Date;
  /** What the last attempt threw (its message only). */
  readonly error: string | null;
}

const deadLetterQueue = (name: string) => `${name}-dead`;

/**
 * Durable jobs in the service's own database, on pg-boss: a job sent in a transaction exists when the transaction
 * commits and not before; a worker claims it with `SKIP LOCKED`, retries it with backoff, and moves it to its dead-letter
 * queue after the last failure; a job whose process was killed runs again once it expires. pg-boss runs its statements
 * through the service's own pool, so on the embedded database (one connection) they queue behind the transaction in
 * progress instead of running inside it.
 *
 * Nothing starts unless a module defines a queue (`define`, before the application is bootstrapped): a service that
 * runs no jobs polls nothing.
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly definitions: QueueDefinition[] = [];
  private boss: PgBoss | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  define(definition: QueueDefinition): void {
    if (this.boss !== null) throw new Error(`queue ${definition.name} defined after the jobs started`);
    this.definitions.push(definition);
  }

  get running(): boolean {
    return this.boss !== null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.definitions.length === 0) return;
    const pool = (this.dataSource.driver as PostgresDriver).master as { query(text: string, values?: unknown[]): Promise<unknown> };
    const boss = new PgBoss({
      db: { executeSql: async (text, values) => unwrap(await pool.query(text, values)) },
      schema: SCHEMA,
      // The schedule (cron) runs when a queue has one. Supervision finds the jobs of a process that died (active past
      // their expiry, or their heartbeat missed) and sends them back: every 10 s, so such a job waits at most its
      // expiry (or heartbeat) and 10 s.
      schedule: this.definitions.some((definition) => definition.schedule !== undefined),
      superviseIntervalSeconds: 10,
      // Expiry and missed heartbeats are checked in the monitoring pass: as often as supervision.
      monitorIntervalSeconds: 10,
    });
    boss.on('error', (error: Error) => this.logger.error({ reason: error.message }, 'job queue error'));
    await boss.start();
    for (const definition of this.definitions) {
      const options: QueueOptions = {
        retryLimit: definition.retryLimit ?? 5,
        retryDelay: definition.retryDelaySeconds ?? 5,
        retryBackoff: true,
        retryDelayMax: 600,
        expireInSeconds: definition.expireInSeconds,
        ...(definition.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: definition.heartbeatSeconds }),
      };
      await boss.createQueue(deadLetterQueue(definition.name), { retentionSeconds: 60 * 60 * 24 * 30 });
      await boss.createQueue(definition.name, { ...options, deadLetter: deadLetterQueue(definition.name) });
      await boss.updateQueue(definition.name, { ...options, deadLetter: deadLetterQueue(definition.name) });
      if (definition.schedule === undefined) await boss.unschedule(definition.name);
      else await boss.schedule(definition.name, definition.schedule.cron, definition.schedule.data, { tz: 'UTC', missed: 'once' });
      // Up to a batch of jobs per fetch, fetched again at once while batches come back full; each job settles alone.
      const work = {
        pollingIntervalSeconds: definition.pollingIntervalSeconds,
        batchSize: BATCH,
        burstWhenBatchFull: true,
        perJobResults: true,
      } as const;
      await boss.work(definition.name, work, async (jobs: Job[]): Promise<JobResult[]> => {
        const results: JobResult[] = [];
        for (const job of jobs) {
          try {
            await definition.handler(job.data, { id: job.id, lastAttempt: job.retryCount >= (options.retryLimit as number) });
            results.push({ id: job.id, status: 'completed' });
          } catch (error) {
            results.push({ id: job.id, status: 'failed', output: { message: error instanceof Error ? error.message : String(error) } });
          }
        }
        return results;
      });
    }
    this.boss = boss;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const boss = this.boss;
    this.boss = null;
    await boss?.stop({ graceful: true, timeout: STOP_WITHIN_MS, close: false });
  }

  /** Sends a job in the transaction of `manager`: it exists once that commits. */
  async send(manager: EntityManager, name: string, data: object): Promise<void> {
    const runner = manager.queryRunner as PostgresQueryRunner | undefined;
    if (runner === undefined || !runner.isTransactionActive) throw new Error('JobQueue.send runs inside a transaction');
    const client = (await runner.connect()) as { query(text: string, values?: unknown[]): Promise<unknown> };
    await this.started().send(name, data, { db: { executeSql: async (text, values) => unwrap(await client.query(text, values)) } });
  }

  /**
   * The jobs of `name` that failed every attempt whose data contains `data`, oldest first; with `id`, that one alone
   * (when its data contains `data`).
   */
  async deadLetters(name: string, data: object, options: { limit?: number; id?: string } = {}): Promise<DeadLetter[]> {
    const { limit = 100, id } = options;
    const jobs = await this.started().findJobs(deadLetterQueue(name), { queued: true, data, limit, ...(id === undefined ? {} : { id }) });
    return jobs.map((job) => ({
      id: job.id,
      data: job.data,
      failedAt: job.createdOn,
      // A dead letter is a copy of the job that failed: what its last attempt threw is the source's output.
      error: errorOf(job.sourceOutput ?? job.output),
    }));
  }

  /**
   * Sends a dead-lettered job of `name` whose data contains `data` back to its queue, for another round of attempts.
   * Returns whether there was such a job.
   */
  async retryDeadLetter(name: string, id: string, data: object): Promise<boolean> {
    return (await this.started().redrive(deadLetterQueue(name), { ids: [id], data, destination: name })) > 0;
  }

  private started(): PgBoss {
    if (this.boss === null) throw new Error('the job queue is not running');
    return this.boss;
  }
}

/** node-postgres answers a multi-statement text with one result per statement; pg-boss wants the rows. */
function unwrap(result: unknown): { rows: unknown[] } {
  if (Array.isArray(result)) return { rows: result.flatMap((part: { rows?: unknown[] }) => part.rows ?? []) };
  return { rows: (result as { rows?: unknown[] }).rows ?? [] };
}

function errorOf(output: unknown): string | null {
  if (typeof output !== 'object' || output === null) return null;
  const message = (output as { message?: unknown }).message;
  return typeof message === 'string' ? message : null;
}
