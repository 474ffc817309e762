/**
 * Every command the Markdown shows names what exists: `npm run X` a script of package.json, each `--flag`
 * given to one of this repository's scripts (`npm start -- …`, `npm run sim -- …`, `npx tsx scripts/….ts …`)
 * an option that script takes, and each repository path a command names (`--config local/….json`,
 * `npx vitest run test/…`) a file or folder that is there. Read, not run: the fast lane's cheap check of
 * every page, in every block, skipped ones included, and in inline code. test/e2e/readme.test.ts runs the
 * README's and the provider READMEs' blocks and every `npm run sim` example; this catches a renamed script,
 * option or file on the other pages, which nothing runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDS_ISOLATION } from '../helpers/isolation';
import { laneOf } from '../helpers/lanes';
import { isShell, readBlocks } from './markdown';

const ROOT = join(import.meta.dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', 'coverage']);
const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
/** The vitest projects (vitest.config.ts): each lane, and its "-isolated" twin when it has such files. */
const LANES = ['fast', 'cdk', 'dynamodb'] as const;
const PROJECTS = LANES.flatMap((lane) =>
  Object.keys(NEEDS_ISOLATION).some((file) => laneOf(file) === lane) ? [lane, `${lane}-isolated`] : [lane],
);

function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith('.') || SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

interface Shown {
  where: string;
  text: string;
}

/**
 * The commands a page shows: each line of a shell block (continuation lines joined, comments dropped), each
 * `$ …` or `npm …`/`npx …` line of another block (transcripts, banners), each inline code span that starts
 * with `npm ` or `npx `.
 */
function commandsOf(file: string, text: string): Shown[] {
  const at = (line: number) => `${relative(ROOT, file)}:${line}`;
  const shown: Shown[] = [];
  for (const block of readBlocks(file, text)) {
    const lines = block.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!.trim();
      const start = i;
      while (/\\$/.test(line) && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
      if (line.startsWith('$ ')) line = line.slice(2);
      else if (!isShell(block) && !/^(npm|npx) /.test(line)) continue;
      if (line === '' || line.startsWith('#')) continue;
      shown.push({ where: at(block.line + 1 + start), text: line.replace(/\s+#\s.*$/, '') });
    }
  }
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === undefined || f.startsWith(fence))) fence = fence === undefined ? f : undefined;
    else if (fence === undefined)
      for (const [, span] of line.matchAll(/`((?:[A-Z_][A-Z0-9_]*=\S+ )*(?:npm|npx) [^`]+)`/g))
        shown.push({ where: at(i + 1), text: span! });
  });
  return shown;
}

/** A command line as simple commands (`a && b; c | d`), each as words without its leading `VAR=value`s. */
function simpleCommands(text: string): string[][] {
  return text
    .split(/&&|\|\||[;|&]/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((word) => word.replace(/^\[|\]$/g, '')),
    )
    .map((words) => words.slice(words.findIndex((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w))))
    .filter((words) => words.length > 0);
}

/** The options a script file takes: its parseCli options (scripts/cli.ts), else every `--x` its text names. */
function optionsOf(file: string): { names: Set<string>; declared: boolean } {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const call = source.indexOf('parseCli(');
  if (call < 0)
    return { names: new Set([...source.matchAll(/--([a-z][\w-]*)/g)].map((m) => m[1]!)), declared: false };
  const open = source.indexOf('{', source.indexOf('options:', call));
  let depth = 0;
  let end = open;
  for (; end < source.length; end++) {
    if (source[end] === '{') depth++;
    if (source[end] === '}' && --depth === 0) break;
  }
  const block = source.slice(open + 1, end);
  const names = [...block.matchAll(/(?:'([\w-]+)'|\b(\w+))\s*:\s*\{\s*type\s*:/g)].map((m) => m[1] ?? m[2]!);
  return { names: new Set([...names, 'help', 'h']), declared: true };
}

/** The repository file a package.json script runs (`tsx scripts/cost.ts`, `node --import tsx scripts/sim.ts`). */
const fileOf = (command: string) =>
  command.split(/\s+/).find((word) => /\.(ts|mjs)$/.test(word) && existsSync(join(ROOT, word)));

const START = fileOf(SCRIPTS.start!)!;

const PLACEHOLDER = /[<>…*{}$]|\bFILE\b|\bDIR\b/;
/** A word naming a path in this repository (`local/webhooks-demo-config.json`, `file://schemas/…`). */
const REPO_PATH =
  /^(?:file:\/\/)?((?:docs|test|examples|local|scripts|schemas|infra|packages|shared|simulator|console|functions)\/[\w./-]*)$/;

const flagsOf = (words: string[]) =>
  words.filter((w) => /^--?[a-z]/.test(w)).map((w) => w.replace(/^--?/, '').replace(/=.*$/, ''));

function scriptProblems(file: string, args: string[], what: string): string[] {
  const { names } = optionsOf(file);
  return flagsOf(args)
    .filter((flag) => !names.has(flag))
    .map((flag) => `${what}: --${flag} is no option of ${file}`);
}

/** `--project <glob>`: it names a project, and all of a lane (its isolated files too) when it names one. */
function projectProblems(glob: string): string[] {
  const pattern = new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);
  const matched = PROJECTS.filter((project) => pattern.test(project));
  if (!matched.length) return [`vitest.config.ts has no project "${glob}"`];
  return matched
    .filter((project) => PROJECTS.includes(`${project}-isolated`) && !matched.includes(`${project}-isolated`))
    .map(
      (lane) =>
        `--project ${glob} leaves out the ${lane} lane's isolated files (${lane}-isolated): '${lane}*'`,
    );
}

/** What is wrong with one simple command; empty when everything it names exists. */
function problemsOf(words: string[]): string[] {
  const problems = words
    .map((w) => REPO_PATH.exec(w.replace(/^['"]|['"]$/g, ''))?.[1])
    .filter((path): path is string => path !== undefined && !PLACEHOLDER.test(path))
    .filter((path) => !existsSync(join(ROOT, path)))
    .map((path) => `no such file or folder: ${path}`);
  const [tool, sub, name] = words;
  if (tool === 'npm' && (sub === 'start' || sub === 'test' || sub === 'run')) {
    const script = sub === 'run' ? name : sub;
    if (!script || PLACEHOLDER.test(script)) return problems;
    const command = SCRIPTS[script];
    if (command === undefined) return [...problems, `package.json has no script "${script}"`];
    const dashes = words.indexOf('--');
    const file = fileOf(command);
    if (file && dashes >= 0)
      problems.push(...scriptProblems(file, words.slice(dashes + 1), `npm run ${script}`));
  }
  // A script of this repository (not one of the reader's own project: `npx tsx bin/payments.ts`).
  if (tool === 'npx' && sub === 'tsx' && name && REPO_PATH.test(name) && existsSync(join(ROOT, name)))
    problems.push(...scriptProblems(name, words.slice(3), `npx tsx ${name}`));
  if (tool === 'npx' && sub === 'vitest' && words.includes('--project'))
    problems.push(...projectProblems(words[words.indexOf('--project') + 1]!.replace(/['"]/g, '')));
  return problems;
}

function brokenCommands(file: string, text: string): string[] {
  return commandsOf(file, text).flatMap(({ where, text: command }) =>
    simpleCommands(command).flatMap((words) => problemsOf(words).map((p) => `${where}: ${command}\n  ${p}`)),
  );
}

describe('commands in the Markdown', () => {
  it('name scripts package.json has, options those scripts take and files that exist', () => {
    // Act
    const broken = markdownFiles().flatMap((file) => brokenCommands(file, readFileSync(file, 'utf8')));
    // Assess
    expect(broken).toEqual([]);
  });

  it('are read from shell blocks, transcripts and inline code, and what they name is checked', () => {
    // Prepare
    const file = join(ROOT, 'docs/example.md');
    const text = [
      'Run `RELAY_CONFIG=x.json npm run no-such-script` or `npm start -- --no-such-flag` or `npm run sim -- momo pay --fault drop`.',
      '```bash',
      'RELAY_CONFIG=x.json npm run check-urls -- --config local/demo-config.json --hide-secret',
      "npx vitest run test/unit/nope --project 'dynamo-x*' && npx tsx scripts/bundle-size.ts --only callback --nope",
      'aws schemas create-schema \\',
      '  --content file://schemas/events/draft-04/NoSuchEvent.json',
      '```',
      '```',
      '$ npm run ledger -- --seeds 11',
      '$ npx vitest run --project cdk',
      '```',
    ].join('\n');
    // Act
    const broken = brokenCommands(file, text).map((line) => line.split('\n  ')[1]);
    // Assess
    expect(broken).toEqual([
      'npm run check-urls: --hide-secret is no option of scripts/check-urls.ts',
      'no such file or folder: test/unit/nope',
      'vitest.config.ts has no project "dynamo-x*"',
      'npx tsx scripts/bundle-size.ts: --nope is no option of scripts/bundle-size.ts',
      'no such file or folder: schemas/events/draft-04/NoSuchEvent.json',
      'npm run ledger: --seeds is no option of scripts/ledger.ts',
      "--project cdk leaves out the cdk lane's isolated files (cdk-isolated): 'cdk*'",
      'package.json has no script "no-such-script"',
      `npm run start: --no-such-flag is no option of ${START}`,
    ]);
  });

  it('reads the options every script of this repository declares', () => {
    // Act, Assess: a script whose options could not be read would let any flag through.
    for (const [name, command] of Object.entries(SCRIPTS)) {
      const file = fileOf(command);
      if (!file) continue;
      const { names, declared } = optionsOf(file);
      expect(declared || /\.mjs$/.test(file), `${name}: ${file} declares no parseCli options`).toBe(true);
      expect(names.has('help'), `${name}: ${file}`).toBe(true);
    }
    // npm start's file, read from package.json (named here, test-lanes.test.ts would take this file for one
    // that starts a relay).
    expect(optionsOf(START).names).toEqual(
      new Set(['data-dir', 'port', 'config', 'simulator', 'sim-port', 'help', 'h']),
    );
  });
});
