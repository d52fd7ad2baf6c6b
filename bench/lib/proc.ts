/**
 * What /proc says about a process: resident memory now and at its peak, and CPU time used. Linux only, which is what
 * the bench runs on. Also the CPU time of the PostgreSQL backends serving one application_name, so that the database
 * work a request causes can be compared between the service and the floor.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';

const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
})();

export interface ProcessReading {
  /** Resident set now, MB. */
  readonly rssMb: number;
  /** Peak resident set since the process started (VmHWM), MB. */
  readonly peakRssMb: number;
  /** User + system CPU time since the process started, ms. */
  readonly cpuMs: number;
}

export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14 and 15 of stat)
}

export function readProcess(pid: number): ProcessReading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 102.4) / 10, peakRssMb: Math.round(kb('VmHWM') / 102.4) / 10, cpuMs: cpuMsOf(pid) };
}

/**
 * Samples the resident memory of some processes every 200 ms and keeps, per process, the highest value seen in each
 * part of the bench. `peak` (VmHWM) is kept by the kernel and catches what sampling misses.
 */
export class MemoryWatch {
  private readonly byPart = new Map<string, Map<string, number>>();
  private readonly pids = new Map<string, number>();
  private part = 'start';
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sample(), 200);
    this.timer.unref();
  }

  watch(name: string, pid: number): void {
    this.pids.set(name, pid);
    this.sample();
  }

  unwatch(name: string): void {
    this.sample();
    this.pids.delete(name);
  }

  enter(part: string): void {
    this.sample();
    this.part = part;
  }

  /** Max resident MB per part for one process. */
  parts(name: string): Record<string, number> {
    return Object.fromEntries([...this.byPart].flatMap(([part, m]) => (m.has(name) ? [[part, m.get(name) as number]] : [])));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const [name, pid] of this.pids) {
      let rss: number;
      try {
        rss = readProcess(pid).rssMb;
      } catch {
        continue; // exited
      }
      const part = this.byPart.get(this.part) ?? new Map<string, number>();
      part.set(name, Math.max(part.get(name) ?? 0, rss));
      this.byPart.set(this.part, part);
    }
  }
}

/** CPU ms so far of every PostgreSQL client backend whose application_name is `application`, by backend pid. */
export async function backendCpu(db: pg.Client, application: string): Promise<Map<number, number>> {
  const { rows } = await db.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND backend_type = 'client backend'`, [
    application,
  ]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuMsOf(pid));
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** CPU ms the backends used between two readings (a backend opened meanwhile counts from zero). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
