import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RELAY_FUNCTIONS } from '../../infra/bundling';

/**
 * The steps of docs/construct.md ("From the packed tarball"), run as a new user would: `npm pack`, then
 * two apps that install the tarball and run `cdk synth`: an ES module app, and a CommonJS TypeScript app
 * laid out as `cdk init app --language typescript` lays it out (its template's tsconfig, read from the
 * aws-cdk CLI package; the stack of the package README, as written). The shortcuts: the apps' peer
 * dependencies (aws-cdk-lib, constructs, cdk-nag, cdk-monitoring-constructs) and the TypeScript app's
 * tools (tsx, @types/node; its tsc is the repository's) are links to this repository's copies instead of downloads; and
 * `npm pack` runs in a copy of the repository's packed inputs, because prepack swaps README.md for the
 * package README while it packs, and other tests read the repository README meanwhile. Everything of the
 * relay comes from the tarball. The tarball is installed once (in the ES module app) and the CommonJS app
 * gets a copy of that node_modules: what npm installs does not depend on the app's module type. All three
 * type-checks (the TypeScript use, the CommonJS app under its own tsconfig and under the older template's
 * resolution) run in one `tsc --build`, which parses the declarations they share (aws-cdk-lib's, about a
 * million lines) once instead of once per check. The CommonJS app's cdk.json runs `npx tsc && npx tsx
 * bin/payments.ts`: its `npx tsc` is that build's check of the app's tsconfig.json (a second parse and
 * check, 11 s of CPU, proved nothing more), so `cdk synth` runs the second half, the same tsx, as
 * `node --import tsx` (without npx's and the tsx CLI's parent processes), through the CLI's `--app`.
 */
const run = promisify(execFile);
const PEERS = ['aws-cdk-lib', 'constructs', 'cdk-nag', 'cdk-monitoring-constructs'];
const STACK = 'Payments';
/** What `npm pack` reads from the repository: the sources prepack builds from, and what `files` ships. */
const PACK_INPUTS = [
  'infra',
  'shared',
  'functions',
  'console',
  'scripts',
  'schemas',
  'docs/package-readme.md',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'README.md',
  'LICENSE',
];
const CDK_INIT_TEMPLATE = join(
  PROJECT_ROOT,
  'node_modules',
  'aws-cdk',
  'lib',
  'init-templates',
  'app',
  'typescript',
);
const CJS_STACK = 'PaymentsStack';

/** The package README's TypeScript stack (`lib/payments-stack.ts`), exactly as documented. */
function documentedStack(readme: string): string {
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block?.includes('export class PaymentsStack'))
    throw new Error('no PaymentsStack block in the package README');
  return block;
}

const APP_SOURCE = `import { readFileSync } from 'node:fs';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MobileMoneyRelay, RELAY_FUNCTIONS } from 'mobile-money-callback-relay';

const app = new App();
const stack = new Stack(app, '${STACK}');
new MobileMoneyRelay(stack, 'MobileMoney', {
  config: JSON.parse(readFileSync('relay.config.json', 'utf8')),
  alarmEmail: 'payments-oncall@example.org',
});
Aspects.of(app).add(new AwsSolutionsChecks());
console.log(\`relay functions: \${Object.keys(RELAY_FUNCTIONS).join(', ')}\`);
`;

/** A TypeScript app's view: NodeNext resolution, and a wrong type that only real declarations catch. */
const TYPES_CHECK_SOURCE = `import { App, Stack } from 'aws-cdk-lib';
import { MobileMoneyRelay, type MobileMoneyRelayProps } from 'mobile-money-callback-relay';

const props: MobileMoneyRelayProps = { config: {}, alarmEmail: 'payments-oncall@example.org' };
const relay = new MobileMoneyRelay(new Stack(new App(), '${STACK}'), 'MobileMoney', props);
// @ts-expect-error a function name is a string (unused, and so an error, if the types were any)
export const wrong: number = relay.callbackFunction.functionName;
// @ts-expect-error the config's types are the relay's own declarations (shared/config/relay-config.d.ts)
export const wrongUrl: number = relay.config.publicBaseUrl;
`;
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  },
  files: ['types-check.ts'],
};

interface Template {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
}

/**
 * The CommonJS app's command without its type-check: cdk.json's `npx tsc && npx tsx bin/payments.ts`, whose
 * `npx tsc` (the app's tsconfig.json) typeCheckApps runs, and whose tsx runs in the app's one process.
 */
function cjsAppCommand(cdkJsonApp: string): string {
  const script = /^npx tsc && npx tsx (bin\/\S+\.ts)$/.exec(cdkJsonApp)?.[1];
  if (!script) throw new Error(`cdk init's app command changed: ${cdkJsonApp}`);
  return `node --import tsx ${script}`;
}

/** Links a repository dev dependency into an app's node_modules (instead of downloading it). */
function linkModule(app: string, name: string): void {
  const target = join(app, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(PROJECT_ROOT, 'node_modules', name), target, 'dir');
}

/** `npm install <tarball>` without the registry's copy of the peers (linked afterwards: npm prunes links). */
async function installTarball(app: string, tarball: string): Promise<void> {
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--legacy-peer-deps',
      tarball,
    ],
    { cwd: app },
  );
  for (const peer of PEERS) linkModule(app, peer);
  linkModule(app, '@types/node');
}

/**
 * `tsc` over each app's projects (the app's directory → its tsconfigs), as one `tsc --build`: each project
 * is checked with its own options, and the declaration files they share are parsed once. Returns each
 * app's diagnostics ('' when it compiles): those of its files, and those of no file.
 */
async function typeCheckApps(
  cwd: string,
  projects: Record<string, string[]>,
): Promise<Record<string, string>> {
  const apps = Object.keys(projects);
  const output = await run(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--build',
      '--pretty',
      'false',
      ...apps.flatMap((app) => projects[app]!.map((project) => join(app, project))),
    ],
    { cwd },
  ).then(
    () => '',
    (error: Error & { stdout?: string }) => error.stdout || error.message,
  );
  // One diagnostic a line (`<file>(line,col): error TS…`), its continuation lines indented.
  const diagnostics = output.split(/\n(?=\S)/).filter((line) => line.trim());
  const ownerOf = (diagnostic: string) => apps.find((app) => resolve(cwd, diagnostic).startsWith(`${app}/`));
  return Object.fromEntries(
    apps.map((app) => [
      app,
      diagnostics.filter((d) => [app, undefined].includes(ownerOf(d.replace(/\(\d.*$/s, '')))).join('\n'),
    ]),
  );
}

/** `cdk synth` with the CLI, as the app's user runs it (`command`: the app command instead of cdk.json's). */
function cdkSynth(app: string, command?: string) {
  return run(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
      'synth',
      ...(command ? ['--app', command] : []),
      '--quiet',
      '--no-notices',
      '--no-version-reporting',
    ],
    {
      cwd: app,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

describe('the packed tarball installed in an empty CDK app', () => {
  let work: string;
  let appDir: string;
  let cjsDir: string;
  let template: Template;
  let cjsTemplate: Template;
  let cjsOutput: string;
  let installed: string;
  let typeErrors: string;
  let cjsTypeErrors: string;
  let packageReadme: string;

  /** The cdk.out directory of a function's Code or a layer's Content (`S3Key` is `<asset hash>.zip`). */
  function assetDir(code: unknown, app = appDir): string {
    const key = (code as { S3Key?: unknown }).S3Key;
    if (typeof key !== 'string') throw new Error(`not an asset: ${JSON.stringify(code)}`);
    return join(app, 'cdk.out', `asset.${key.replace(/\.zip$/, '')}`);
  }

  beforeAll(async () => {
    // Prepare: pack (prepack builds dist/) in a copy of the packed inputs, then the two apps.
    work = mkdtempSync(join(tmpdir(), 'relay-npm-pack-'));
    const repo = join(work, 'repo');
    for (const input of PACK_INPUTS)
      cpSync(join(PROJECT_ROOT, input), join(repo, input), { recursive: true });
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
    const { stdout: packed } = await run('npm', ['pack', '--pack-destination', work], {
      cwd: repo,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = join(work, packed.trim().split('\n').at(-1)!);
    packageReadme = readFileSync(join(PROJECT_ROOT, 'docs', 'package-readme.md'), 'utf8');

    // The ES module app.
    appDir = join(work, 'app');
    mkdirSync(appDir);
    writeFileSync(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'payments-cdk-app', private: true, type: 'module' }),
    );
    writeFileSync(join(appDir, 'cdk.json'), JSON.stringify({ app: 'node app.mjs' }));
    writeFileSync(join(appDir, 'app.mjs'), APP_SOURCE);
    writeFileSync(
      join(appDir, 'relay.config.json'),
      readFileSync(join(PROJECT_ROOT, 'infra', 'example-config.json')),
    );
    await installTarball(appDir, tarball);
    writeFileSync(join(appDir, 'types-check.ts'), TYPES_CHECK_SOURCE);
    writeFileSync(join(appDir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    installed = join(appDir, 'node_modules', 'mobile-money-callback-relay');

    // The CommonJS TypeScript app, as `cdk init app --language typescript` makes it (no "type": CommonJS),
    // the stack of the package README, the config copied from the installed package as the README says.
    cjsDir = join(work, 'payments');
    mkdirSync(join(cjsDir, 'bin'), { recursive: true });
    mkdirSync(join(cjsDir, 'lib'));
    writeFileSync(
      join(cjsDir, 'package.json'),
      JSON.stringify({ name: 'payments', version: '0.1.0', bin: { payments: 'bin/payments.js' } }),
    );
    const initTsconfig = JSON.parse(readFileSync(join(CDK_INIT_TEMPLATE, 'tsconfig.json'), 'utf8'));
    // The template's jest types belong to its test setup, which this app leaves out.
    initTsconfig.compilerOptions.types = ['node'];
    writeFileSync(join(cjsDir, 'tsconfig.json'), JSON.stringify(initTsconfig));
    // The older template's resolution too: CommonJS modules, node (node10) resolution.
    writeFileSync(
      join(cjsDir, 'tsconfig.node10.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { module: 'commonjs', moduleResolution: 'node' },
      }),
    );
    const initCdkJson = JSON.parse(readFileSync(join(CDK_INIT_TEMPLATE, 'cdk.template.json'), 'utf8'));
    initCdkJson.app = initCdkJson.app.replace('%name%', 'payments');
    writeFileSync(join(cjsDir, 'cdk.json'), JSON.stringify(initCdkJson));
    writeFileSync(
      join(cjsDir, 'bin', 'payments.ts'),
      readFileSync(join(CDK_INIT_TEMPLATE, 'bin', '%name%.template.ts'), 'utf8')
        .replaceAll('%name.PascalCased%', 'Payments')
        .replaceAll('%name%', 'payments')
        .replaceAll('%stackname%', CJS_STACK),
    );
    writeFileSync(join(cjsDir, 'lib', 'payments-stack.ts'), documentedStack(packageReadme));
    cpSync(join(appDir, 'node_modules'), join(cjsDir, 'node_modules'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    linkModule(cjsDir, 'tsx');
    cpSync(
      join(cjsDir, 'node_modules', 'mobile-money-callback-relay', 'infra', 'example-config.json'),
      join(cjsDir, 'relay.config.json'),
    );

    // Act: both apps synthesized by the CLI; beside them, tsc over a TypeScript use and the CommonJS app.
    const typeCheck = typeCheckApps(work, {
      [appDir]: ['.'],
      [cjsDir]: ['tsconfig.json', 'tsconfig.node10.json'],
    });
    const [, cjs] = await Promise.all([cdkSynth(appDir), cdkSynth(cjsDir, cjsAppCommand(initCdkJson.app))]);
    cjsOutput = `${cjs.stdout}${cjs.stderr}`;
    const errors = await typeCheck;
    typeErrors = errors[appDir]!;
    cjsTypeErrors = errors[cjsDir]!;
    template = JSON.parse(
      readFileSync(join(appDir, 'cdk.out', `${STACK}.template.json`), 'utf8'),
    ) as Template;
    cjsTemplate = JSON.parse(
      readFileSync(join(cjsDir, 'cdk.out', `${CJS_STACK}.template.json`), 'utf8'),
    ) as Template;
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs compiled JavaScript, declarations and prebuilt bundles, not the sources or the lockfile', () => {
    // Assess
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([...PEERS].sort());
    expect(existsSync(join(installed, 'dist', 'infra', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'types', 'infra', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'package-lock.json'))).toBe(false);
    expect(existsSync(join(installed, 'functions'))).toBe(false);
    // Of infra/, only the example config (package README, "Configure").
    expect(readdirSync(join(installed, 'infra'))).toEqual(['example-config.json']);
    for (const id of Object.keys(RELAY_FUNCTIONS)) {
      expect(existsSync(join(installed, 'dist', 'assets', 'functions', id, 'index.mjs'))).toBe(true);
    }
    // The operator console ships built: an installed package deploys it without console/ or esbuild.
    expect(existsSync(join(installed, 'dist', 'assets', 'console', 'index.html'))).toBe(true);
    expect(existsSync(join(installed, 'console'))).toBe(false);
  });

  it('synthesizes a stack whose relay functions each deploy a bundle from the tarball', () => {
    // Prepare
    // The delivery function is deployed only with webhook destinations; the example config has none.
    const tarballBundles = Object.keys(RELAY_FUNCTIONS)
      .filter((id) => id !== 'delivery')
      .map((id) => readFileSync(join(installed, 'dist', 'assets', 'functions', id, 'index.mjs')));

    // Assess: every relay function's asset is byte for byte one of the tarball's bundles, and each bundle is used
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs22.x',
    );
    expect(functions.length).toBeGreaterThanOrEqual(tarballBundles.length);
    const deployed = functions.map((fn) => {
      expect(fn.Properties.Handler).toBe('index.handler');
      return readFileSync(join(assetDir(fn.Properties.Code), 'index.mjs'));
    });
    for (const bundle of deployed) expect(tarballBundles.some((b) => b.equals(bundle))).toBe(true);
    for (const bundle of tarballBundles) expect(deployed.some((d) => d.equals(bundle))).toBe(true);
  });

  it('leaves the hot path untraced by default (Lambda would sample most callbacks)', () => {
    // Assess
    const modes = Object.values(template.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs22.x')
      .map((fn) => (fn.Properties.TracingConfig as { Mode?: string } | undefined)?.Mode);
    expect(modes).toContain('PassThrough');
    // The poller, the buffer consumer and the statements function.
    expect(modes.filter((mode) => mode === 'Active')).toHaveLength(3);
  });

  it('gives a TypeScript app the construct’s declarations under NodeNext resolution', () => {
    // Assess: tsc passed, so the @ts-expect-error met a real type error
    expect(typeErrors).toBe('');
  });

  it('ships the tracing layer prebuilt', () => {
    // Prepare
    const module = ['nodejs', 'node_modules', 'relay-tracing', 'index.js'];
    const tarballLayer = readFileSync(join(installed, 'dist', 'assets', 'tracing-layer', ...module));

    // Assess
    const layers = Object.values(template.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::LayerVersion')
      .map((layer) => join(assetDir(layer.Properties.Content), ...module))
      .filter((path) => existsSync(path));
    expect(layers).toHaveLength(1);
    expect(readFileSync(layers[0]!).equals(tarballLayer)).toBe(true);
  });

  it('is a public package with its license, a README about the construct, the example config and the event schemas', () => {
    // Prepare
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      private?: boolean;
      license?: string;
    };

    // Assess
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('Apache-2.0');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('Apache License');
    expect(readFileSync(join(installed, 'LICENSE'))).toEqual(readFileSync(join(PROJECT_ROOT, 'LICENSE')));
    // The package README, not the repository's (npm start, the simulator).
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).toBe(packageReadme);
    expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')).not.toBe(packageReadme);
    expect(readFileSync(join(installed, 'infra', 'example-config.json'))).toEqual(
      readFileSync(join(PROJECT_ROOT, 'infra', 'example-config.json')),
    );
    const schemas = readdirSync(join(PROJECT_ROOT, 'schemas', 'events')).filter((f) => f.endsWith('.json'));
    expect(schemas.length).toBeGreaterThan(10);
    for (const schema of schemas)
      expect(readFileSync(join(installed, 'schemas', 'events', schema))).toEqual(
        readFileSync(join(PROJECT_ROOT, 'schemas', 'events', schema)),
      );
    expect(existsSync(join(installed, 'schemas', 'events', 'draft-04', schemas[0]!))).toBe(true);
  });

  it('synthesizes in a CommonJS TypeScript app laid out by cdk init, with the README’s stack as written', () => {
    // Prepare
    // The delivery function is deployed only with webhook destinations; the example config has none.
    const tarballBundles = Object.keys(RELAY_FUNCTIONS)
      .filter((id) => id !== 'delivery')
      .map((id) => readFileSync(join(installed, 'dist', 'assets', 'functions', id, 'index.mjs')));

    // Assess: tsc under the older template's resolution too, the relay's functions from the tarball,
    // and the bulkhead's arithmetic printed by synth
    expect(cjsTypeErrors).toBe('');
    const functions = Object.values(cjsTemplate.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs22.x',
    );
    expect(functions.length).toBeGreaterThanOrEqual(tarballBundles.length);
    for (const fn of functions) {
      const bundle = readFileSync(join(assetDir(fn.Properties.Code, cjsDir), 'index.mjs'));
      expect(tarballBundles.some((b) => b.equals(bundle))).toBe(true);
    }
    expect(cjsOutput).toContain('Callback bulkhead: 56 + 56 + 120 + 20 = 252 reserved executions');
  });
});
