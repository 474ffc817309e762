/**
 * The packed library's declarations (dist/types/, scripts/prebuild-assets.ts), emitted file by file with
 * TypeScript's `transpileDeclaration`: no program, no type-check, none of aws-cdk-lib's declarations (about
 * a million lines) parsed. Only the files they reach are emitted: infra/index.ts, then every relative
 * import of an emitted declaration file, so an implementation module that no public type names is left
 * out, and needs no explicit types.
 *
 * Emitting a file on its own is what TypeScript's `isolatedDeclarations` describes: each export whose type
 * the file does not spell out (an inferred return type, a zod schema) is an error here, listed with where
 * it is. `npm run build` type-checks the same sources, and test/package/npm-pack.test.ts compiles apps
 * against the emitted files.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import type * as TypeScript from 'typescript';

/**
 * Required, not imported: run by tsx (prepack), an `import` of TypeScript's 9 MB CommonJS file goes through
 * tsx's ESM hooks and costs about a second more CPU than the emit itself.
 */
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;

/** The package's one entry point (package.json `exports["."].types` is its declaration file). */
const ENTRY = 'infra/index.ts';

/** A file of the package's declarations cannot be emitted on its own: the places that need a type. */
export class DeclarationEmitError extends Error {
  constructor(
    readonly problems: readonly string[],
    options?: ErrorOptions,
  ) {
    super(
      `The package's declarations (dist/types/, emitted file by file: scripts/declarations.ts) need an ` +
        `explicit type at ${problems.length} place(s). Write the type out (no \`any\`), or keep the ` +
        `value out of the files they reach:\n${problems.map((p) => `  ${p}`).join('\n')}`,
      options,
    );
    this.name = 'DeclarationEmitError';
  }
}

/** tsconfig.json's compiler options, as a declaration-only, file-by-file emit reads them. */
function compilerOptions(root: string): TypeScript.CompilerOptions {
  const file = join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root, file);
  if (errors.length)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    isolatedDeclarations: true,
  };
}

/** The source file a relative import of `from` names (the sources import without extensions). */
function sourceOf(root: string, from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')]
    .map((candidate) => relative(root, candidate))
    .find((candidate) => ts.sys.fileExists(join(root, candidate)));
}

function where(diagnostic: TypeScript.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  if (!diagnostic.file || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${diagnostic.file.fileName}:${line + 1}:${character + 1} ${message}`;
}

/**
 * The declaration files of ENTRY and of everything their types import, by path relative to `root`
 * (`infra/index.d.ts`…). Throws DeclarationEmitError listing every place that needs an explicit type.
 */
export function packageDeclarations(root: string): Map<string, string> {
  const options = compilerOptions(root);
  const emitted = new Map<string, string>();
  const problems: string[] = [];
  const queue = [ENTRY];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    const output = file.replace(/\.ts$/, '.d.ts');
    if (emitted.has(output)) continue;
    const { outputText, diagnostics = [] } = ts.transpileDeclaration(readFileSync(join(root, file), 'utf8'), {
      fileName: file,
      compilerOptions: options,
      reportDiagnostics: true,
    });
    problems.push(...diagnostics.map(where));
    emitted.set(output, outputText);
    const { importedFiles, referencedFiles } = ts.preProcessFile(outputText, true, true);
    for (const { fileName } of [...importedFiles, ...referencedFiles]) {
      if (!fileName.startsWith('.')) continue;
      const source = sourceOf(root, file, fileName);
      if (source) queue.push(source);
      else
        problems.push(
          `${file}: its declarations import "${fileName}", which is no .ts file of the repository`,
        );
    }
  }
  if (problems.length) throw new DeclarationEmitError(problems);
  return emitted;
}

/** Writes packageDeclarations(root) into `outDir`; returns how many files. */
export function emitPackageDeclarations(root: string, outDir: string): number {
  const files = packageDeclarations(root);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(outDir, path)), { recursive: true });
    writeFileSync(join(outDir, path), text);
  }
  return files.size;
}
