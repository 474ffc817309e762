/**
 * Every script of package.json that runs this repository's code answers `--help` with its usage and exit
 * code 0, before it does anything (starts a server, writes files), and every doc section it points to
 * exists (issue 27 item 11: `npm run cost -- --help` printed a stack trace, `npm start -- --help` pointed
 * to a README section that did not exist).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atMost } from '../helpers/at-most';
import { bundledScript } from '../helpers/bundled-script';
import { ROOT } from '../helpers/child-process';
import { anchorsOf } from '../docs/markdown';
import { cliErrorMessage } from '../../scripts/cli';

const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;

/** Scripts that run another project's tool (which has its own --help) or that npm runs itself. */
const NOT_OURS: Record<string, string> = {
  build: 'tsc',
  lint: 'eslint, prettier, dependency-cruiser and knip',
  'lint:deps': 'dependency-cruiser',
  'lint:unused': 'knip',
  format: 'prettier and eslint',
  test: 'vitest',
  'test:watch': 'vitest',
  'test:fast': 'vitest',
  synth: 'cdk',
  cdk: 'cdk',
};

/** The repository file a script runs, if it runs one (`node --import tsx local/start.ts`, or `tsx scripts/x.ts`). */
const fileOf = (command: string) =>
  command.split(/\s+/).find((word) => /\.(ts|mjs)$/.test(word) && existsSync(join(ROOT, word)));

const OURS = Object.keys(SCRIPTS).filter((name) => fileOf(SCRIPTS[name]!));

/**
 * Under tsx a script's --help spends most of its CPU loading the script's imports (1 to 4 s; a bundle of
 * the same entry point, 0.1 to 1.6 s, test/helpers/bundled-script.ts): each script's --help runs its
 * bundle, but these, which run package.json's own command, each for the reason given. The bundle helper
 * refuses a script that is more than tsx running one file, so a new script of another shape fails here
 * until it is listed.
 */
const AS_PACKAGE_JSON_SAYS: Record<string, string> = {
  sim: 'the one run of a `node --import tsx` script here through package.json (also its unknown option, below)',
  bench: 'it loads aws-cdk-lib: bundling it costs more CPU than tsx loading it',
  cost: 'it synthesizes the relay (aws-cdk-lib): its bundle is 66 MB, slower to build and load than tsx',
  prepack: 'pack.ts with an argument',
  postpack: 'pack.ts with an argument',
  saturate: 'plain node, no tsx',
};

/** The command the test runs for `npm run <name> --`. */
async function commandOf(name: string): Promise<string> {
  return name in AS_PACKAGE_JSON_SAYS ? SCRIPTS[name]! : (await bundledScript(name)).command;
}

/**
 * The scripts' runs are independent, and each is a process loading tsx and the script's imports (1 to 3 s
 * of CPU, most of a run's time): their tests run at once, two processes at a time, so a run uses a core the
 * other test worker leaves idle while it waits. More at once would only stretch each run toward its 60 s
 * limit on two cores. A test's time includes its wait for a turn: RUN_TIMEOUT_MS leaves room for it.
 */
const twoAtATime = atMost(2);
const RUN_TIMEOUT_MS = 240_000;

/** The script's command as npm runs it (node_modules/.bin on the PATH), in a process group of its own. */
function run(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return twoAtATime(() => spawnRun(command));
}

function spawnRun(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', command], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    // A script that starts a server instead of answering never exits: ended, and the test says so.
    const timer = setTimeout(() => {
      stderr += '\n(still running after 60 s: killed)';
      process.kill(-child.pid!, 'SIGKILL');
    }, 60_000);
    // 'close', not 'exit': a process's output can still be in its pipes when it exits (seen once in CI: a
    // `--help` that printed its usage read as '' with exit code 0).
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const STACK_FRAME = /^\s+at .+[:(]\d+:\d+\)?$/m;

/** What a usage text points to: `docs/x.md#anchor`, `README.md`, or `README "Section"`. */
function docReferences(text: string): { file: string; anchor?: string; heading?: string }[] {
  const refs: { file: string; anchor?: string; heading?: string }[] = [];
  for (const m of text.matchAll(/(?<![\w/.-])([\w./-]+\.md)(?:#([\w-]+))?/g))
    refs.push({ file: m[1]!, anchor: m[2] });
  for (const m of text.matchAll(/\b(README(?:\.md)?),? "([^"]+)"/g))
    refs.push({ file: 'README.md', heading: m[2] });
  return refs;
}

/** What is wrong with the references, relative to the repository root; empty when every one exists. */
function brokenReferences(text: string): string[] {
  return docReferences(text).flatMap(({ file, anchor, heading }) => {
    const path = join(ROOT, file);
    if (!existsSync(path)) return [`${file}: no such file`];
    const markdown = readFileSync(path, 'utf8');
    if (anchor !== undefined && !anchorsOf(markdown).has(anchor))
      return [`${file}#${anchor}: no such section`];
    if (
      heading !== undefined &&
      !new RegExp(`^#+\\s+${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm').test(markdown)
    )
      return [`${file} "${heading}": no such section`];
    return [];
  });
}

describe('--help of the scripts in package.json', () => {
  it('knows every script: it runs a file of this repository, or it is listed as another tool', () => {
    // Assess: a new script is checked below, or says here why not.
    expect(Object.keys(SCRIPTS).filter((name) => !OURS.includes(name) && !(name in NOT_OURS))).toEqual([]);
    expect(OURS).toEqual(
      expect.arrayContaining(['start', 'sim', 'simulator', 'cost', 'saturate', 'console:build']),
    );
  });

  for (const name of OURS)
    it.concurrent(
      `npm run ${name} -- --help prints its usage and exits 0, and every doc section it names exists`,
      async () => {
        // Act
        const { code, stdout, stderr } = await run(`${await commandOf(name)} --help`);
        // Assess
        const output = `${stdout}${stderr}`;
        expect(code, output).toBe(0);
        expect(stdout, output).toMatch(/^Usage: /m);
        expect(output).not.toMatch(STACK_FRAME);
        expect(brokenReferences(output), output).toEqual([]);
      },
      RUN_TIMEOUT_MS,
    );

  for (const name of OURS)
    it.concurrent(
      `npm run ${name} -- --no-such-option is a one-line message and the usage, exit code 2, no stack trace`,
      async () => {
        // Act
        const { code, stdout, stderr } = await run(`${await commandOf(name)} --no-such-option`);
        // Assess: refused before it does anything (a typo must not start a server, a build or busy workers).
        expect(code, `${stdout}${stderr}`).toBe(2);
        expect(stderr).toContain("✖ Unknown option '--no-such-option'");
        expect(stderr).toMatch(/^Usage: /m);
        expect(`${stdout}${stderr}`).not.toMatch(STACK_FRAME);
      },
      RUN_TIMEOUT_MS,
    );

  it(
    'npm run bench -- --only bundle (a typo of a section) is refused naming the sections, before it measures anything',
    async () => {
      // Act
      const { code, stdout, stderr } = await run(`${await commandOf('bench')} --only bundle --no-results`);
      // Assess: exit 2 at once, not the whole bench (minutes) that an unknown section used to run.
      expect(code, `${stdout}${stderr}`).toBe(2);
      expect(stderr).toContain(
        '✖ --only bundle is not one of poller, callbacks, consoles, deliveries, statements, bundles',
      );
      expect(stderr).toContain('did you mean --only bundles?');
      expect(stdout).toBe('');
    },
    RUN_TIMEOUT_MS,
  );

  it('names the option meant when an unknown one is a typo of it', () => {
    // Act
    const message = (unknown: string) =>
      cliErrorMessage(new Error(`Unknown option '${unknown}'. To specify a positional …`), [
        'fault',
        'data-dir',
        'simulator',
      ]);
    // Assess
    expect(message('--fualt')).toBe("Unknown option '--fualt'; did you mean --fault?");
    expect(message('--datadir')).toBe("Unknown option '--datadir'; did you mean --data-dir?");
    expect(message('--no-such-option')).toBe("Unknown option '--no-such-option'");
  });
});

describe('doc references in a usage text', () => {
  it('are found whether they name an anchor, a file or a README section, and a missing one is reported', () => {
    // Act
    const broken = brokenReferences(
      'see README "Provider simulator", README.md#quick-start, docs/configuration.md#npm-start, docs/nope.md',
    );
    // Assess
    expect(broken).toEqual(['docs/nope.md: no such file', 'README.md "Provider simulator": no such section']);
  });
});
