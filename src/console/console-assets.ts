import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** A digest of the content: URLs carry it, so browsers may keep an asset for a year. */
  readonly version: string;
}

const require = createRequire(import.meta.url);

/** The project's root: the nearest folder above this file with a package.json (from src/ and from dist/src/). */
function projectRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error('console assets: no package.json above the service');
    folder = parent;
  }
  return folder;
}

const SOURCES: Readonly<Record<string, { readonly path: () => string; readonly type: string }>> = {
  'console.css': { path: () => join(projectRoot(), 'public/console/console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { path: () => join(projectRoot(), 'public/console/console.js'), type: 'text/javascript; charset=utf-8' },
  'uplot.js': { path: () => require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  'uplot.css': { path: () => require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

let loaded: ReadonlyMap<string, Asset> | undefined;

/** Every asset, read once. */
export function consoleAssets(): ReadonlyMap<string, Asset> {
  loaded ??= new Map(
    Object.entries(SOURCES).map(([name, source]) => {
      const body = readFileSync(source.path());
      return [name, { body, type: source.type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) }];
    }),
  );
  return loaded;
}

export function assetUrl(name: keyof typeof SOURCES & string): string {
  const asset = consoleAssets().get(name);
  if (!asset) throw new Error(`console assets: no asset ${name}`);
  return `/console/assets/${name}?v=${asset.version}`;
}
