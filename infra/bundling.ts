import { fileURLToPath } from 'node:url';

/**
 * The ONE place the Lambda bundle options live: the CDK construct (NodejsFunction) and
 * `scripts/bundle-size.ts` (size + cold-init measurement) both read them, so what is measured is
 * what is deployed. No aws-cdk-lib import here: the script stays light.
 */

/** Repository root (this file is `<root>/infra/bundling.ts`). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export type RelayFunctionId =
  'callback' | 'management' | 'outbox-publisher' | 'poller' | 'transaction-initiated' | 'buffer-consumer';

/** Lambda entry points, relative to the repository root. */
export const RELAY_FUNCTIONS: Record<RelayFunctionId, { entry: string; serviceName: string }> = {
  callback: { entry: 'functions/callback/index.ts', serviceName: 'relay-callback' },
  management: { entry: 'functions/management/index.ts', serviceName: 'relay-management' },
  'outbox-publisher': { entry: 'functions/outbox-publisher/index.ts', serviceName: 'relay-outbox-publisher' },
  poller: { entry: 'functions/poller/index.ts', serviceName: 'relay-poller' },
  'transaction-initiated': {
    entry: 'functions/transaction-initiated/index.ts',
    serviceName: 'relay-transaction-initiated',
  },
  'buffer-consumer': { entry: 'functions/buffer-consumer/index.ts', serviceName: 'relay-buffer-consumer' },
};

/**
 * ESM output needs a real `require` for the few CommonJS dependencies that load Node built-ins
 * with `require()` at run time (esbuild's shim throws "Dynamic require is not supported" otherwise).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __relayCreateRequire } from 'node:module'; const require = __relayCreateRequire(import.meta.url);";

/**
 * esbuild settings shared by the construct and the measurement script.
 *
 * The AWS SDK v3 is bundled, not left to the Node.js 22 runtime's copy (`external: []`): one minified
 * file loads about twice as fast as resolving the SDK's hundreds of modules from node_modules
 * (measured by scripts/bundle-size.ts), and the deployed code runs the SDK version the tests ran.
 */
export const BUNDLE_OPTIONS = {
  target: 'node22',
  platform: 'node',
  format: 'esm',
  outExtension: '.mjs',
  minify: true,
  sourcemap: true,
  /** Stack traces only need the mappings (NODE_OPTIONS=--enable-source-maps); keeps the asset small. */
  sourcesContent: false,
  /** Prefer packages' ESM builds: they tree-shake (the SDK's dist-es, middy, Powertools). */
  mainFields: ['module', 'main'],
  external: [] as string[],
  /**
   * Module replacements, paths relative to PROJECT_ROOT (esbuild's working directory in the construct
   * and in the script). The SDK's default credential chain becomes env-only: in Lambda the role's
   * credentials are always in the environment, and the rest of the chain (SSO, profiles, STS web
   * identity, container/instance metadata and their nested clients) is ~130 KB that never runs.
   */
  alias: {
    '@aws-sdk/credential-provider-node': './infra/lambda-shims/credentials-from-env.ts',
    // The SDK's endpoint-discovery cache: a Map does it (~5 KB less per bundle; see the shim).
    'mnemonist/lru-cache': './infra/lambda-shims/lru-cache.ts',
    // The event-stream codec, loaded only by streaming operations none of our clients has (~13 KB per bundle).
    '@smithy/core/event-streams': './infra/lambda-shims/no-event-streams.ts',
    // Sha256 and Md5 on node:crypto without the SDK's pure-JS fallbacks (~5 KB per bundle; see the shim).
    '@smithy/core/checksum': './infra/lambda-shims/native-checksums.ts',
  } as Record<string, string>,
  banner: ESM_REQUIRE_BANNER,
} as const;

/**
 * Budget from the design contract ("Performance targets"). tsconfig.json sets `alwaysStrict: false`
 * for this: every file is an ES module, strict by definition, and with `strict` alone esbuild repeats a
 * "use strict" directive in each of the ~340 modules of a bundle (4 KB of each function's budget).
 */
export const BUNDLE_BUDGET = { maxBytes: 500 * 1024, maxColdInitMs: 150 } as const;
