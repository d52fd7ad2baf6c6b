/**
 * Bundles the widget with esbuild into one minified script (no runtime dependency), as the example backend serves it
 * and the tests load it. Nothing built is committed: this runs at the backend's start and in the tests' set-up.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('../../../kit/widget/src/index.ts', import.meta.url));

export async function buildWidget(): Promise<string> {
  const result = await build({
    entryPoints: [widgetEntry()],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    write: false,
    legalComments: 'none',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no widget bundle');
  return output.text;
}

/** The entry's path, from the source tree (tests) or from dist/ (the built kit). */
function widgetEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return here.includes('/dist/') ? ENTRY : fileURLToPath(new URL('./src/index.ts', import.meta.url));
}
