/**
 * The import graph of `src/`: no cycle, type-only imports included (ESLint's `import-x/no-cycle` leaves those out, and
 * a type cycle still ties two modules together for whoever changes one of them).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { SRC, sourceFiles } from '../support/source-files.js';

/** The files of `src/` a file imports, by relative specifier, types included. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)\.js'/g)].map((m) =>
    normalize(join(dirname(file), `${m[1]}.ts`)),
  );
}

/** The cycles found by a depth-first walk, each as the files around it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[][] = [];
  const walk = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), file, next]);
      else if (!state.has(next) && graph.has(next)) walk(next, [...path, file]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) walk(file, []);
  return found;
}

describe('the import graph of src/', () => {
  const graph = new Map(sourceFiles({ migrations: true }).map((file) => [file, importsOf(file)]));

  it('reads the imports of every file', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(join('events', 'events.service.ts'))).toContain(join('learning', 'learning.service.ts'));
  });

  it('has no cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'a.ts']]);
  });
});
