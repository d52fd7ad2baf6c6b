import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { servedDocument } from '../../test/support/contract-document.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMITTED = 'kit/client/schema.ts';

describe('kit/client/schema.ts', () => {
  it('is what openapi-typescript generates from the document the service serves (else: npm run kit:generate)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-fit-kit-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(await servedDocument(), null, 2));
      // The same command as `npm run kit:generate`, run from the project root (it reads redocly.yaml there).
      await run(
        process.execPath,
        [
          'node_modules/openapi-typescript/bin/cli.js',
          join(dir, 'openapi.json'),
          '--default-non-nullable',
          'false',
          '-o',
          join(dir, 'schema.ts'),
        ],
        { cwd: ROOT },
      );
      const fresh = readFileSync(join(dir, 'schema.ts'), 'utf8');
      const committed = readFileSync(join(ROOT, COMMITTED), 'utf8');
      if (fresh !== committed) {
        const freshLines = fresh.split('\n');
        const committedLines = committed.split('\n');
        const line = freshLines.findIndex((text, index) => text !== committedLines[index]);
        throw new Error(
          `${COMMITTED} is stale: run \`npm run kit:generate\` and commit it. First difference at line ${line + 1}:\n` +
            `  committed: ${committedLines[line] ?? '(end of file)'}\n  generated: ${freshLines[line] ?? '(end of file)'}`,
        );
      }
      expect(fresh).toBe(committed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
