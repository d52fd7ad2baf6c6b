import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The service's sources, `src/`. */
export const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Every source file of `src/` but tests (and, unless asked, migrations), as paths relative to it. */
export function sourceFiles(options: { migrations?: boolean } = {}, dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' && !options.migrations ? [] : sourceFiles(options, path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [relative(SRC, path)] : [];
  });
}
