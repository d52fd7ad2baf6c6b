import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/**
 * The kit's programs are what an integrator writes with the client: the generated types must carry them without a
 * type assertion (`x as T`, `<T>x`) or a non-null assertion (`x!`). `npm run typecheck` compiles them under --strict.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROGRAMS = ['kit/examples', 'kit/example-backend'];

function assertions(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isConst = ts.isAsExpression(node) && ts.isTypeReferenceNode(node.type) && node.type.getText(source) === 'const';
    if ((ts.isAsExpression(node) && !isConst) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the kit programs', () => {
  const files = PROGRAMS.flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
      .map((name) => relative(ROOT, join(ROOT, dir, name))),
  );

  it('exist', () => {
    expect(files).toEqual(expect.arrayContaining(['kit/examples/journey.ts', 'kit/example-backend/app.ts']));
  });

  it('use no type or non-null assertion', () => {
    expect(files.flatMap((file) => assertions(file))).toEqual([]);
  });

  it('would notice one (and let `as const` be)', () => {
    const sample = 'const a = b as string;\nconst c = <number>d;\nconst e = f!.g;\nconst h = [1] as const;\n';
    expect(assertions('sample.ts', sample)).toEqual(['sample.ts:1: b as string', 'sample.ts:2: <number>d', 'sample.ts:3: f!']);
  });
});
