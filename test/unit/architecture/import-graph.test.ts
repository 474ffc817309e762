import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const run = promisify(execFile);

/**
 * One probe per folder, each breaking the rule that folder must keep (a static, type-only or dynamic
 * import), planted as a real file for dependency-cruiser to resolve, in a copy of the source folders:
 * never in the checkout, where a type-check or lint running beside this test would trip over it. A rule
 * about named files (`file`) has its probe appended to that file's copy.
 */
const PROBES: Array<{ folder: string; code: string; rule: string; file?: string }> = [
  { folder: 'shared/domain', code: "import '../adapters/dynamodb/table';", rule: 'domain-is-pure' },
  {
    folder: 'shared/app/callbacks',
    code: "export const load = () => import('../../adapters/memory/memory-store');",
    rule: 'use-cases-depend-on-ports',
  },
  {
    folder: 'shared/app',
    code: "export type Schema = typeof import('../providers/momo/schema');",
    rule: 'use-cases-name-no-provider',
  },
  {
    folder: 'shared/providers/momo',
    code: "import type { RelayStore } from '../../app/ports';\nexport type S = RelayStore;",
    rule: 'providers-are-pure',
  },
  {
    folder: 'shared/config',
    code: "import '../adapters/secrets/secrets-manager';",
    rule: 'config-reads-no-adapter',
  },
  {
    folder: 'shared/destinations/https',
    code: "import type { RelayConfig } from '../../config/schema';\nexport type C = RelayConfig;",
    rule: 'destination-types-are-pure',
  },
  {
    folder: 'shared/app/delivery',
    code: "export const load = () => import('../../destinations/sqs/address');",
    rule: 'use-cases-reach-destination-types-through-the-registry',
  },
  { folder: 'shared/util', code: "import '../domain/errors';", rule: 'util-imports-nothing-of-the-relay' },
  {
    folder: 'shared/util',
    file: 'time-zone.ts',
    code: "import './text';",
    rule: 'console-shared-code-imports-nothing',
  },
  { folder: 'shared/http', code: "import '../runtime/lambda-middleware';", rule: 'http-is-a-transport' },
  { folder: 'shared/adapters', code: "import '../http/types';", rule: 'adapters-serve-ports' },
  { folder: 'shared/runtime', code: "import '../../local/relay';", rule: 'runtime-is-the-lambda-root' },
  {
    folder: 'functions/callback',
    code: "import '../../shared/adapters/dynamodb/relay-store';",
    rule: 'functions-are-thin',
  },
  {
    folder: 'infra/relay',
    code: "import '../../shared/app/callbacks/quarantine';",
    rule: 'infra-runs-no-use-case',
  },
  {
    folder: 'local',
    code: "export const app = () => import('../infra/bundling');",
    rule: 'local-is-npm-start',
  },
  {
    folder: 'console/views',
    code: "import '../../shared/domain/errors';",
    rule: 'console-reads-only-answer-types',
  },
  { folder: 'simulator', code: "import '../shared/app/ports';", rule: 'simulator-is-the-provider' },
  { folder: 'scripts', code: "import '../test/helpers/relay';", rule: 'scripts-use-no-test' },
  { folder: 'shared/app', code: "import '../../scripts/bench-results';", rule: 'scripts-are-not-product' },
  {
    folder: 'packages/subscriber-kit/src',
    code: "import '../../../shared/util/text';",
    rule: 'subscriber-kit-stands-alone',
  },
];

const SOURCE_FOLDERS = [
  'functions',
  'shared',
  'infra',
  'local',
  'console',
  'simulator',
  'scripts',
  'packages',
  'test/helpers',
];

/** Where a probe is planted: a new file in its folder, or the named file it is appended to. */
const probeFile = (probe: (typeof PROBES)[number], id: string, i: number) =>
  `${probe.folder}/${probe.file ?? `import-probe-${id}-${i}.ts`}`;

let copy: string | undefined;
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** The source folders and the rules, copied; node_modules linked. */
function sourceCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
  for (const folder of SOURCE_FOLDERS)
    cpSync(join(ROOT, folder), join(dir, folder), {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|dist)([/\\]|$)/.test(source),
    });
  for (const file of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json'])
    cpSync(join(ROOT, file), join(dir, file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

// The code as it is passes the same rules in `npm run lint` (lint:deps); here each rule is shown to fail.
describe('the import-graph rules (dependency-cruiser) cover every folder', () => {
  it(
    'fails on a probe in each folder, static, type-only and dynamic imports alike',
    { timeout: 120_000 },
    async () => {
      // Prepare
      copy = sourceCopy();
      const id = randomUUID().slice(0, 8);
      const files = PROBES.map((probe, i) => {
        const file = probeFile(probe, id, i);
        mkdirSync(dirname(join(copy!, file)), { recursive: true });
        if (probe.file) appendFileSync(join(copy!, file), `\n${probe.code}\n`);
        else writeFileSync(join(copy!, file), `${probe.code}\n`);
        return file;
      });

      // Act: only the probes and what they import directly.
      const { stdout } = await run(
        'npx',
        [
          'depcruise',
          '--config',
          '.dependency-cruiser.cjs',
          '--output-type',
          'json',
          '--max-depth',
          '1',
          ...files,
        ],
        { cwd: copy, maxBuffer: 64 * 1024 * 1024 },
      ).catch((error: { stdout: string }) => error);

      // Assess
      const violations = JSON.parse(stdout).summary.violations as Violation[];
      for (const [i, probe] of PROBES.entries()) {
        const from = probeFile(probe, id, i);
        expect(
          violations.filter((v) => v.from === from).map((v) => v.rule.name),
          `${from}: ${probe.code}`,
        ).toContain(probe.rule);
      }
    },
  );
});

describe('the probes cover the rules and the folders', () => {
  const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
    forbidden: Array<{ name: string }>;
  };

  it('has a probe for every rule of .dependency-cruiser.cjs', () => {
    const probed = new Set(PROBES.map((probe) => probe.rule));
    expect(config.forbidden.map((rule) => rule.name).filter((name) => !probed.has(name))).toEqual([]);
  });

  it('plants a probe in every folder `npm run lint:deps` reads, and in each layer of shared/', () => {
    const lintDeps = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts['lint:deps']!;
    // The command's arguments that are folders of the checkout: the folders it reads.
    const folders = lintDeps
      .split(' ')
      .filter((word) => existsSync(join(ROOT, word)) && statSync(join(ROOT, word)).isDirectory());
    const layers = readdirSync(join(ROOT, 'shared'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `shared/${entry.name}`);
    const probed = PROBES.map((probe) => probe.folder);
    const unprobed = [...folders.filter((f) => f !== 'shared'), ...layers].filter(
      (folder) => !probed.some((p) => p === folder || p.startsWith(`${folder}/`)),
    );
    expect(folders).toEqual(expect.arrayContaining(['functions', 'shared', 'packages']));
    expect(unprobed).toEqual([]);
  });
});
