import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RELAY_FUNCTIONS } from '../../infra/bundling';

/**
 * The steps of docs/construct.md ("From the packed tarball"), run as a new user would: `npm pack`, an
 * empty CDK app that installs the tarball, `cdk synth`. The one shortcut: the app's peer dependencies
 * (aws-cdk-lib, constructs, cdk-nag, cdk-monitoring-constructs) are links to this repository's copies
 * instead of a download of aws-cdk-lib; everything of the relay comes from the tarball.
 */
const run = promisify(execFile);
const PEERS = ['aws-cdk-lib', 'constructs', 'cdk-nag', 'cdk-monitoring-constructs'];
const STACK = 'Payments';

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

describe('the packed tarball installed in an empty CDK app', () => {
  let work: string;
  let appDir: string;
  let template: Template;
  let installed: string;
  let typeErrors: string;

  /** The cdk.out directory of a function's Code or a layer's Content (`S3Key` is `<asset hash>.zip`). */
  function assetDir(code: unknown): string {
    const key = (code as { S3Key?: unknown }).S3Key;
    if (typeof key !== 'string') throw new Error(`not an asset: ${JSON.stringify(code)}`);
    return join(appDir, 'cdk.out', `asset.${key.replace(/\.zip$/, '')}`);
  }

  beforeAll(async () => {
    // Prepare: pack (prepack builds dist/), an empty app, the tarball installed without the registry's copy of the peers.
    work = mkdtempSync(join(tmpdir(), 'relay-npm-pack-'));
    const { stdout: packed } = await run('npm', ['pack', '--pack-destination', work], {
      cwd: PROJECT_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = join(work, packed.trim().split('\n').at(-1)!);
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
      { cwd: appDir },
    );
    writeFileSync(join(appDir, 'types-check.ts'), TYPES_CHECK_SOURCE);
    writeFileSync(join(appDir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    for (const peer of PEERS)
      symlinkSync(join(PROJECT_ROOT, 'node_modules', peer), join(appDir, 'node_modules', peer), 'dir');
    // The app's own dev dependency for the type check (a TypeScript app has it).
    mkdirSync(join(appDir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(
      join(PROJECT_ROOT, 'node_modules', '@types', 'node'),
      join(appDir, 'node_modules', '@types', 'node'),
      'dir',
    );
    installed = join(appDir, 'node_modules', 'mobile-money-callback-relay');

    // Act: cdk synth with the CLI, as the app's user runs it; beside it, tsc over a TypeScript use.
    const typeCheck = run(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'],
      {
        cwd: appDir,
      },
    ).then(
      () => '',
      (error: Error & { stdout?: string }) => error.stdout || error.message,
    );
    await run(
      process.execPath,
      [
        join(PROJECT_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
        'synth',
        '--quiet',
        '--no-notices',
        '--no-version-reporting',
      ],
      {
        cwd: appDir,
        env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    typeErrors = await typeCheck;
    template = JSON.parse(
      readFileSync(join(appDir, 'cdk.out', `${STACK}.template.json`), 'utf8'),
    ) as Template;
  }, 600_000);

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
    expect(existsSync(join(installed, 'infra'))).toBe(false);
    for (const id of Object.keys(RELAY_FUNCTIONS)) {
      expect(existsSync(join(installed, 'dist', 'assets', 'functions', id, 'index.mjs'))).toBe(true);
    }
    // The operator console ships built: an installed package deploys it without console/ or esbuild.
    expect(existsSync(join(installed, 'dist', 'assets', 'console', 'index.html'))).toBe(true);
    expect(existsSync(join(installed, 'console'))).toBe(false);
  });

  it('synthesizes a stack whose relay functions each deploy a bundle from the tarball', () => {
    // Prepare
    const tarballBundles = Object.keys(RELAY_FUNCTIONS).map((id) =>
      readFileSync(join(installed, 'dist', 'assets', 'functions', id, 'index.mjs')),
    );

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
    expect(modes.filter((mode) => mode === 'Active')).toHaveLength(2);
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
});
