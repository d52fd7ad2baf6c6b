/**
 * Loaded into the service with `--import` by the bench's profiling step: SIGWINCH starts the V8 CPU profiler, the
 * next SIGWINCH stops it and writes the profile (Chrome .cpuprofile format) to $BENCH_CPU_PROFILE (written to a
 * temporary name, then renamed, so that the file appears whole). So the profile covers the load only, not start-up, and is written without the
 * process exiting (`--cpu-prof` writes only on a clean exit, which the service's shutdown hooks do not make).
 * Not SIGUSR2: Nest's enableShutdownHooks() shuts the application down on it. SIGWINCH is ignored by default, so a
 * process without this preload is not harmed by it.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
let running = false;

process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (error, result) => {
    if (error) {
      process.stderr.write(`profile failed: ${error.message}\n`);
      return;
    }
    const file = process.env.BENCH_CPU_PROFILE as string;
    writeFileSync(`${file}.tmp`, JSON.stringify(result.profile));
    renameSync(`${file}.tmp`, file);
  });
});
