/**
 * What a person sees in the terminal, running the service as `npm start` does: on a first start the operator key is
 * the last thing printed, framed, with what to do next; Nest's start-up lines (a line per module, controller and
 * route) stay out of the info log; a signal is logged when it stops the service, and so is the end.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';

const KEY = /OP=(sfo_[0-9A-Za-z]{46})/;
const RULE = '='.repeat(78);

/** The JSON log lines among `output`'s lines. */
const logLines = (output: string): { msg: string; context?: string }[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; context?: string });

async function waitFor(read: () => string, pattern: RegExp, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`not seen within ${ms} ms: ${pattern}; saw:\n${read()}`);
    await sleep(50);
  }
}

// A first start is on the embedded database whatever DATABASE_URL says: run it in the embedded pass of the suite only.
(process.env.DATABASE_URL === undefined ? describe : describe.skip)('a first start, as the terminal shows it', () => {
  let service: ServiceProcess | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'size-fit-first-start-'));

  afterEach(async () => {
    await service?.kill();
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.lock`, { recursive: true, force: true });
    rmSync(`${dataDir}.owner`, { force: true });
  }, 30_000);

  it('prints the operator key last, framed, with the next steps; keeps route mapping out of info; logs the shutdown', async () => {
    service = await startServiceProcess({
      database: { DATA_DIR: dataDir },
      env: { OPERATOR_BOOTSTRAP_KEY: '', LOG_LEVEL: 'info' },
      captureStdout: true,
      readyWithinMs: 90_000,
    });
    const { stdout, base } = service;
    await waitFor(stdout, new RegExp(`${KEY.source}[\\s\\S]*${RULE}\\n`));
    // once ready, the readiness probes are logged after the notice: what came before it is the start
    const [start, notice] = stdout().split(`\n${RULE}\n`);
    const key = (KEY.exec(notice) as RegExpExecArray)[1];
    expect(stdout().match(/sfo_[0-9A-Za-z]{46}/g)).toEqual([key]);
    expect(notice).toContain('The operator bootstrap key, shown this once');
    expect(notice).toContain(`curl -s -X POST ${base}/v1/merchants -H "Authorization: Bearer $OP"`);
    expect(notice).toContain(`${base}/console`);

    const started = logLines(start);
    expect(started.at(-1)?.msg).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ \(embedded PostgreSQL in /);
    expect(started.filter((line) => /Mapped \{|dependencies initialized|Controller \{/.test(line.msg))).toEqual([]);
    expect(started.length).toBeLessThan(10);
    // the key works
    const merchant = await service.http().post('/v1/merchants').set('Authorization', `Bearer ${key}`).send({ name: 'First' });
    expect(merchant.status).toBe(201);
    // and is never logged
    expect(service.stderr()).not.toMatch(/sfo_/);

    await service.kill('SIGINT');
    // the process may exit before the last of its output is read; the requests in flight get up to 10 s, then the
    // embedded database is closed, which on a busy machine takes seconds of its own
    await waitFor(stdout, /"msg":"stopped"/);
    const messages = logLines(stdout()).map((line) => line.msg);
    expect(messages).toContain('SIGINT: shutting down; finishing the requests in flight (for up to 10000 ms)');
    expect(messages.at(-1)).toBe('stopped');
  }, 120_000);
});
