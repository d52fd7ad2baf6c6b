/**
 * How the service is started, built and deployed, checked where running it would need what a test machine lacks
 * (a terminal, Docker): `npm start` builds only what changed since the last build, so a second start answers within
 * seconds; `npm run dev` rebuilds and restarts on change; the Docker image can make an operator key; the compose file
 * checks readiness, restarts, takes the database password from the environment and publishes on 127.0.0.1.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('npm start and npm run dev', () => {
  it('build incrementally, start after the build, and rebuild and restart on change', () => {
    expect(scripts.build).toBe('tsc --build tsconfig.build.json');
    const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions?: { incremental?: boolean; tsBuildInfoFile?: string } };
    expect(build.compilerOptions).toMatchObject({ incremental: true, tsBuildInfoFile: expect.stringMatching(/^dist\//) });
    expect(scripts.prestart).toBe('npm run --silent build');
    expect(scripts.start).toMatch(/^node .*dist\/src\/main\.js$/);
    expect(scripts['operator-key']).toBe('npm run --silent build && node dist/scripts/operator-key.js');
    expect(scripts.dev).toContain('tsc --build tsconfig.build.json --watch');
    expect(scripts.dev).toContain('node --watch dist/src/main.js');
  });

  it('rebuilds nothing when nothing changed: the second build takes a few seconds, not a compilation', () => {
    const run = () => {
      const started = Date.now();
      const result = spawnSync(process.execPath, [TSC, '--build', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
      expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: '' });
      return Date.now() - started;
    };
    run(); // whatever the last build left to do
    // a compilation of the service takes 15 to 50 seconds on a 2-core machine; the up-to-date check, one or two
    expect(run()).toBeLessThan(8_000);
  }, 240_000);
});

describe('the Docker image and compose file', () => {
  it('builds the operator-key script into the image', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^COPY scripts\/operator-key\.ts \.\/scripts\/$/m);
    expect(dockerfile).toMatch(/^RUN npm run build /m);
  });

  it('checks readiness, restarts, takes the database password from the environment, and publishes on 127.0.0.1', () => {
    const compose = read('docker-compose.yml');
    const service = compose.slice(compose.indexOf('\n  size-fit:'), compose.indexOf('\nvolumes:'));
    expect(service).toMatch(/\n {4}restart: unless-stopped\n/);
    expect(service).toMatch(/\n {4}healthcheck:\n {6}test: \[.*http:\/\/127\.0\.0\.1:3000\/readyz.*\]\n/);
    expect(service).toContain("- '${SIZE_FIT_BIND:-127.0.0.1}:${SIZE_FIT_PORT:-3000}:3000'");
    expect(service).toContain('DATABASE_URL: postgres://sizefit:${POSTGRES_PASSWORD:-sizefit}@postgres:5432/sizefit');
    expect(compose).toContain('POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-sizefit}');
    // no password written out anywhere else
    expect(compose.match(/sizefit@|PASSWORD: [^$]/g)).toBeNull();
  });
});
