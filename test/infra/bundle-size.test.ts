import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_MAX_BYTES,
  CALLBACK_BUNDLE_TARGET_BYTES,
  RELAY_FUNCTIONS,
  type RelayFunctionId,
  relayBuildOptions,
} from '../../infra/bundling';

/*
 * Every function's bundle, built with the construct's esbuild options (infra/bundling.ts), held to its size
 * ceiling (BUNDLE_MAX_BYTES: each function's last measured size, the callback's below issue 32's 400 KB
 * target): a change that makes a function heavier fails here, naming what weighs most. `npm run
 * bench` prints the sizes beside the cold init.
 */

let outdir: string;

interface Built {
  bytes: number;
  /** Output bytes per input module (our files and the packages' files). */
  inputs: Record<string, number>;
}

async function buildFunction(name: RelayFunctionId): Promise<Built> {
  const file = join(outdir, name, 'index.mjs');
  const built = await build(relayBuildOptions(name, file));
  const output = Object.values((built.metafile as Metafile).outputs).find((o) => o.entryPoint)!;
  return {
    bytes: statSync(file).size,
    inputs: Object.fromEntries(
      Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput]),
    ),
  };
}

let bytes: number;
let inputs: Record<string, number>;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'relay-bundle-size-'));
  ({ bytes, inputs } = await buildFunction('callback'));
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Output bytes grouped by package (or by top-level folder for our own code), biggest first. */
function heaviest(count: number, of: Record<string, number> = inputs): string[] {
  const byModule = new Map<string, number>();
  for (const [path, size] of Object.entries(of)) {
    const module =
      path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? path.split('/').slice(0, 2).join('/');
    byModule.set(module, (byModule.get(module) ?? 0) + size);
  }
  return [...byModule]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([module, size]) => `${module} ${(size / 1024).toFixed(1)} KB`);
}

describe('callback bundle size', () => {
  it('stays within the callback function’s size ceiling', () => {
    // Assess
    expect(
      bytes,
      `callback bundle ${(bytes / 1024).toFixed(1)} KB; heaviest: ${heaviest(8).join(', ')}`,
    ).toBeLessThanOrEqual(BUNDLE_MAX_BYTES.callback);
  });

  it('meets issue 32’s callback target: its ceiling is at most 400 KB', () => {
    // Assess
    expect(BUNDLE_MAX_BYTES.callback).toBeLessThanOrEqual(CALLBACK_BUNDLE_TARGET_BYTES);
  });

  it('keeps of zod’s util module only what its schemas call, not the whole module', () => {
    // Act: zod/mini's own `catch` reads a util helper as `core.util.constantCatch`, a namespace inside a
    // namespace, which made esbuild keep every util function (13.3 KB; shared/util/zod.ts has its own).
    const util = Object.entries(inputs).find(([path]) => path.endsWith('zod/v4/core/util.js'));
    // Assess
    expect(util?.[1]).toBeGreaterThan(0);
    expect(util![1]).toBeLessThan(8 * 1024);
  });

  it('bundles the callback path’s store alone, without the other ports’ reads and writes', () => {
    // Assess
    expect(Object.keys(inputs)).toContain('shared/adapters/dynamodb/transaction-store.ts');
    expect(Object.keys(inputs).filter((path) => path.endsWith('dynamodb/relay-store.ts'))).toEqual([]);
  });

  it('sends SQS, Secrets Manager and DynamoDB through the slim clients, without every operation’s errors and schemas', () => {
    // Act
    const generated = Object.keys(inputs).filter(
      (path) =>
        inputs[path]! > 0 &&
        /@aws-sdk\/client-(sqs|secrets-manager|dynamodb)\/(dist-es\/(schemas|models\/errors|[A-Za-z]+Client\.js))/.test(
          path,
        ),
    );
    // Assess: of the error classes, DynamoDB's two the relay tells apart or the SDK retries by class.
    expect(generated.filter((path) => !path.endsWith('client-dynamodb/dist-es/models/errors.js'))).toEqual(
      [],
    );
    const dynamoErrors = Object.entries(inputs).find(([path]) =>
      path.endsWith('client-dynamodb/dist-es/models/errors.js'),
    );
    expect(dynamoErrors?.[1] ?? 0).toBeLessThan(1024);
    // Of their package.json files, the version string alone (the user agent's).
    for (const pkg of ['client-sqs', 'client-secrets-manager', 'client-dynamodb']) {
      const [, size] = Object.entries(inputs).find(([path]) =>
        path.endsWith(`@aws-sdk/${pkg}/package.json`),
      )!;
      expect(size, pkg).toBeLessThan(100);
    }
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/sqs-send-message.ts');
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/secrets-manager-client.ts');
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/dynamodb-client.ts');
  });

  it('writes its metrics through the EMF shim, without the rest of Powertools Metrics', () => {
    // Act
    const bundled = Object.keys(inputs).filter(
      (path) => inputs[path]! > 0 && path.includes('@aws-lambda-powertools/metrics/lib/esm/Metrics.js'),
    );
    // Assess
    expect(bundled).toEqual([]);
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/emf-metrics.ts');
  });

  it('logs through the Logger shim, without the rest of Powertools Logger', () => {
    // Act: the package's own files bundled, but for the formatter base and constants the shim reuses.
    const bundled = Object.keys(inputs).filter(
      (path) =>
        inputs[path]! > 0 &&
        path.includes('@aws-lambda-powertools/logger/') &&
        !/logger\/lib\/esm\/(formatter\/LogFormatter|constants)\.js$/.test(path),
    );
    // Assess
    expect(bundled).toEqual([]);
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/powertools-logger.ts');
    expect(Object.keys(inputs)).toContain('infra/lambda-shims/powertools-logger-middleware.ts');
  });
});

/** A build takes seconds; on loaded cores it may take many. */
const BUILD_TIMEOUT_MS = 120_000;

describe('the other functions’ bundle sizes', () => {
  const others = (Object.keys(RELAY_FUNCTIONS) as RelayFunctionId[]).filter((name) => name !== 'callback');

  it.each(others)(
    '%s stays within its size ceiling',
    async (name) => {
      // Act
      const built = await buildFunction(name);
      // Assess
      expect(
        built.bytes,
        `${name} bundle ${(built.bytes / 1024).toFixed(1)} KB; heaviest: ${heaviest(8, built.inputs).join(', ')}`,
      ).toBeLessThanOrEqual(BUNDLE_MAX_BYTES[name]);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'leaves the webhook delivery adapters and the SQS client out of the poller (only the management API replays)',
    async () => {
      // Act
      const { inputs: poller } = await buildFunction('poller');
      // Assess
      const loaded = Object.keys(poller).filter(
        (path) =>
          poller[path]! > 0 &&
          /(@aws-sdk\/client-sqs\/|dynamodb\/delivery-log\.ts|dynamodb\/destination-state-store\.ts)/.test(
            path,
          ),
      );
      expect(loaded).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );

  it.each(['buffer-consumer', 'management', 'delivery'] as const)(
    'sends SQS through the slim client in %s, without every operation’s errors and schemas',
    async (name) => {
      // Act
      const { inputs } = await buildFunction(name);
      const generated = Object.keys(inputs).filter(
        (path) =>
          inputs[path]! > 0 &&
          /@aws-sdk\/client-sqs\/dist-es\/(schemas|models\/errors|[A-Za-z]+Client\.js|commands)/.test(path),
      );
      // Assess
      expect(generated).toEqual([]);
      expect(Object.keys(inputs)).toContain('infra/lambda-shims/sqs-client.ts');
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'sends DynamoDB through the slim store client in the other functions, without every operation’s errors and schemas',
    async () => {
      // Act
      const { inputs: poller } = await buildFunction('poller');
      const generated = Object.keys(poller).filter(
        (path) =>
          poller[path]! > 0 && /@aws-sdk\/client-dynamodb\/dist-es\/(schemas|[A-Za-z]+Client\.js)/.test(path),
      );
      // Assess: of the error classes, the three the stores tell apart or the SDK retries by class.
      expect(generated).toEqual([]);
      const errors = Object.entries(poller).find(([path]) =>
        path.endsWith('client-dynamodb/dist-es/models/errors.js'),
      );
      expect(errors?.[1] ?? 0).toBeLessThan(1536);
      expect(Object.keys(poller)).toContain('infra/lambda-shims/dynamodb-store-client.ts');
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'writes every function’s metrics through the EMF shim',
    async () => {
      // Act
      const { inputs: management } = await buildFunction('management');
      // Assess
      expect(Object.keys(management)).toContain('infra/lambda-shims/emf-metrics.ts');
      expect(
        Object.keys(management).filter(
          (path) =>
            management[path]! > 0 && path.includes('@aws-lambda-powertools/metrics/lib/esm/Metrics.js'),
        ),
      ).toEqual([]);
    },
    BUILD_TIMEOUT_MS,
  );
});
