import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { useService } from '../testing/service.js';
import { createSizeFitClient, secretOf } from './size-fit.js';

/**
 * `@size-fit/client` as another project gets it: `npm pack` of the workspace (its prepack compiles it), installed
 * from the tarball into an empty project, compiled there by strict TypeScript and run against the real service.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

const PROGRAM = `import { createSizeFitClient, SizeFitProblem } from '@size-fit/client';

const [baseUrl, apiKey] = process.argv.slice(2);
if (baseUrl === undefined || apiKey === undefined) throw new Error('usage: node program.js <base URL> <admin key>');
const sizeFit = createSizeFitClient({ baseUrl, apiKey });

const merchant = await sizeFit.GET('/v1/merchant');
const store = await sizeFit.POST('/v1/stores', { body: { name: 'Packed' } });
// @ts-expect-error: a path the API does not have does not compile
await sizeFit.GET('/v1/no-such-route').catch(() => undefined);
let problem = '';
try {
  await sizeFit.GET('/v1/stores/{store_id}', { params: { path: { store_id: '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b' } } });
} catch (error) {
  if (error instanceof SizeFitProblem) problem = \`\${error.status} \${error.code}\`;
}
process.stdout.write(JSON.stringify({ merchant: merchant.id, store: store.name, currency: store.currency, problem }));
`;

describe('@size-fit/client, packed and installed in another project', () => {
  const service = useService();
  let dir: string;
  let files: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'size-fit-client-'));
    const { stdout } = await run('npm', ['pack', '--workspace', 'kit/client', '--pack-destination', dir, '--json'], { cwd: ROOT });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    if (packed === undefined) throw new Error('npm pack made no package');
    files = packed.files.map((file) => file.path).sort();

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    writeFileSync(join(project, 'program.ts'), PROGRAM);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'nodenext',
          strict: true,
          noEmitOnError: true,
          skipLibCheck: false,
          typeRoots: [join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['program.ts'],
      }),
    );
    // Its one dependency comes from npm's cache when it is there (it is, after this project's own install).
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed.filename)], { cwd: project });
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project });
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the compiled client with its types and the generated schema, and no source', () => {
    expect(files).toEqual([
      'README.md',
      'dist/retrying-fetch.d.ts',
      'dist/retrying-fetch.js',
      'dist/schema.d.ts',
      'dist/schema.js',
      'dist/size-fit.d.ts',
      'dist/size-fit.js',
      'package.json',
    ]);
  });

  it('compiles a strict program against its types and runs it against the service', async () => {
    const operator = createSizeFitClient({ baseUrl: service.baseUrl, apiKey: service.operatorKey, fetch: service.fetch });
    const created = await operator.POST('/v1/merchants', { body: { name: 'Packed Apparel' } });

    const { stdout } = await run(process.execPath, [join(dir, 'project/program.js'), service.baseUrl, secretOf(created.api_key)]);

    expect(JSON.parse(stdout)).toEqual({ merchant: created.merchant.id, store: 'Packed', currency: 'USD', problem: '404 not_found' });
  });
});
