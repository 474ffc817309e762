import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../infra/bundling';
import { DeclarationEmitError, packageDeclarations } from '../../../scripts/declarations';

/** The relative imports of a declaration file, as paths of the declaration files they name. */
function declarationImports(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => join(dirname(file), name));
}

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A repository of its own: tsconfig.json (the project's) and the given sources. */
function repository(sources: Record<string, string>): string {
  scratch = mkdtempSync(join(tmpdir(), 'relay-declarations-'));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', strict: true } }),
  );
  for (const [path, text] of Object.entries(sources)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  return scratch;
}

describe("the package's declarations, emitted file by file", () => {
  it('emits every file the public types reach, each with an explicit type wherever one is needed', () => {
    // Act: throws, listing the places, if any export they reach has an inferred type
    const files = packageDeclarations(PROJECT_ROOT);

    // Assess: closed under the imports of the declarations, and without the zod schemas
    expect(files.has('infra/index.d.ts')).toBe(true);
    expect(files.has('shared/config/relay-config.d.ts')).toBe(true);
    for (const [file, text] of files)
      for (const imported of declarationImports(file, text))
        expect(
          [`${imported}.d.ts`, join(imported, 'index.d.ts')].some((f) => files.has(f)),
          file,
        ).toBe(true);
    expect(files.has('shared/config/schema.d.ts')).toBe(false);
    expect([...files.values()].join('\n')).not.toMatch(/from '(\.\.\/)*(util\/)?zod'|'zod\/mini'/);
  });

  it('names each export without an explicit type, file, line and column', () => {
    // Prepare: the entry's types name types.ts; a value import of helpers.ts is the implementation's only
    const root = repository({
      'infra/index.ts': `import { total } from './helpers';\nimport type { Limits } from './types';\nexport const limits: Limits = { max: total([1, 2]) };\n`,
      'infra/types.ts': `export interface Limits { max: number }\nexport const DEFAULT_MAX = Math.max(1, 2);\n`,
      'infra/helpers.ts': `export function total(values: number[]) { return values.reduce((a, b) => a + b, 0); }\n`,
    });

    // Act
    const failure = (() => {
      try {
        packageDeclarations(root);
      } catch (error) {
        return error;
      }
    })();

    // Assess: types.ts's inferred constant, not helpers.ts (no declaration imports it)
    expect(failure).toBeInstanceOf(DeclarationEmitError);
    expect((failure as DeclarationEmitError).problems).toEqual([
      expect.stringMatching(/^infra\/types\.ts:2:14 Variable must have an explicit type annotation/),
    ]);
    expect((failure as Error).message).toContain('need an explicit type at 1 place(s)');
  });
});
